#include "runtime/pubsub_ack_deadline.hpp"

#include <algorithm>

namespace twice {

namespace {
// histogram.py MIN_ACK_DEADLINE / MAX_ACK_DEADLINE; streaming_pull_manager.py
// _MIN_ACK_DEADLINE_SECS_WHEN_EXACTLY_ONCE_ENABLED.
constexpr std::int64_t min_deadline_s = 10;
constexpr std::int64_t max_deadline_s = 600;
constexpr std::int64_t exactly_once_min_s = 60;
}  // namespace

pubsub_ack_deadline::pubsub_ack_deadline(bool exactly_once)
    : exactly_once_(exactly_once), deadline_s_(exactly_once ? exactly_once_min_s : min_deadline_s) {}

sim::duration pubsub_ack_deadline::current() const { return sim::duration::from_s(deadline_s_); }

sim::duration pubsub_ack_deadline::update() {
  const std::uint64_t target = std::min(size_at_update_ * 2, size_at_update_ + 100);
  if (size_ > target) {
    size_at_update_ = size_;
    deadline_s_ = percentile_99_s();
  }
  if (exactly_once_) deadline_s_ = std::max(deadline_s_, exactly_once_min_s);
  return current();
}

void pubsub_ack_deadline::record_ack(sim::duration time_to_ack) {
  // math.ceil of the seconds, then clamped as Histogram.add does.
  const std::int64_t us = std::max<std::int64_t>(time_to_ack.us(), 0);
  const std::int64_t seconds = (us + 999'999) / 1'000'000;
  ++acks_by_seconds_[std::clamp(seconds, min_deadline_s, max_deadline_s)];
  ++size_;
}

// Histogram.percentile(99): target = len - len * 0.99, less each value's
// count from the largest down, the first value that takes it below zero.
// In integers: the first value v (descending) with 100 * count(>= v) > len.
std::int64_t pubsub_ack_deadline::percentile_99_s() const {
  std::uint64_t at_or_above = 0;
  for (auto it = acks_by_seconds_.rbegin(); it != acks_by_seconds_.rend(); ++it) {
    at_or_above += it->second;
    if (100 * at_or_above > size_) return it->first;
  }
  return min_deadline_s;
}

}  // namespace twice
