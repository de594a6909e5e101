#include "world/sampler.hpp"

#include "sim/sleep.hpp"

namespace twice {

namespace {
std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }
}  // namespace

sim::task<void> sample_queues(event_log& events, const queue& jobs, const queue* dead_letters, sim::duration interval) {
  TWICE_CHECK(interval > sim::duration::zero());
  while (true) {
    const queue_stats q = jobs.stats();
    const std::size_t dlq = dead_letters != nullptr ? dead_letters->size() : 0;
    events.emit(events.name("sampler"),
                ev::queue_sample{count(q.visible), count(q.delayed), count(q.in_flight), count(dlq), q.oldest_age});
    co_await sim::sleep_for(interval);
  }
}

}  // namespace twice
