#include <twice/vendors/latency_model.hpp>

#include <twice/sim/check.hpp>
#include "sim/duration_text.hpp"

namespace twice {

latency_model latency_model::fixed(sim::duration value) {
  TWICE_CHECK(value >= sim::duration::zero());
  latency_model m;
  m.shape_ = shape::fixed;
  m.first_ = value;
  return m;
}

latency_model latency_model::uniform(sim::duration lo, sim::duration hi) {
  TWICE_CHECK(lo >= sim::duration::zero());
  TWICE_CHECK(lo <= hi);
  latency_model m;
  m.shape_ = shape::uniform;
  m.first_ = lo;
  m.second_ = hi;
  return m;
}

latency_model latency_model::lognormal(sim::duration p50, sim::duration p99) {
  TWICE_CHECK(p50 > sim::duration::zero());
  TWICE_CHECK(p50 <= p99);
  latency_model m;
  m.shape_ = shape::lognormal;
  m.first_ = p50;
  m.second_ = p99;
  // Computed once: every sample then costs one normal draw and one exp.
  m.params_us_ = sim::lognormal_from_median_p99(static_cast<double>(p50.us()), static_cast<double>(p99.us()));
  return m;
}

latency_model latency_model::normal(sim::duration mean, sim::duration sd) {
  TWICE_CHECK(mean >= sim::duration::zero());
  TWICE_CHECK(sd >= sim::duration::zero());
  latency_model m;
  m.shape_ = shape::normal;
  m.first_ = mean;
  m.second_ = sd;
  return m;
}

sim::duration latency_model::sample(sim::random_stream& rng) const {
  switch (shape_) {
    case shape::fixed:
      return first_;
    case shape::uniform:
      return sim::uniform_duration(rng, first_, second_);
    case shape::lognormal:
      return sim::lognormal_duration(rng, params_us_);
    case shape::normal:
      return sim::folded_normal_duration(rng, first_, second_);
  }
  TWICE_CHECK(false);
  return sim::duration::zero();
}

sim::duration latency_model::p99() const {
  switch (shape_) {
    case shape::fixed:
      return first_;
    case shape::uniform: {
      // floor(0.99 * span) in integers, split so span * 99 cannot overflow.
      const std::int64_t span = (second_ - first_).us();
      return first_ + sim::duration::from_us(span / 100 * 99 + span % 100 * 99 / 100);
    }
    case shape::lognormal:
      return second_;
    case shape::normal:
      return first_ +
             sim::duration::from_us(static_cast<std::int64_t>(static_cast<double>(second_.us()) * sim::z_0_99 + 0.5));
  }
  TWICE_CHECK(false);
  return sim::duration::zero();
}

std::string latency_model::describe() const {
  switch (shape_) {
    case shape::fixed:
      return "fixed(" + sim::format_duration(first_) + ")";
    case shape::uniform:
      return "uniform(" + sim::format_duration(first_) + ".." + sim::format_duration(second_) + ")";
    case shape::lognormal:
      return "lognormal(p50=" + sim::format_duration(first_) + ", p99=" + sim::format_duration(second_) + ")";
    case shape::normal:
      return "normal(mean=" + sim::format_duration(first_) + ", sd=" + sim::format_duration(second_) + ")";
  }
  TWICE_CHECK(false);
  return {};
}

}  // namespace twice
