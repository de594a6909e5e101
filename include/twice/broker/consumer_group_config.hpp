#pragma once
// A Kafka consumer group's settings (broker/consumer_group.hpp), with the
// Java client's and the broker's defaults.

#include <cstdint>
#include <optional>
#include <string>

#include <twice/sim/time.hpp>

namespace twice {

struct consumer_group_config {
  std::string name = "jobs";  // group.id
  std::uint32_t partitions = 1;
  sim::duration session_timeout = sim::duration::from_s(45);     // session.timeout.ms (Kafka 3.0+)
  sim::duration heartbeat_interval = sim::duration::from_s(3);   // heartbeat.interval.ms
  sim::duration max_poll_interval = sim::duration::from_s(300);  // max.poll.interval.ms
  // JoinGroup's rebalance_timeout_ms, "the maximum time ... that the
  // coordinator will wait for each member to rejoin when rebalancing the
  // group" (apache/kafka JoinGroupRequest.json). The Java client and
  // librdkafka send max.poll.interval.ms (GroupRebalanceConfig.java L54-55):
  // unset, that. Clients that send their own: Sarama's
  // Consumer.Group.Rebalance.Timeout and kafkajs's rebalanceTimeout (60 s
  // both), Kafka Connect's rebalance.timeout.ms.
  std::optional<sim::duration> rebalance_timeout;
  sim::duration rebalance_deadline() const { return rebalance_timeout.value_or(max_poll_interval); }
  sim::duration initial_rebalance_delay = sim::duration::from_s(3);  // group.initial.rebalance.delay.ms
  friend bool operator==(const consumer_group_config&, const consumer_group_config&) = default;
};

}  // namespace twice
