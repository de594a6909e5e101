#pragma once
// One Kafka topic: partitions, each an append-only log of records numbered
// by offset. The producer keys each record by its job id, and the default
// partitioner puts it in partition toPositive(murmur2(key)) % partitions
// (apache/kafka, clients/.../producer/internals/BuiltInPartitioner.java,
// partitionForKey; Utils.murmur2), so a job's records always land in the
// same partition, in the order sent. Nothing is removed when a record is
// read: what a consumer group has read is its committed offsets
// (broker/consumer_group.hpp).
//
// Not modelled: retention (log.retention.hours, 7 days by default: records
// stay for the whole run here), producer batching and acks, replication and
// leader elections (a produce is durable at once), and transactions.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/condition.hpp>
#include <twice/sim/kernel.hpp>

#include "broker/queue.hpp"

namespace twice {

// Kafka's Utils.murmur2 (32-bit MurmurHash2, seed 0x9747b28c), as the Java
// client computes it over the key's bytes.
std::int32_t kafka_murmur2(std::string_view key);
// The partition the Java producer's default partitioner picks for `key`.
std::uint32_t kafka_partition_for(std::string_view key, std::uint32_t partitions);

struct kafka_record {
  message_id id = 0;  // unique across the world's queues and topics
  // The job id (also the key). Its name id is looked up where an event
  // names it (produce, fetch), not kept: a record stays in the log after
  // its job has ended, and a name kept here would have to live as long.
  std::string body;
  sim::instant sent_at;
  std::uint32_t deliveries = 0;  // polls of the group that handed it out (for the trace)
};

class kafka_topic {
 public:
  kafka_topic(sim::kernel& k, event_log& events, queue_id_source& ids, std::string name, std::uint32_t partitions);
  kafka_topic(const kafka_topic&) = delete;
  kafka_topic& operator=(const kafka_topic&) = delete;

  struct placed {
    message_id id = 0;
    std::uint32_t partition = 0;
    std::int64_t offset = 0;
  };
  // The producer's send, keyed by the body.
  placed produce(std::string body);

  std::uint32_t partitions() const { return static_cast<std::uint32_t>(logs_.size()); }
  // The offset the next record of `partition` will take (its log end offset).
  std::int64_t end_offset(std::uint32_t partition) const;
  kafka_record& at(std::uint32_t partition, std::int64_t offset);
  const kafka_record& at(std::uint32_t partition, std::int64_t offset) const;
  std::size_t records() const;
  // Notified on every append (a consumer's poll waits on it). Not owned.
  void set_watcher(sim::condition* watcher) { watcher_ = watcher; }
  std::uint64_t footprint() const;
  // "topic/<name>".
  const std::string& actor() const { return actor_; }

 private:
  sim::kernel& kernel_;
  event_log& events_;
  queue_id_source& ids_;
  std::string actor_;
  ev::name_id actor_name_ = 0;
  std::vector<std::vector<kafka_record>> logs_;  // by partition, by offset
  sim::condition* watcher_ = nullptr;
};

}  // namespace twice
