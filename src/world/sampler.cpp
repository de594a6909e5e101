#include "world/sampler.hpp"

#include <algorithm>
#include <deque>

#include "sim/sleep.hpp"

namespace twice {

namespace {
std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }
}  // namespace

sim::task<void> sample_queues(const sim::kernel& clock, event_log& events, std::vector<const queue*> jobs,
                              const queue* dead_letters, sim::duration interval, sim::duration lag) {
  TWICE_CHECK(interval > sim::duration::zero());
  TWICE_CHECK(!jobs.empty());
  struct taken {
    sim::instant at;
    ev::queue_sample counts;
  };
  std::deque<taken> recent;  // with a lag: the exact samples of the last `lag`, oldest first
  while (true) {
    std::size_t visible = 0, delayed = 0, in_flight = 0;
    sim::duration oldest = sim::duration::zero();
    for (const queue* j : jobs) {
      const queue_stats q = j->stats();
      visible += q.visible;
      delayed += q.delayed;
      in_flight += q.in_flight;
      oldest = std::max(oldest, q.oldest_age);
    }
    const std::size_t dlq = dead_letters != nullptr ? dead_letters->size() : 0;
    const ev::queue_sample exact{count(visible), count(delayed), count(in_flight), count(dlq), oldest};
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
