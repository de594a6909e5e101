// Distributions: pinned known-answer vectors (a change that alters any draw
// must fail loudly here, since it changes every scenario's trace digest),
// exact edge cases, and statistical sanity checks with generous tolerances.
//
// Known answers are for random_root(42).stream("dist"). The integer samplers
// (uniform_below, uniform_int, bernoulli, uniform_duration) and
// uniform_real01 were cross-checked against an independent Python 3
// implementation. The floating-point ones were produced by this code (gcc and
// clang, -O0/-O2/-O3, identical) when it still called glibc's libm, and agree
// bit for bit with the same algorithm in Python on that libm; the in-house
// exp and log (sim/fp_math.hpp) that replaced it give the same bits for every
// one of them. Doubles are compared exactly: the decimal literals have 17
// significant digits and round-trip.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <twice/sim/distributions.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace ts = twice::sim;
using ts::duration;
using ts::random_stream;

namespace {

random_stream dist_stream() { return ts::random_root(42).stream("dist"); }

constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

// Sum of (observed - expected)^2 / expected over equally likely buckets.
double chi_square(const std::vector<int>& counts, double expected) {
  double chi2 = 0.0;
  for (int c : counts) {
    const double d = static_cast<double>(c) - expected;
    chi2 += d * d / expected;
  }
  return chi2;
}

}  // namespace

// ---------------------------------------------------------------- pinned

TEST_CASE("known answers: uniform_below", "[distributions]") {
  {
    random_stream s = dist_stream();
    CHECK(s.seed() == 0xaec861ab6a933b52ULL);
    CHECK(ts::uniform_below(s, 1000) == 712);
    CHECK(ts::uniform_below(s, 1000) == 17);
    CHECK(ts::uniform_below(s, 1000) == 292);
    CHECK(ts::uniform_below(s, 1000) == 419);
    CHECK(ts::uniform_below(s, 1000) == 369);
  }
  {
    random_stream s = dist_stream();
    CHECK(ts::uniform_below(s, u64_max) == 0xb653198e1f49c3e2ULL);
    CHECK(ts::uniform_below(s, u64_max) == 0x0487d83550ad4fd2ULL);
    CHECK(ts::uniform_below(s, u64_max) == 0x4acc071d26f354d7ULL);
  }
  {
    // bound 3 * 2^62 rejects a quarter of raw draws; here raw draws 3, 4 and
    // 5 are rejected, so the third value comes from the sixth draw.
    random_stream s = dist_stream();
    CHECK(ts::uniform_below(s, 3ULL << 62) == 9853404477128135402ULL);
    CHECK(ts::uniform_below(s, 3ULL << 62) == 244850416129539038ULL);
    CHECK(ts::uniform_below(s, 3ULL << 62) == 2672318789794553658ULL);
  }
}

TEST_CASE("known answers: uniform_int", "[distributions]") {
  {
    random_stream s = dist_stream();
    CHECK(ts::uniform_int(s, -5, 5) == 2);
    CHECK(ts::uniform_int(s, -5, 5) == -5);
    CHECK(ts::uniform_int(s, -5, 5) == -2);
    CHECK(ts::uniform_int(s, -5, 5) == -1);
    CHECK(ts::uniform_int(s, -5, 5) == -1);
  }
  {
    // Full range: the raw draw reinterpreted as two's complement.
    random_stream s = dist_stream();
    CHECK(ts::uniform_int(s, i64_min, i64_max) == -5308871437538704413LL);
    CHECK(ts::uniform_int(s, i64_min, i64_max) == 326467221506052051LL);
    CHECK(ts::uniform_int(s, i64_min, i64_max) == 5389690675844568280LL);
  }
}

TEST_CASE("known answers: uniform_real01 and bernoulli", "[distributions]") {
  {
    random_stream s = dist_stream();
    CHECK(ts::uniform_real01(s) == 0.71220550269871463);
    CHECK(ts::uniform_real01(s) == 0.017697823540108293);
    CHECK(ts::uniform_real01(s) == 0.29217571698877731);
  }
  {
    random_stream s = dist_stream();
    const bool expected[] = {false, true, true, false, false, true, true, false, false, false};
    for (bool e : expected) CHECK(ts::bernoulli(s, 1, 3) == e);
  }
}

