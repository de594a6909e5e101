// Backoff: the envelope grows by the coefficient up to the cap, each jitter
// kind stays inside Brooker's bounds, and workers with their own streams do
// not retry in lockstep.

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include <twice/runtime/retry_policy.hpp>
#include <twice/sim/random.hpp>

using namespace twice;
using sim::duration;

namespace {
retry_policy policy_with(jitter_kind j) {
  retry_policy p;
  p.initial_interval = duration::from_ms(100);
  p.maximum_interval = duration::from_s(5);
  p.jitter = j;
  return p;
}
}  // namespace

TEST_CASE("the envelope doubles from the initial interval and stops at the cap", "[retry]") {
  const retry_policy p = policy_with(jitter_kind::none);
  std::vector<std::int64_t> ms;
  for (std::uint32_t n = 0; n < 10; ++n) ms.push_back(backoff_envelope(p, n).us() / 1000);
  CHECK(ms == std::vector<std::int64_t>{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000});
  CHECK(backoff_envelope(p, 4'000'000'000u) == duration::from_s(5));
}

TEST_CASE("a fractional coefficient is exact integer arithmetic", "[retry]") {
  retry_policy p = policy_with(jitter_kind::none);
  p.coefficient_milli = 1500;
  CHECK(backoff_envelope(p, 1) == duration::from_ms(150));
  CHECK(backoff_envelope(p, 2) == duration::from_ms(225));
  CHECK(backoff_envelope(p, 3) == duration::from_us(337'500));
}

TEST_CASE("without a cap the envelope saturates instead of overflowing", "[retry]") {
  retry_policy p = policy_with(jitter_kind::none);
  p.maximum_interval.reset();
  CHECK(backoff_envelope(p, 20) == duration::from_ms(100) * (1 << 20));
  CHECK(backoff_envelope(p, 200) == uncapped_ceiling);
  CHECK(effective_cap(p) == uncapped_ceiling);
}

TEST_CASE("each jitter kind stays inside its bounds and under the cap", "[retry]") {
  for (jitter_kind j : {jitter_kind::none, jitter_kind::full, jitter_kind::equal, jitter_kind::decorrelated}) {
    INFO(to_string(j));
    const retry_policy p = policy_with(j);
    backoff b(p, sim::random_root(7).stream("worker/0/backoff"));
    for (std::uint32_t n = 0; n < 200; ++n) {
      const duration expo = backoff_envelope(p, n % 12);
      const duration d = b.next_delay(n % 12);
      CHECK(d <= duration::from_s(5));
      switch (j) {
        case jitter_kind::none:
          CHECK(d == expo);
          break;
        case jitter_kind::full:
          CHECK(d >= duration::zero());
          CHECK(d <= expo);
          break;
        case jitter_kind::equal:
          CHECK(d >= expo / 2);
          CHECK(d <= expo);
          break;
        case jitter_kind::decorrelated:
          CHECK(d >= p.initial_interval);
          break;
        case jitter_kind::sidekiq:
          FAIL("not in this loop: the next test");
          break;
      }
    }
  }
}

TEST_CASE("Sidekiq's schedule: n^4 + 15 s plus rand(10 * (n + 1)) s, bounded by its last retry", "[retry][sidekiq]") {
  retry_policy p;
  p.jitter = jitter_kind::sidekiq;
  p.maximum_interval.reset();
  p.maximum_attempts = 26;  // Sidekiq's 25 retries
  backoff b(p, sim::random_root(7).stream("worker/0/backoff"));
  for (std::uint32_t n = 0; n < 25; ++n) {
    const std::int64_t base = std::int64_t{n} * n * n * n + 15;
    const std::int64_t span = 10 * (std::int64_t{n} + 1);
    std::int64_t low = base + span, high = base - 1;  // the draws seen, over many tries
    for (int i = 0; i < 400; ++i) {
      const duration d = b.next_delay(n);
      CHECK(d.us() % 1'000'000 == 0);  // whole seconds, as Ruby's rand(Integer)
      low = std::min(low, d.us() / 1'000'000);
      high = std::max(high, d.us() / 1'000'000);
    }
    CHECK(low == base);              // rand(k) reaches 0 ...
    CHECK(high == base + span - 1);  // ... and k - 1
    CHECK(backoff_envelope(p, n) == duration::from_s(base + span - 1));
  }
  // The first retry 15..24 s after the failure; the 25th about 3.8 days.
  CHECK(backoff_envelope(p, 0) == duration::from_s(24));
  CHECK(effective_cap(p) == duration::from_s(24LL * 24 * 24 * 24 + 15 + 249));
  p.maximum_attempts = 0;  // retried forever: no bound at all
  CHECK(effective_cap(p) == uncapped_ceiling);
  p.maximum_interval = duration::from_s(3600);  // a cap of one's own still applies
  CHECK(backoff_envelope(p, 24) == duration::from_s(3600));
  CHECK(parse_jitter_kind("sidekiq") == jitter_kind::sidekiq);
}

TEST_CASE("decorrelated jitter grows from its previous delay", "[retry]") {
  const retry_policy p = policy_with(jitter_kind::decorrelated);
  backoff b(p, sim::random_root(1).stream("w"));
  duration prev = p.initial_interval;
  for (int i = 0; i < 50; ++i) {
    const duration d = b.next_delay(0);
    CHECK(d <= std::min(prev * 3, duration::from_s(5)));
    prev = d;
  }
  b.reset();
  CHECK(b.next_delay(0) <= duration::from_ms(300));
}

// The bounds above also hold for a backoff that forgets its previous delay
// and draws from [base, base * 3] every time; only climbing tells them apart.
TEST_CASE("decorrelated jitter climbs past three times its base, and is pinned for a seed", "[retry]") {
  const retry_policy p = policy_with(jitter_kind::decorrelated);
  backoff b(p, sim::random_root(42).stream("worker/0/backoff"));
  std::vector<std::int64_t> us;
  for (std::uint32_t n = 0; n < 8; ++n) us.push_back(b.next_delay(n).us());
  CHECK(*std::max_element(us.begin(), us.end()) > 3 * p.initial_interval.us());
  CHECK(us == std::vector<std::int64_t>{293723, 256438, 175762, 365178, 339252, 469953, 1157130, 1967385});
}

TEST_CASE("two workers' jittered delays differ; the same stream repeats exactly", "[retry]") {
  const retry_policy p = policy_with(jitter_kind::full);
  const sim::random_root root(2026);
  backoff a(p, root.stream("worker/0/backoff"));
  backoff b(p, root.stream("worker/1/backoff"));
  backoff a_again(p, root.stream("worker/0/backoff"));
  int differing = 0;
  for (std::uint32_t n = 0; n < 8; ++n) {
    const duration da = a.next_delay(n);
    differing += da != b.next_delay(n);
    CHECK(da == a_again.next_delay(n));
  }
  CHECK(differing >= 7);
}

TEST_CASE("pinned delays for a fixed seed", "[retry]") {
  // A change to the stream derivation or the jitter formulas shows here.
  backoff b(policy_with(jitter_kind::full), sim::random_root(42).stream("worker/0/backoff"));
  std::vector<std::int64_t> us;
  for (std::uint32_t n = 0; n < 4; ++n) us.push_back(b.next_delay(n).us());
  CHECK(us == std::vector<std::int64_t>{96862, 40052, 45278, 496487});
}

TEST_CASE("Retry-After is a floor, even above the cap", "[retry]") {
  backoff b(policy_with(jitter_kind::none), sim::random_root(3).stream("w"));
  CHECK(b.next_delay(0, duration::from_s(2)) == duration::from_s(2));
  CHECK(b.next_delay(0, duration::from_s(60)) == duration::from_s(60));
  CHECK(b.next_delay(3, duration::from_ms(1)) == duration::from_ms(800));
}

TEST_CASE("jitter kinds have names", "[retry]") {
  CHECK(parse_jitter_kind("decorrelated") == jitter_kind::decorrelated);
  CHECK(parse_jitter_kind("Full") == std::nullopt);
  CHECK(to_string(jitter_kind::equal) == "equal");
}

// The largest policy the loader accepts: coefficient 100, 10000 attempts, a
// base of 8760h and no cap. Every retry's envelope and delay stays at the
// one-year ceiling, for every jitter kind, with no overflow on the way.
TEST_CASE("the largest valid policy saturates at a year on every retry", "[retry]") {
  for (jitter_kind j : {jitter_kind::none, jitter_kind::full, jitter_kind::equal, jitter_kind::decorrelated}) {
    INFO(to_string(j));
    retry_policy p;
    p.initial_interval = duration::from_s(8760LL * 3600);
    p.coefficient_milli = 100'000;
    p.maximum_interval.reset();
    p.maximum_attempts = 10'000;
    p.jitter = j;
    backoff b(p, sim::random_root(3).stream("worker/0/backoff"));
    for (std::uint32_t n = 0; n < p.maximum_attempts; ++n) {
      CHECK(backoff_envelope(p, n) == uncapped_ceiling);
      const duration d = b.next_delay(n, duration::from_s(24 * 3600));  // the largest Retry-After too
      CHECK(d >= duration::zero());
      CHECK(d <= uncapped_ceiling);
    }
    CHECK(backoff_envelope(p, 4'000'000'000u) == uncapped_ceiling);
  }
}

TEST_CASE("from the smallest base, the uncapped envelope climbs to the ceiling and stays", "[retry]") {
  retry_policy p;
  p.initial_interval = duration::from_us(1);
  p.coefficient_milli = 100'000;
  p.maximum_interval.reset();
  p.jitter = jitter_kind::none;
  std::vector<std::int64_t> us;
  for (std::uint32_t n = 0; n < 10; ++n) us.push_back(backoff_envelope(p, n).us());
  CHECK(us == std::vector<std::int64_t>{1, 100, 10'000, 1'000'000, 100'000'000, 10'000'000'000, 1'000'000'000'000,
                                        uncapped_ceiling.us(), uncapped_ceiling.us(), uncapped_ceiling.us()});
  CHECK(backoff_envelope(p, 9'999) == uncapped_ceiling);
}
