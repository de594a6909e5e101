#include <twice/sim/distributions.hpp>

#include <cmath>
#include <limits>

#include <twice/sim/check.hpp>
#include <twice/sim/fp_math.hpp>

namespace twice::sim {

namespace {

// GCC and Clang both provide a 128-bit unsigned integer; __extension__ keeps
// -Wpedantic quiet about it not being ISO C++.
__extension__ typedef unsigned __int128 u128;

bool is_finite(double x) {
  // Exact classification, not a libm computation: no platform dependency.
  return std::isfinite(x);
}

// Shared float -> duration rule: NaN is a caller bug; clamp to
// [0, max_sampled_duration] (so +inf and absurd parameters saturate instead
// of overflowing llround), then round half away from zero.
duration to_duration_us(double us) {
  TWICE_CHECK(!std::isnan(us));
  const double max_us = static_cast<double>(max_sampled_duration.us());  // 1e15, exact
  if (!(us > 0.0)) return duration::zero();
  if (us >= max_us) return max_sampled_duration;
  return duration::from_us(static_cast<std::int64_t>(std::llround(us)));
}

}  // namespace

std::uint64_t uniform_below(random_stream& rng, std::uint64_t bound) {
  TWICE_CHECK(bound > 0);
  // Lemire, "Fast Random Integer Generation in an Interval" (2019): the high
  // word of x * bound is uniform over [0, bound) once products whose low word
  // falls below 2^64 mod bound are rejected.
  u128 product = static_cast<u128>(rng.next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = (std::uint64_t{0} - bound) % bound;  // 2^64 mod bound
    while (low < threshold) {
      product = static_cast<u128>(rng.next_u64()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

std::int64_t uniform_int(random_stream& rng, std::int64_t lo, std::int64_t hi) {
  TWICE_CHECK(lo <= hi);
  // Work in unsigned arithmetic (wraps, well defined); hi - lo fits in
  // uint64 for any pair. Unsigned -> signed conversion is modular in C++20.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == std::numeric_limits<std::uint64_t>::max()) {
    return static_cast<std::int64_t>(rng.next_u64());
  }
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + uniform_below(rng, span + 1));
}

double uniform_real01(random_stream& rng) {
  // 53 high bits times 2^-53: exact, no rounding anywhere.
  return static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
}

bool bernoulli(random_stream& rng, std::uint64_t numerator, std::uint64_t denominator) {
  TWICE_CHECK(denominator > 0);
  TWICE_CHECK(numerator <= denominator);
  return uniform_below(rng, denominator) < numerator;
}

double exponential(random_stream& rng, double mean) {
  TWICE_CHECK(is_finite(mean));
  TWICE_CHECK(mean >= 0.0);
  // u = k * 2^-53 < 1, so 1 - u = (2^53 - k) * 2^-53 is exact and at least
  // 2^-53: log(1 - u) is log1p(-u) exactly (no precision lost for small u)
  // and finite (>= log(2^-53)).
  const double u = uniform_real01(rng);
  return -mean * fp_math::log(1.0 - u);
}

double standard_normal(random_stream& rng) {
  // Marsaglia's polar method. 2u - 1 is exact for u = k * 2^-53, so the pair
  // is exactly uniform on a grid in [-1, 1). Rejection (s >= 1 or s == 0)
  // happens with probability about 1 - pi/4; each attempt takes two draws.
  double u = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform_real01(rng) - 1.0;
    const double v = 2.0 * uniform_real01(rng) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * std::sqrt(-2.0 * fp_math::log(s) / s);
}

double normal(random_stream& rng, double mean, double stddev) {
  TWICE_CHECK(is_finite(mean));
  TWICE_CHECK(is_finite(stddev));
  TWICE_CHECK(stddev >= 0.0);
  return mean + stddev * standard_normal(rng);
}

lognormal_params lognormal_from_median_p99(double median, double p99) {
  TWICE_CHECK(is_finite(median));
  TWICE_CHECK(is_finite(p99));
  TWICE_CHECK(median > 0.0);
  TWICE_CHECK(median <= p99);
  const double mu = fp_math::log(median);
  return lognormal_params{mu, (fp_math::log(p99) - mu) / z_0_99};
}

double lognormal(random_stream& rng, lognormal_params params) {
  TWICE_CHECK(is_finite(params.mu));
  TWICE_CHECK(is_finite(params.sigma));
  TWICE_CHECK(params.sigma >= 0.0);
  // May overflow to +inf for absurd parameters; duration callers clamp.
  return fp_math::exp(params.mu + params.sigma * standard_normal(rng));
}

duration uniform_duration(random_stream& rng, duration lo, duration hi) {
  TWICE_CHECK(lo >= duration::zero());
  TWICE_CHECK(lo <= hi);
  return duration::from_us(uniform_int(rng, lo.us(), hi.us()));
}

duration exponential_duration(random_stream& rng, duration mean) {
  TWICE_CHECK(mean >= duration::zero());
  // int64 -> double rounds to nearest for means above 2^53 us (285 years):
  // deterministic, and irrelevant for real latencies.
  return to_duration_us(exponential(rng, static_cast<double>(mean.us())));
}

duration lognormal_duration(random_stream& rng, lognormal_params params_us) {
  return to_duration_us(lognormal(rng, params_us));
}

duration folded_normal_duration(random_stream& rng, duration mean, duration stddev) {
  TWICE_CHECK(mean >= duration::zero() && stddev >= duration::zero());
  return to_duration_us(std::fabs(normal(rng, static_cast<double>(mean.us()), static_cast<double>(stddev.us()))));
}

}  // namespace twice::sim
