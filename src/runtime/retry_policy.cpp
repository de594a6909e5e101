#include <twice/runtime/retry_policy.hpp>

#include <fmt/format.h>

#include <algorithm>

#include <twice/sim/check.hpp>
#include <twice/sim/distributions.hpp>
#include "sim/duration_text.hpp"

namespace twice {

std::string_view to_string(jitter_kind k) {
  switch (k) {
    case jitter_kind::none:
      return "none";
    case jitter_kind::full:
      return "full";
    case jitter_kind::equal:
      return "equal";
    case jitter_kind::decorrelated:
      return "decorrelated";
    case jitter_kind::sidekiq:
      return "sidekiq";
  }
  return "unknown";
}

std::optional<jitter_kind> parse_jitter_kind(std::string_view text) {
  for (jitter_kind k :
       {jitter_kind::none, jitter_kind::full, jitter_kind::equal, jitter_kind::decorrelated, jitter_kind::sidekiq})
    if (to_string(k) == text) return k;
  return std::nullopt;
}

namespace {

// Sidekiq's delay before retry `n` without its jitter, and the most its
// jitter adds (rand(10 * (n + 1)) is 0 .. 10 * (n + 1) - 1 seconds), capped.
// Past n = 1000 the delay is beyond any cap (a year): no overflow.
std::int64_t sidekiq_base_s(std::uint32_t n) {
  const std::int64_t k = std::min<std::int64_t>(n, 1000);
  return k * k * k * k + 15;
}
std::int64_t sidekiq_jitter_span_s(std::uint32_t n) { return 10 * (std::min<std::int64_t>(n, 1000) + 1); }

}  // namespace

sim::duration sidekiq_jitter_max(std::uint32_t retry) {
  return sim::duration::from_s(sidekiq_jitter_span_s(retry) - 1);
}

std::uint32_t sidekiq_last_retry_within(sim::duration retry_for) {
  // Bounded: the waits grow as n^4, so n stays below 200 for any retry_for
  // up to Sidekiq's largest (1e9 s, job_util.rb line 18), and the loop
  // stops at 1000 whatever it is given.
  std::int64_t elapsed_s = 0;
  std::uint32_t n = 0;
  while (n < 1000) {
    const std::int64_t next = elapsed_s + sidekiq_base_s(n);  // when retry n + 1 could fail at the earliest
    if (sim::duration::from_s(next) > retry_for) break;
    elapsed_s = next;
    ++n;
  }
  return n;
}

sim::duration effective_cap(const retry_policy& policy) {
  if (policy.maximum_interval) return std::min(*policy.maximum_interval, uncapped_ceiling);
  // Sidekiq's schedule has no cap of its own, but its retries end: the
  // longest it waits is before its last retry (24^4 + 15 + 249 s, 3.8 days,
  // with 25 retries). Unlimited retries have no bound at all, unless
  // retry_for ends them: then the last retry it can reach sets the bound.
  if (policy.jitter == jitter_kind::sidekiq && policy.retry_for) {
    const std::uint32_t last = sidekiq_last_retry_within(*policy.retry_for);
    return std::min(uncapped_ceiling, sim::duration::from_s(sidekiq_base_s(last) + sidekiq_jitter_span_s(last) - 1));
  }
  if (policy.jitter == jitter_kind::sidekiq && policy.maximum_attempts >= 2) {
    const std::uint32_t last = policy.maximum_attempts - 2;
    return std::min(uncapped_ceiling, sim::duration::from_s(sidekiq_base_s(last) + sidekiq_jitter_span_s(last) - 1));
  }
  return uncapped_ceiling;
}

std::string describe_schedule(const retry_policy& policy) {
  if (policy.jitter == jitter_kind::sidekiq) {
    const std::string schedule = "Sidekiq's schedule (retry n waits n^4 + 15 s + rand(10(n+1)) s)";
    if (policy.maximum_interval) return schedule + ", cap " + sim::format_duration(effective_cap(policy));
    if (policy.retry_for)
      return schedule + ", retries for " + sim::format_duration(*policy.retry_for) +
             " after the first failure (retry_for), no cap: its last retry waits at most " +
             sim::format_duration(effective_cap(policy));
    if (effective_cap(policy) < uncapped_ceiling)
      return schedule + ", no cap: its last retry waits at most " + sim::format_duration(effective_cap(policy));
    return schedule + ", no cap and no last retry (retry.maximum_attempts unlimited)";
  }
  return fmt::format("initial {}, coefficient {}.{:03}, cap {}, jitter {}",
                     sim::format_duration(policy.initial_interval), policy.coefficient_milli / 1000,
                     policy.coefficient_milli % 1000,
                     policy.maximum_interval ? sim::format_duration(effective_cap(policy)) : std::string("NONE"),
                     to_string(policy.jitter));
}

sim::duration backoff_envelope(const retry_policy& policy, std::uint32_t retry) {
  if (policy.jitter == jitter_kind::sidekiq)
    return std::min(effective_cap(policy),
                    sim::duration::from_s(sidekiq_base_s(retry) + sidekiq_jitter_span_s(retry) - 1));
  TWICE_CHECK(policy.initial_interval >= sim::duration::zero());
  TWICE_CHECK(policy.coefficient_milli >= 1000);  // a shrinking backoff is not a backoff
  const std::int64_t cap_us = effective_cap(policy).us();
  std::int64_t us = std::min(policy.initial_interval.us(), cap_us);
  // Multiply step by step, stopping at the cap: at most `retry` steps, and
  // at most ~64 doublings before any value reaches the cap, so bounded.
  for (std::uint32_t i = 0; i < retry && us < cap_us; ++i) {
    __extension__ using u128 = unsigned __int128;
    const u128 next = static_cast<u128>(us) * policy.coefficient_milli / 1000;
    if (next >= static_cast<u128>(cap_us)) return sim::duration::from_us(cap_us);
    if (static_cast<std::int64_t>(next) == us) break;  // coefficient 1.0 (or a tiny base): flat
    us = static_cast<std::int64_t>(next);
  }
  return sim::duration::from_us(us);
}

sim::duration backoff::sidekiq_jitter(std::uint32_t retry) {
  return sim::duration::from_s(sim::uniform_int(rng_, 0, sidekiq_jitter_span_s(retry) - 1));
}

backoff::backoff(retry_policy policy, sim::random_stream rng)
    : policy_(policy), rng_(rng), previous_(policy.initial_interval) {}

sim::duration backoff::next_delay(std::uint32_t retry, sim::duration retry_after) {
  const sim::duration cap = effective_cap(policy_);
  const sim::duration expo = backoff_envelope(policy_, retry);
  sim::duration delay;
  switch (policy_.jitter) {
    case jitter_kind::none:
      delay = expo;
      break;
    case jitter_kind::full:
      delay = sim::uniform_duration(rng_, sim::duration::zero(), expo);
      break;
    case jitter_kind::equal:
      delay = expo / 2 + sim::uniform_duration(rng_, sim::duration::zero(), expo / 2);
      break;
    case jitter_kind::decorrelated: {
      const sim::duration base = std::min(policy_.initial_interval, cap);
      // prev * 3, saturated: prev never exceeds the cap, which is at most a year.
      const sim::duration hi = std::max(base, previous_ * 3);
      delay = std::min(cap, sim::uniform_duration(rng_, base, hi));
      previous_ = delay;
      break;
    }
    case jitter_kind::sidekiq: {
      // Whole seconds, as Ruby's rand(Integer) draws them.
      const std::int64_t jitter_s = sim::uniform_int(rng_, 0, sidekiq_jitter_span_s(retry) - 1);
      delay = std::min(cap, sim::duration::from_s(sidekiq_base_s(retry) + jitter_s));
      break;
    }
  }
  TWICE_CHECK(delay >= sim::duration::zero());
  TWICE_CHECK(delay <= cap);
  // A server's Retry-After is a floor even above our cap: retrying sooner
  // only earns another 429.
  return std::max(delay, retry_after);
}

}  // namespace twice
