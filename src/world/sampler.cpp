#include "world/sampler.hpp"

#include <algorithm>

#include "sim/sleep.hpp"

namespace twice {

namespace {
std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }
}  // namespace

sim::task<void> sample_queues(event_log& events, std::vector<const queue*> jobs, const queue* dead_letters,
                              sim::duration interval) {
  TWICE_CHECK(interval > sim::duration::zero());
  TWICE_CHECK(!jobs.empty());
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
    events.emit(events.name("sampler"),
                ev::queue_sample{count(visible), count(delayed), count(in_flight), count(dlq), oldest});
    co_await sim::sleep_for(interval);
  }
}

}  // namespace twice
