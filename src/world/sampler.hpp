#pragma once
// Samples the broker's counters into the trace at a fixed interval, so
// reports can plot queue depth, in-flight messages, the dead-letter depth
// and the age of the oldest message over time.

#include <vector>

#include "broker/queue.hpp"
#include "events/event_log.hpp"
#include "sim/kernel.hpp"
#include "sim/task.hpp"
#include "sim/trace.hpp"

namespace twice {

// `jobs`: the job queues (one per tenant, or one), summed as a dashboard
// sums them: messages added up, the oldest message the oldest of any.
// `lag` above zero: each sample shows the counts of the last one taken at
// least `lag` earlier (before there is one, the queue as created: empty).
sim::task<void> sample_queues(const sim::kernel& clock, event_log& events, std::vector<const queue*> jobs, const queue* dead_letters,
                              sim::duration interval, sim::duration lag = sim::duration::zero());

}  // namespace twice
