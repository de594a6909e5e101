#include "world/sampler.hpp"

#include "sim/sleep.hpp"

namespace twice {

namespace {
std::int64_t count(std::size_t n) { return static_cast<std::int64_t>(n); }
}  // namespace

sim::task<void> sample_queues(sim::kernel& k, sim::trace_recorder& trace, const queue& jobs, const queue* dead_letters,
                              sim::duration interval) {
  TWICE_CHECK(interval > sim::duration::zero());
  while (true) {
    const queue_stats q = jobs.stats();
    const std::size_t dlq = dead_letters != nullptr ? dead_letters->size() : 0;
    trace.record(k.now(), "sampler", "queue_sample",
                 {{"visible", count(q.visible)},
                  {"delayed", count(q.delayed)},
                  {"in_flight", count(q.in_flight)},
                  {"dead_letters", count(dlq)},
                  {"oldest_age_us", q.oldest_age.us()}});
    co_await sim::sleep_for(interval);
  }
}

}  // namespace twice
