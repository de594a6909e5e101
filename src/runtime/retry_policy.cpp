#include "runtime/retry_policy.hpp"

#include <algorithm>

#include "sim/check.hpp"
#include "sim/distributions.hpp"

namespace twice {

std::string_view to_string(jitter_kind k) {
  switch (k) {
    case jitter_kind::none: return "none";
    case jitter_kind::full: return "full";
    case jitter_kind::equal: return "equal";
    case jitter_kind::decorrelated: return "decorrelated";
  }
  return "unknown";
}

std::optional<jitter_kind> parse_jitter_kind(std::string_view text) {
  for (jitter_kind k : {jitter_kind::none, jitter_kind::full, jitter_kind::equal, jitter_kind::decorrelated})
    if (to_string(k) == text) return k;
  return std::nullopt;
}

sim::duration effective_cap(const retry_policy& policy) {
  return policy.maximum_interval ? std::min(*policy.maximum_interval, uncapped_ceiling) : uncapped_ceiling;
}

sim::duration backoff_envelope(const retry_policy& policy, std::uint32_t retry) {
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
  }
  TWICE_CHECK(delay >= sim::duration::zero());
  TWICE_CHECK(delay <= cap);
  // A server's Retry-After is a floor even above our cap: retrying sooner
  // only earns another 429.
  return std::max(delay, retry_after);
}

}  // namespace twice
