#include "world/sampler.hpp"

#include <algorithm>
#include <deque>

#include "broker/consumer_lag.hpp"
#include <twice/sim/sleep.hpp>

namespace twice {

namespace {
std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }
std::int64_t dead_letters_in(const queue* dead_letters) {
  return dead_letters != nullptr ? count(dead_letters->size()) : 0;
}
}  // namespace

sample_source queue_counts(std::vector<const queue*> jobs, const queue* dead_letters) {
  TWICE_CHECK(!jobs.empty());
  return [jobs = std::move(jobs), dead_letters] {
    std::size_t visible = 0, delayed = 0, in_flight = 0;
    sim::duration oldest = sim::duration::zero();
    for (const queue* j : jobs) {
      const queue_stats q = j->stats();
      visible += q.visible;
      delayed += q.delayed;
      in_flight += q.in_flight;
      oldest = std::max(oldest, q.oldest_age);
    }
    return ev::queue_sample{count(visible), count(delayed), count(in_flight), dead_letters_in(dead_letters), oldest};
  };
}

sample_source consumer_lag_counts(const sim::kernel& clock, const kafka_topic& topic, const consumer_group& group,
                                  const queue* dead_letters) {
  return [&clock, &topic, &group, dead_letters] {
    const consumer_lag lag = lag_of(topic, group, clock.now());
    return ev::queue_sample{lag.unfetched, 0, lag.fetched_uncommitted, dead_letters_in(dead_letters),
                            lag.oldest_uncommitted_age};
  };
}

sim::task<void> sample_every(const sim::kernel& clock, event_log& events, sample_source counts, sim::duration interval,
                             sim::duration lag) {
  TWICE_CHECK(interval > sim::duration::zero());
  struct taken {
    sim::instant at;
    ev::queue_sample counts;
  };
  std::deque<taken> recent;  // with a lag: the exact samples of the last `lag`, oldest first
  while (true) {
    const ev::queue_sample exact = counts();
    const sim::instant now = clock.now();
    if (lag == sim::duration::zero()) {
      events.emit(events.name("sampler"), exact);
    } else {
      recent.push_back({now, exact});
      const bool any_old_enough = now - sim::instant::epoch() >= lag;
      // Keep the newest sample at least `lag` old and what came after it.
      while (any_old_enough && recent.size() >= 2 && now - recent[1].at >= lag) recent.pop_front();
      const bool shown = any_old_enough && now - recent.front().at >= lag;
      events.emit(events.name("sampler"), shown ? recent.front().counts : ev::queue_sample{});
    }
    co_await sim::sleep_for(interval);
  }
}

}  // namespace twice