TEST_CASE("known answers: exponential, normal, lognormal", "[distributions]") {
  {
    random_stream s = dist_stream();
    CHECK(ts::exponential(s, 10.0) == 12.455086045821036);
    CHECK(ts::exponential(s, 10.0) == 0.178563026263864);
    CHECK(ts::exponential(s, 10.0) == 3.455594039293715);
  }
  {
    random_stream s = dist_stream();
    CHECK(ts::standard_normal(s) == -1.6778721723677799);
    CHECK(ts::standard_normal(s) == -0.49698110514630289);
    CHECK(ts::standard_normal(s) == -0.18833353911390363);
    CHECK(ts::standard_normal(s) == -1.0391705407082494);
  }
  {
    random_stream s = dist_stream();
    CHECK(ts::normal(s, 100.0, 15.0) == 74.8319174144833);
    CHECK(ts::normal(s, 100.0, 15.0) == 92.545283422805454);
    CHECK(ts::normal(s, 100.0, 15.0) == 97.174996913291452);
  }
  const ts::lognormal_params p = ts::lognormal_from_median_p99(2000.0, 30000.0);
  CHECK(p.mu == 7.6009024595420822);
  CHECK(p.sigma == 1.1640779228767524);
  {
    random_stream s = dist_stream();
    CHECK(ts::lognormal(s, p) == 283.6464324165226);
    CHECK(ts::lognormal(s, p) == 1121.4499519296592);
    CHECK(ts::lognormal(s, p) == 1606.2660559605886);
  }
}

TEST_CASE("known answers: duration helpers", "[distributions]") {
  {
    random_stream s = dist_stream();
    CHECK(ts::uniform_duration(s, duration::from_us(100), duration::from_us(200)).us() == 171);
    CHECK(ts::uniform_duration(s, duration::from_us(100), duration::from_us(200)).us() == 101);
    CHECK(ts::uniform_duration(s, duration::from_us(100), duration::from_us(200)).us() == 129);
  }
  {
    random_stream s = dist_stream();
    CHECK(ts::exponential_duration(s, duration::from_us(5000)).us() == 6228);
    CHECK(ts::exponential_duration(s, duration::from_us(5000)).us() == 89);
    CHECK(ts::exponential_duration(s, duration::from_us(5000)).us() == 1728);
  }
  {
    // Same draws as the lognormal vector above (283.65, 1121.45, 1606.27 us), rounded.
    random_stream s = dist_stream();
    const ts::lognormal_params p = ts::lognormal_from_median_p99(2000.0, 30000.0);
    CHECK(ts::lognormal_duration(s, p).us() == 284);
    CHECK(ts::lognormal_duration(s, p).us() == 1121);
    CHECK(ts::lognormal_duration(s, p).us() == 1606);
  }
}

// ---------------------------------------------------------------- uniform

TEST_CASE("uniform_below stays in range", "[distributions]") {
  random_stream s = dist_stream();
  for (int i = 0; i < 1000; ++i) CHECK(ts::uniform_below(s, 1) == 0);

  bool seen[2] = {false, false};
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t v = ts::uniform_below(s, 2);
    REQUIRE(v < 2);
    seen[v] = true;
  }
  CHECK(seen[0]);
  CHECK(seen[1]);

  for (int i = 0; i < 1000; ++i) REQUIRE(ts::uniform_below(s, u64_max) < u64_max);
  for (int i = 0; i < 1000; ++i) REQUIRE(ts::uniform_below(s, 7) < 7);
}

TEST_CASE("uniform_below is roughly uniform", "[distributions]") {
  constexpr int draws = 100'000;
  // Chi-square with k - 1 degrees of freedom has mean k - 1 and sd
  // sqrt(2(k - 1)); the thresholds below are about 10 sd out, so only a real
  // bias (not bad luck) can trip them.
  SECTION("bound 10") {
    random_stream s = dist_stream();
    std::vector<int> counts(10, 0);
    for (int i = 0; i < draws; ++i) ++counts[ts::uniform_below(s, 10)];
    CHECK(chi_square(counts, draws / 10.0) < 50.0);
  }
  SECTION("bound 3 * 2^62: no modulo bias") {
    // A naive x % bound would put half of all draws in the first third.
    random_stream s = dist_stream();
    std::vector<int> counts(3, 0);
    for (int i = 0; i < draws; ++i) ++counts[ts::uniform_below(s, 3ULL << 62) >> 62];
    CHECK(chi_square(counts, draws / 3.0) < 25.0);
  }
}

