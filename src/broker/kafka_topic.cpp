#include "broker/kafka_topic.hpp"

#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

// apache/kafka clients/src/main/java/org/apache/kafka/common/utils/Utils.java,
// murmur2(byte[]): the same arithmetic on 32-bit unsigned words, where Java
// wraps its signed ints.
std::int32_t kafka_murmur2(std::string_view key) {
  const std::uint32_t length = static_cast<std::uint32_t>(key.size());
  const std::uint32_t seed = 0x9747b28cU;
  const std::uint32_t m = 0x5bd1e995U;
  const int r = 24;
  std::uint32_t h = seed ^ length;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(key[i])); };
  const std::size_t length4 = length / 4;
  for (std::size_t i = 0; i < length4; ++i) {
    const std::size_t i4 = i * 4;
    std::uint32_t k = byte(i4) + (byte(i4 + 1) << 8) + (byte(i4 + 2) << 16) + (byte(i4 + 3) << 24);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  const std::size_t tail = length & ~3U;
  switch (length % 4) {
    case 3:
      h ^= byte(tail + 2) << 16;
      [[fallthrough]];
    case 2:
      h ^= byte(tail + 1) << 8;
      [[fallthrough]];
    case 1:
      h ^= byte(tail);
      h *= m;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<std::int32_t>(h);
}

// Utils.toPositive(murmur2(keyBytes)) % numPartitions.
std::uint32_t kafka_partition_for(std::string_view key, std::uint32_t partitions) {
  TWICE_CHECK(partitions > 0);
  const std::uint32_t positive = static_cast<std::uint32_t>(kafka_murmur2(key)) & 0x7fffffffU;
  return positive % partitions;
}

kafka_topic::kafka_topic(sim::kernel& k, event_log& events, queue_id_source& ids, std::string name,
                         std::uint32_t partitions)
    : kernel_(k), events_(events), ids_(ids), actor_("topic/" + name), logs_(partitions) {
  TWICE_CHECK(partitions > 0);
  actor_name_ = events_.name(actor_);
}

kafka_topic::placed kafka_topic::produce(std::string body) {
  const std::uint32_t partition = kafka_partition_for(body, partitions());
  std::vector<kafka_record>& log = logs_[partition];
  kafka_record rec;
  rec.id = ids_.next_message++;
  const ev::name_id body_name = events_.name(body);
  rec.body = std::move(body);
  rec.sent_at = kernel_.now();
  const placed at{rec.id, partition, static_cast<std::int64_t>(log.size())};
  events_.emit(actor_name_, ev::produced{rec.id, body_name, partition, at.offset});
  log.push_back(std::move(rec));
  if (watcher_ != nullptr) watcher_->notify_all();
  return at;
}

std::int64_t kafka_topic::end_offset(std::uint32_t partition) const {
  TWICE_CHECK(partition < logs_.size());
  return static_cast<std::int64_t>(logs_[partition].size());
}

kafka_record& kafka_topic::at(std::uint32_t partition, std::int64_t offset) {
  return const_cast<kafka_record&>(std::as_const(*this).at(partition, offset));
}

const kafka_record& kafka_topic::at(std::uint32_t partition, std::int64_t offset) const {
  TWICE_CHECK(partition < logs_.size() && offset >= 0 && offset < end_offset(partition));
  return logs_[partition][static_cast<std::size_t>(offset)];
}

std::size_t kafka_topic::records() const {
  std::size_t n = 0;
  for (const auto& log : logs_) n += log.size();
  return n;
}

std::uint64_t kafka_topic::footprint() const {
  std::uint64_t bytes = sim::footprint_of(logs_);
  for (const auto& log : logs_) {
    bytes += sim::footprint_of(log);
    for (const kafka_record& r : log) bytes += sim::footprint_of(r.body);
  }
  return bytes;
}

}  // namespace twice
