#pragma once
// Samples the broker's counters into the trace at a fixed interval, so
// reports can plot queue depth, in-flight messages, the dead-letter depth
// and the age of the oldest message over time, and [alarms] can judge them.

#include <functional>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>

#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"
#include "broker/queue.hpp"

namespace twice {

// The counts of one sample, as they are now.
using sample_source = std::function<ev::queue_sample()>;

// `jobs`: the job queues (one per tenant, or one), summed as a dashboard
// sums them: messages added up, the oldest message the oldest of any.
sample_source queue_counts(std::vector<const queue*> jobs, const queue* dead_letters);

// A Kafka topic read by a consumer group, as its consumer lag
// (broker/consumer_lag.hpp): visible, the records the group has not
// fetched; in flight, the records it fetched and has not committed (their
// sum is kafka-consumer-groups.sh's LAG); delayed, none (a topic delays
// nothing); the oldest age, the oldest uncommitted record's; dead letters,
// the dead-letter topic's records, if there is one.
sample_source consumer_lag_counts(const sim::kernel& clock, const kafka_topic& topic, const consumer_group& group,
                                  const queue* dead_letters);

// Emits a queue_sample of `counts` every `interval`, from now on.
// `lag` above zero: each sample shows the counts of the last one taken at
// least `lag` earlier (before there is one, the queue as created: empty).
sim::task<void> sample_every(const sim::kernel& clock, event_log& events, sample_source counts, sim::duration interval,
                             sim::duration lag = sim::duration::zero());

}  // namespace twice
