#pragma once
// The job queue's health as an on-call watches it: the alarms a team sets
// on CloudWatch's queue metrics (ApproximateAgeOfOldestMessage,
// ApproximateNumberOfMessagesVisible), and the worst the sampler saw of each
// over a run. The sampler's queue_sample records carry both figures every
// [trace] sample_interval; backlog_within_bound holds the samples to the
// alarms.

#include <cstdint>
#include <optional>

#include <twice/events/trace_events.hpp>
#include <twice/sim/time.hpp>

namespace twice {

struct queue_alarms {
  std::optional<sim::duration> oldest_message_age;  // unset: no alarm on the age
  std::optional<std::uint64_t> backlog;             // visible messages; unset: no alarm
  bool any() const { return oldest_message_age || backlog; }
  friend bool operator==(const queue_alarms&, const queue_alarms&) = default;
};

// The worst samples of a run: the most visible messages and the oldest
// message's greatest age, each with the first time it was seen.
struct queue_peaks {
  std::uint64_t samples = 0;
  std::int64_t backlog = 0;
  sim::instant backlog_at;
  sim::duration oldest_age;
  sim::instant oldest_age_at;

  void note(sim::instant at, const ev::queue_sample& q) {
    ++samples;
    if (q.visible > backlog) {
      backlog = q.visible;
      backlog_at = at;
    }
    if (oldest_age < q.oldest_age) {
      oldest_age = q.oldest_age;
      oldest_age_at = at;
    }
  }
};

}  // namespace twice
