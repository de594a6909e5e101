#pragma once
// A job's `sidekiq_retry_in` block, as a table from the kind of failure the
// job raised to what the block returns (sidekiq/sidekiq v8.1.7,
// lib/sidekiq/job_retry.rb, commit 1bb4aa06e5aa):
//   * delay_for (lines 219-248) calls the block with (count, exception, msg);
//     an Integer above 0 replaces the schedule's `(count**4) + 15` (line 238)
//     as the delay, :discard and :kill re-route the job, and anything else
//     (nil, 0, :default, a block that raises, lines 232-235) falls back to
//     the schedule;
//   * process_retry (lines 190-207) adds the jitter `rand(10 * (count + 1))`
//     to whichever delay, the block's too;
//   * :discard (lines 192-195) stamps discarded_at and runs only the death
//     handlers: no sidekiq_retries_exhausted block, no dead set;
//   * :kill (lines 196-197) is retries_exhausted (lines 250-273): the
//     sidekiq_retries_exhausted block, then the dead set (or discarded with
//     `dead: false`), then the death handlers.
// The block is only asked while retries are left: process_retry checks
// exhaustion (by retry_for, or by count) first (lines 181-188).

#include <array>
#include <cstdint>
#include <string_view>

#include <twice/sim/time.hpp>

namespace twice {

// The failures a job of the simulator raises, by what its call answered.
enum class sidekiq_failure : std::uint8_t {
  unavailable,     // a 503 (the vendor's outage, overload, an open breaker)
  rate_limited,    // a 429
  internal_error,  // a 500 or another 5xx
  timeout,         // no answer before the client's timeout (or the execution timeout)
  conflict,        // a 409 (Stripe's idempotency_key_in_use)
  bad_request,     // a 400 or another 4xx: raised only with discipline.retry_non_retryable
};
inline constexpr std::size_t sidekiq_failure_count = 6;
inline constexpr std::array<std::string_view, sidekiq_failure_count> sidekiq_failure_names = {
    "unavailable", "rate_limited", "internal_error", "timeout", "conflict", "bad_request"};

// What the block returns for a failure kind.
enum class retry_in_action : std::uint8_t {
  schedule,  // nil or :default: Sidekiq's schedule
  delay,     // an Integer of seconds (retry_in_choice::delay)
  discard,   // :discard
  kill,      // :kill
};

struct retry_in_choice {
  retry_in_action action = retry_in_action::schedule;
  sim::duration delay = sim::duration::zero();  // whole seconds, with action delay
  friend bool operator==(const retry_in_choice&, const retry_in_choice&) = default;
};

using sidekiq_retry_in = std::array<retry_in_choice, sidekiq_failure_count>;

constexpr bool overrides_schedule(const sidekiq_retry_in& block) {
  for (const retry_in_choice& c : block)
    if (c.action != retry_in_action::schedule) return true;
  return false;
}

// The kind of a failed call by its HTTP status (0: no answer).
constexpr sidekiq_failure sidekiq_failure_of(int status) {
  if (status == 0) return sidekiq_failure::timeout;
  if (status == 503) return sidekiq_failure::unavailable;
  if (status == 429) return sidekiq_failure::rate_limited;
  if (status == 409) return sidekiq_failure::conflict;
  if (status >= 500) return sidekiq_failure::internal_error;
  return sidekiq_failure::bad_request;
}

// The failures a later attempt may get past: every kind but bad_request.
constexpr bool is_transient(sidekiq_failure f) { return f != sidekiq_failure::bad_request; }

}  // namespace twice
