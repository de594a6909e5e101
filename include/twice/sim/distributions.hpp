#pragma once
// Distributions written out by hand over random_stream. The std::*_distribution
// templates are unspecified algorithms (libstdc++ and libc++ give different
// values for the same engine), so every sampler here is a stated algorithm
// with a stated number of draws.
//
// Integer samplers are exact. Floating-point samplers use only IEEE basic
// operations (+ - * /, sqrt: correctly rounded everywhere; the build passes
// -ffp-contract=off so no FMA changes a result) and the in-house exp and log
// of sim/fp_math.hpp, which are built from those same operations. No libm
// function is called, so a draw has no platform dependency: the same seed
// gives the same bits with any compiler, standard library, libm or CPU that
// implements IEEE 754 doubles without excess precision. (std::llround, in the
// duration helpers, is an exact operation, not an approximation.)

#include <cstdint>

#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice::sim {

// Uniform in [0, bound), bound > 0, without modulo bias (Lemire's
// multiply-and-reject). Usually one draw; rejection, when it happens, draws
// again (probability < bound / 2^64).
std::uint64_t uniform_below(random_stream& rng, std::uint64_t bound);

// Uniform in [lo, hi] inclusive, lo <= hi; any int64 range including the full
// one (which takes one raw draw).
std::int64_t uniform_int(random_stream& rng, std::int64_t lo, std::int64_t hi);

// (next_u64() >> 11) * 2^-53: one of the 2^53 evenly spaced doubles in [0, 1).
double uniform_real01(random_stream& rng);

// True with probability exactly numerator / denominator:
// uniform_below(denominator) < numerator. Requires denominator > 0 and
// numerator <= denominator. Always consumes the draws of one uniform_below,
// even for 0/n and n/n, so changing a probability never shifts later draws of
// the stream by a different amount.
bool bernoulli(random_stream& rng, std::uint64_t numerator, std::uint64_t denominator);

// Probabilities in scenarios are exact ratios in parts per million (the
// kernel rules: no floating-point probabilities): bernoulli(rng, ppm,
// ppm_denominator).
inline constexpr std::uint32_t ppm_denominator = 1'000'000;

// Exponential with the given mean (>= 0, finite), by inversion:
// -mean * log(1 - u), u = uniform_real01 (1 - u is exact, so this is
// log1p(-u) without a log1p). One draw; never infinite.
double exponential(random_stream& rng, double mean);

// Standard normal by Marsaglia's polar method. The second value of each pair
// is discarded so that every call is self-contained (no hidden cached value
// that a copied or cloned stream would have to carry).
double standard_normal(random_stream& rng);

// mean + stddev * standard_normal(rng); stddev >= 0.
double normal(random_stream& rng, double mean, double stddev);

// exp(N(mu, sigma^2)).
struct lognormal_params {
  double mu;
  double sigma;
};

// z such that P(Z <= z) = 0.99 for a standard normal Z.
inline constexpr double z_0_99 = 2.3263478740408408;

// Parameters whose median and 99th percentile are the given values:
// mu = ln(median), sigma = (ln(p99) - ln(median)) / z_0_99.
// Requires 0 < median <= p99 (both finite); median == p99 gives sigma 0.
lognormal_params lognormal_from_median_p99(double median, double p99);

// exp(mu + sigma * standard_normal(rng)); sigma >= 0, both finite.
double lognormal(random_stream& rng, lognormal_params params);

// Largest duration the floating-point duration helpers return: 1e15 us
// (about 31.7 years of simulated time). Far beyond any sane latency, and far
// enough below int64 max that adding it to any realistic instant cannot
// overflow.
inline constexpr duration max_sampled_duration = duration::from_us(1'000'000'000'000'000);

// Uniform whole microseconds in [lo, hi] inclusive; requires 0 <= lo <= hi.
// Exact (integer), no clamp needed.
duration uniform_duration(random_stream& rng, duration lo, duration hi);

// The floating-point helpers below sample in microseconds and convert by one
// rule: clamp to [0, max_sampled_duration], then round half away from zero
// (std::llround) to whole microseconds.

// Exponential with the given mean (mean >= 0).
duration exponential_duration(random_stream& rng, duration mean);

// Lognormal whose parameters are in microseconds (e.g. from
// lognormal_from_median_p99(2'000.0, 30'000.0) for median 2 ms, p99 30 ms).
duration lognormal_duration(random_stream& rng, lognormal_params params_us);

// |normal(mean, stddev)| in microseconds: a delay that cannot be negative,
// drawn as Brooker's backoff simulator draws its network
// (aws-samples/aws-arch-backoff-simulator, src/backoff_simulator.py:
// `abs(random.normalvariate(self.mean, self.sd))`).
duration folded_normal_duration(random_stream& rng, duration mean, duration stddev);

}  // namespace twice::sim
