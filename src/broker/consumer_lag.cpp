#include "broker/consumer_lag.hpp"

#include <algorithm>

#include <twice/sim/check.hpp>

namespace twice {

consumer_lag lag_of(const kafka_topic& topic, const consumer_group& group, sim::instant now) {
  TWICE_CHECK(topic.partitions() == group.config().partitions);
  consumer_lag lag;
  for (std::uint32_t p = 0; p < topic.partitions(); ++p) {
    const std::int64_t end = topic.end_offset(p);
    const std::optional<std::int64_t> committed = group.committed(p);
    const std::optional<consumer_group::read_position> read = group.position(p);
    // The first record the group still owes.
    const std::int64_t owed = committed ? *committed : read ? read->start : 0;
    const std::int64_t fetched_to = std::clamp(read ? read->next : owed, owed, end);
    lag.unfetched += end - fetched_to;
    lag.fetched_uncommitted += fetched_to - owed;
    if (owed < end) lag.oldest_uncommitted_age = std::max(lag.oldest_uncommitted_age, now - topic.at(p, owed).sent_at);
  }
  return lag;
}

}  // namespace twice
