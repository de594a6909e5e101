#pragma once
// A consumer group's lag on its topic, as an on-call watches it. Kafka's
// consumer lag of a partition is its log end offset minus the group's
// committed offset (kafka-consumer-groups.sh --describe, column LAG:
// apache/kafka@94314bce7dca, tools/.../consumer/group/ConsumerGroupCommand.java,
// getLag: `end - offset0`, unknown without a committed offset). The
// consumer's own metric, records-lag, counts from its position instead: the
// log end offset minus the next offset it will fetch (clients/.../
// SubscriptionState.java, partitionLag, apache/kafka@77659aa6c501: the high
// watermark minus the position). Their difference is what the group
// has fetched and not committed. So the lag splits in two, summed over the
// partitions:
//
//  * unfetched: from the position of the partition's owner to the log end
//    (records-lag); with no owner in this generation yet, from the
//    committed offset: what a rebalance hands to the next owner.
//  * fetched, uncommitted: from the committed offset to that position:
//    records a member holds (running, waiting in its batch, or in the
//    hands of a member that died, until a rebalance hands its partitions on).
//
// Their sum is kafka-consumer-groups.sh's LAG. A partition with no committed
// offset counts from where its owner's reads began (auto.offset.reset: with
// "latest" the records before it are never read, and are no lag), or, before
// any owner, from the start of the log. The oldest uncommitted record is the
// one at that same first offset; its age is counted from its produce.

#include <cstdint>

#include <twice/sim/time.hpp>

#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"

namespace twice {

struct consumer_lag {
  std::int64_t unfetched = 0;
  std::int64_t fetched_uncommitted = 0;
  sim::duration oldest_uncommitted_age;  // zero when every record is committed
};

consumer_lag lag_of(const kafka_topic& topic, const consumer_group& group, sim::instant now);

}  // namespace twice
