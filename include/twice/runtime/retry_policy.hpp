#pragma once
// Retry policy in Temporal's vocabulary (initial interval, backoff
// coefficient, maximum interval, maximum attempts, non-retryable error
// types) with the jitter variants from Marc Brooker's "Exponential Backoff
// and Jitter" (AWS Architecture Blog, 2015):
//
//   expo(n)       = min(cap, base * coefficient^n)       n = retries so far
//   none          = expo(n)
//   full          = uniform(0, expo(n))
//   equal         = expo(n)/2 + uniform(0, expo(n)/2)
//   decorrelated  = min(cap, uniform(base, prev * 3))    prev starts at base
//   sidekiq       = min(cap, n^4 + 15 + rand(10 * (n + 1))) seconds: Sidekiq's
//                   own schedule, base and jitter in one (sidekiq/sidekiq
//                   v8.1.7, lib/sidekiq/job_retry.rb: `(count**4) + 15` and
//                   `rand(10 * (count + 1))`, count 0 for the first retry);
//                   initial interval and coefficient are not used
//
// Temporal's defaults: initial interval 1 s, coefficient 2.0, maximum
// interval 100 x the initial interval, unlimited attempts. Ours differ only
// in that maximum attempts defaults to 5 (a simulated job must end), and the
// coefficient is held as an exact ratio in thousandths (2000 = 2.0) so the
// envelope is integer arithmetic with no rounding differences anywhere.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice {

enum class jitter_kind : std::uint8_t { none, full, equal, decorrelated, sidekiq };
std::string_view to_string(jitter_kind);
std::optional<jitter_kind> parse_jitter_kind(std::string_view);

struct retry_policy {
  sim::duration initial_interval = sim::duration::from_s(1);
  std::uint32_t coefficient_milli = 2000;  // 2.0
  // The cap. Unset: no cap at all (the anti-pattern); the envelope then
  // saturates at uncapped_ceiling so arithmetic cannot overflow.
  std::optional<sim::duration> maximum_interval = sim::duration::from_s(100);
  std::uint32_t maximum_attempts = 5;  // attempts in all, the first included; 0 = unlimited
  jitter_kind jitter = jitter_kind::full;
  // Sidekiq's retry_for (jitter sidekiq only): retries end once this long
  // has passed since the job's first failure, whatever their count
  // (maximum_attempts is then 0: job_retry.rb lines 181-188 ignore the count).
  std::optional<sim::duration> retry_for{};
};

inline constexpr sim::duration uncapped_ceiling = sim::duration::from_s(365LL * 24 * 3600);

// The cap actually in force (the ceiling when the policy has none).
sim::duration effective_cap(const retry_policy& policy);

// The schedule in the words the run's header and the backoff lines share:
// "initial 1s, coefficient 2.000, cap 30s, jitter full" ("cap NONE" without
// one); Sidekiq's own, whose initial interval and coefficient are not used:
// "Sidekiq's schedule (...), no cap: its last retry waits at most 3d20h14m"
// (or "cap 30s" when retry.maximum_interval sets one).
std::string describe_schedule(const retry_policy& policy);

// expo(n): the envelope before jitter for the n-th retry (n = 0 for the
// first retry). Non-decreasing in n and never above effective_cap.
sim::duration backoff_envelope(const retry_policy& policy, std::uint32_t retry);

// The most Sidekiq's jitter adds to retry `retry`: 10 * (retry + 1) - 1 s.
sim::duration sidekiq_jitter_max(std::uint32_t retry);

// With retry.retry_for: the last retry Sidekiq's schedule can reach, the
// first failure at 0 and each retry failing at once after its shortest wait
// (n^4 + 15 s): retry n starts no earlier than the sum of the waits before
// it, and a failure later than retry_for after the first is not retried.
std::uint32_t sidekiq_last_retry_within(sim::duration retry_for);

// Draws backoff delays for one worker: each worker owns one, seeded from its
// own named stream, so workers that fail together do not retry together.
class backoff {
 public:
  backoff(retry_policy policy, sim::random_stream rng);

  // The delay before retry number `retry` (0-based). `retry_after`, when a
  // server asked for one (HTTP 429), is a floor: we never retry sooner.
  sim::duration next_delay(std::uint32_t retry, sim::duration retry_after = sim::duration::zero());
  // Sidekiq's jitter alone, rand(10 * (retry + 1)) whole seconds: what
  // process_retry adds to a delay the job's sidekiq_retry_in chose
  // (job_retry.rb lines 202-203).
  sim::duration sidekiq_jitter(std::uint32_t retry);
  // Forget the decorrelated-jitter state (a new job starts from base).
  void reset() { previous_ = policy_.initial_interval; }
  const retry_policy& policy() const { return policy_; }

 private:
  retry_policy policy_;
  sim::random_stream rng_;
  sim::duration previous_;
};

}  // namespace twice
