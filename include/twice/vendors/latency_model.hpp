#pragma once
// How long the far side of a call takes: a distribution of durations that
// every simulated tool samples per execution (vendors/remote_endpoint.hpp has
// the rest of the far side).

#include <cstdint>
#include <string>

#include <twice/sim/distributions.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// A distribution of durations. Values, not a class hierarchy: configs copy
// them and a scenario file names one of four shapes.
class latency_model {
 public:
  enum class shape : std::uint8_t { fixed, uniform, lognormal, normal };

  // fixed(0): a default so configs can be built field by field.
  latency_model() = default;

  static latency_model fixed(sim::duration value);
  // Whole microseconds uniform in [lo, hi] inclusive.
  static latency_model uniform(sim::duration lo, sim::duration hi);
  // Lognormal with the given median and 99th percentile (0 < p50 <= p99).
  static latency_model lognormal(sim::duration p50, sim::duration p99);
  // |normal(mean, sd)|: a network leg as Brooker's backoff simulator draws
  // one (sim::folded_normal_duration).
  static latency_model normal(sim::duration mean, sim::duration sd);

  // fixed: no draw; uniform: one uniform_int; lognormal and normal: one
  // standard normal (Marsaglia polar, a variable number of raw draws).
  sim::duration sample(sim::random_stream& rng) const;

  // The 99th percentile: fixed: the value; uniform: lo + floor(0.99 (hi - lo));
  // lognormal: p99 as given; normal: mean + 2.326 sd (the fold changes
  // nothing there unless sd is far above the mean). The linter compares it
  // with visibility timeouts.
  sim::duration p99() const;
  shape kind() const { return shape_; }

  // "fixed(250ms)", "uniform(10ms..50ms)", "lognormal(p50=200ms, p99=2s)",
  // "normal(mean=10ms, sd=2ms)".
  std::string describe() const;

 private:
  shape shape_ = shape::fixed;
  sim::duration first_ = sim::duration::zero();   // fixed: value; uniform: lo; lognormal: p50; normal: mean
  sim::duration second_ = sim::duration::zero();  // uniform: hi; lognormal: p99; normal: sd
  sim::lognormal_params params_us_{0.0, 0.0};     // lognormal only
};

}  // namespace twice