TEST_CASE("uniform_int covers small and full ranges", "[distributions]") {
  random_stream s = dist_stream();

  SECTION("single value") {
    for (int i = 0; i < 100; ++i) CHECK(ts::uniform_int(s, -3, -3) == -3);
    CHECK(ts::uniform_int(s, i64_min, i64_min) == i64_min);
    CHECK(ts::uniform_int(s, i64_max, i64_max) == i64_max);
  }
  SECTION("small range hits every value, inclusive") {
    std::vector<int> counts(5, 0);
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t v = ts::uniform_int(s, -2, 2);
      REQUIRE(v >= -2);
      REQUIRE(v <= 2);
      ++counts[static_cast<std::size_t>(v + 2)];
    }
    for (int c : counts) CHECK(c > 800);
  }
  SECTION("ranges at the int64 edges") {
    bool lo_seen[2] = {false, false};
    bool hi_seen[2] = {false, false};
    for (int i = 0; i < 200; ++i) {
      const std::int64_t a = ts::uniform_int(s, i64_min, i64_min + 1);
      REQUIRE((a == i64_min || a == i64_min + 1));
      lo_seen[a - i64_min] = true;
      const std::int64_t b = ts::uniform_int(s, i64_max - 1, i64_max);
      REQUIRE((b == i64_max - 1 || b == i64_max));
      hi_seen[i64_max - b] = true;
    }
    CHECK((lo_seen[0] && lo_seen[1] && hi_seen[0] && hi_seen[1]));
  }
  SECTION("full range and near-full range") {
    int negative = 0;
    for (int i = 0; i < 10'000; ++i) {
      if (ts::uniform_int(s, i64_min, i64_max) < 0) ++negative;
      const std::int64_t v = ts::uniform_int(s, i64_min + 1, i64_max);  // span 2^64 - 2
      REQUIRE(v > i64_min);
    }
    CHECK(negative > 4'500);
    CHECK(negative < 5'500);
  }
}

TEST_CASE("uniform_real01 is in [0, 1) on the 2^-53 grid", "[distributions]") {
  random_stream s = dist_stream();
  double sum = 0.0;
  constexpr int draws = 100'000;
  // One Catch assertion per property, not per draw: keeps Debug runs fast.
  bool in_range = true;
  bool on_grid = true;
  for (int i = 0; i < draws; ++i) {
    const double u = ts::uniform_real01(s);
    in_range = in_range && u >= 0.0 && u < 1.0;
    const double scaled = u * 0x1.0p53;
    on_grid = on_grid && scaled == static_cast<double>(static_cast<std::uint64_t>(scaled));
    sum += u;
  }
  CHECK(in_range);
  CHECK(on_grid);
  CHECK(sum / draws == Approx(0.5).margin(0.005));
}

// ---------------------------------------------------------------- bernoulli

TEST_CASE("bernoulli edges are exact", "[distributions]") {
  random_stream s = dist_stream();
  int wrong = 0;
  for (int i = 0; i < 10'000; ++i) {
    wrong += ts::bernoulli(s, 0, 7) ? 1 : 0;
    wrong += ts::bernoulli(s, 7, 7) ? 0 : 1;
    wrong += ts::bernoulli(s, 0, u64_max) ? 1 : 0;
    wrong += ts::bernoulli(s, u64_max, u64_max) ? 0 : 1;
    wrong += ts::bernoulli(s, 1, 1) ? 0 : 1;
  }
  CHECK(wrong == 0);
}

TEST_CASE("bernoulli consumes the same draws whatever the numerator", "[distributions]") {
  // Changing a probability in a scenario must not shift later draws.
  random_stream a = dist_stream();
  random_stream b = dist_stream();
  random_stream c = dist_stream();
  for (int i = 0; i < 100; ++i) {
    ts::bernoulli(a, 0, 1000);
    ts::bernoulli(b, 1000, 1000);
    ts::bernoulli(c, 371, 1000);
  }
  const std::uint64_t next_a = a.next_u64();
  CHECK(next_a == b.next_u64());
  CHECK(next_a == c.next_u64());
}

TEST_CASE("bernoulli 1/100 rate", "[distributions]") {
  random_stream s = dist_stream();
  constexpr int draws = 1'000'000;
  int hits = 0;
  for (int i = 0; i < draws; ++i) hits += ts::bernoulli(s, 1, 100) ? 1 : 0;
  // Expected 10'000, sd ~99.5: +-500 is 5 sd.
  CHECK(hits > 9'500);
  CHECK(hits < 10'500);
}

// ---------------------------------------------------------------- continuous

TEST_CASE("exponential mean", "[distributions]") {
  random_stream s = dist_stream();
  constexpr int draws = 200'000;
  double sum = 0.0;
  bool valid = true;
  for (int i = 0; i < draws; ++i) {
    const double x = ts::exponential(s, 10.0);
    valid = valid && x >= 0.0 && std::isfinite(x);
    sum += x;
  }
  CHECK(valid);
  // Standard error of the mean is 10 / sqrt(200k) ~ 0.022 (0.22%).
  CHECK(sum / draws == Approx(10.0).epsilon(0.02));

  CHECK(ts::exponential(s, 0.0) == 0.0);
}

TEST_CASE("normal mean and standard deviation", "[distributions]") {
  random_stream s = dist_stream();
  constexpr int draws = 200'000;
  double sum = 0.0;
  double sum_sq = 0.0;
  for (int i = 0; i < draws; ++i) {
    const double x = ts::normal(s, 50.0, 4.0);
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / draws;
  const double var = sum_sq / draws - mean * mean;
  // se(mean) = 4 / sqrt(200k) ~ 0.009; se(sd) ~ 4 / sqrt(400k) ~ 0.0063.
  CHECK(mean == Approx(50.0).margin(0.05));
  CHECK(std::sqrt(var) == Approx(4.0).epsilon(0.01));

  CHECK(ts::normal(s, 3.5, 0.0) == 3.5);
}

TEST_CASE("lognormal_from_median_p99 reproduces median and p99", "[distributions]") {
  const double median = 2000.0;
  const double p99 = 30000.0;
  const ts::lognormal_params p = ts::lognormal_from_median_p99(median, p99);
  CHECK(p.mu == Approx(std::log(median)));
  CHECK(p.sigma == Approx((std::log(p99) - std::log(median)) / 2.3263478740408408));

  random_stream s = dist_stream();
  constexpr std::size_t draws = 200'000;
  std::vector<double> xs(draws);
  for (double& x : xs) x = ts::lognormal(s, p);
  std::sort(xs.begin(), xs.end());
  CHECK(xs.front() > 0.0);
  CHECK(std::isfinite(xs.back()));
  // se of the empirical median ~0.3%, of the p99 ~1% for this sigma (1.16).
  CHECK(xs[draws / 2] == Approx(median).epsilon(0.02));
  CHECK(xs[draws * 99 / 100] == Approx(p99).epsilon(0.04));

  SECTION("median == p99 is a point mass") {
    const ts::lognormal_params flat = ts::lognormal_from_median_p99(500.0, 500.0);
    CHECK(flat.sigma == 0.0);
    CHECK(ts::lognormal(s, flat) == Approx(500.0));
  }
}

// ---------------------------------------------------------------- durations

TEST_CASE("duration helpers are non-negative, inclusive and clamped", "[distributions]") {
  random_stream s = dist_stream();

  SECTION("uniform_duration is inclusive of both ends") {
    bool lo_seen = false;
    bool hi_seen = false;
    for (int i = 0; i < 1000; ++i) {
      const duration d = ts::uniform_duration(s, duration::from_us(10), duration::from_us(13));
      REQUIRE(d >= duration::from_us(10));
      REQUIRE(d <= duration::from_us(13));
      lo_seen = lo_seen || d == duration::from_us(10);
      hi_seen = hi_seen || d == duration::from_us(13);
    }
    CHECK(lo_seen);
    CHECK(hi_seen);
    CHECK(ts::uniform_duration(s, duration::zero(), duration::zero()) == duration::zero());
    CHECK(ts::uniform_duration(s, duration::max(), duration::max()) == duration::max());
  }
  SECTION("exponential_duration") {
    bool in_range = true;
    for (int i = 0; i < 10'000; ++i) {
      const duration d = ts::exponential_duration(s, duration::from_ms(20));
      in_range = in_range && d >= duration::zero() && d <= ts::max_sampled_duration;
    }
    CHECK(in_range);
    CHECK(ts::exponential_duration(s, duration::zero()) == duration::zero());
    // An absurd mean saturates instead of overflowing.
    for (int i = 0; i < 100; ++i) {
      const duration d = ts::exponential_duration(s, duration::max());
      REQUIRE(d >= duration::zero());
      REQUIRE(d <= ts::max_sampled_duration);
    }
  }
  SECTION("lognormal_duration") {
    const ts::lognormal_params p = ts::lognormal_from_median_p99(2000.0, 30000.0);
    bool in_range = true;
    for (int i = 0; i < 10'000; ++i) {
      const duration d = ts::lognormal_duration(s, p);
      in_range = in_range && d >= duration::zero() && d <= ts::max_sampled_duration;
    }
    CHECK(in_range);
    // exp overflows to +inf: clamped to the documented maximum.
    CHECK(ts::lognormal_duration(s, ts::lognormal_params{1000.0, 0.0}) == ts::max_sampled_duration);
    // exp underflows to 0 (and sub-half-microsecond values round to 0).
    CHECK(ts::lognormal_duration(s, ts::lognormal_params{-1000.0, 0.0}) == duration::zero());
    CHECK(ts::lognormal_duration(s, ts::lognormal_params{std::log(0.4), 0.0}) == duration::zero());
    CHECK(ts::lognormal_duration(s, ts::lognormal_params{std::log(0.6), 0.0}) == duration::from_us(1));
    CHECK(ts::max_sampled_duration == duration::from_us(1'000'000'000'000'000));
  }
}
