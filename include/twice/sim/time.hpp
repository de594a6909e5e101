#pragma once
// Simulated time: integer microseconds in two strong types. An `instant` is a
// point on the virtual clock (microseconds since the run started); a
// `duration` is a signed span. No floating point, no epsilon: two runs of the
// same scenario agree to the microsecond on every machine.
//
// The arithmetic is checked (sim/checked.hpp): a result outside int64
// microseconds (about 292,000 years either way) is a kernel check failure
// naming the operation, in every build type, never a wrapped clock. The
// scenario loader's limits keep valid scenarios far below it. The try_*
// functions below answer the same question without failing.

#include <compare>
#include <cstdint>
#include <limits>
#include <optional>

#include <twice/sim/checked.hpp>

namespace twice::sim {

class duration {
 public:
  constexpr duration() = default;
  static constexpr duration from_us(std::int64_t us) { return duration(us); }
  static constexpr duration from_ms(std::int64_t ms) {
    return duration(checked_mul(ms, 1'000, "duration::from_ms overflows int64 microseconds"));
  }
  static constexpr duration from_s(std::int64_t s) {
    return duration(checked_mul(s, 1'000'000, "duration::from_s overflows int64 microseconds"));
  }
  static constexpr duration zero() { return duration(0); }
  static constexpr duration max() { return duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t us() const { return us_; }

  friend constexpr auto operator<=>(duration, duration) = default;
  constexpr duration operator+(duration o) const {
    return duration(checked_add(us_, o.us_, "duration + duration overflows int64 microseconds"));
  }
  constexpr duration operator-(duration o) const {
    return duration(checked_sub(us_, o.us_, "duration - duration overflows int64 microseconds"));
  }
  constexpr duration operator*(std::int64_t k) const {
    return duration(checked_mul(us_, k, "duration * integer overflows int64 microseconds"));
  }
  constexpr duration operator/(std::int64_t k) const {
    return duration(checked_div(us_, k, "duration / integer divides by zero or overflows int64 microseconds"));
  }
  constexpr duration& operator+=(duration o) { return *this = *this + o; }
  constexpr duration& operator-=(duration o) { return *this = *this - o; }

 private:
  constexpr explicit duration(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

class instant {
 public:
  constexpr instant() = default;
  static constexpr instant from_us(std::int64_t us) { return instant(us); }
  static constexpr instant epoch() { return instant(0); }
  static constexpr instant max() { return instant(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t us() const { return us_; }

  friend constexpr auto operator<=>(instant, instant) = default;
  constexpr instant operator+(duration d) const {
    return instant(checked_add(us_, d.us(), "instant + duration overflows int64 microseconds"));
  }
  constexpr instant operator-(duration d) const {
    return instant(checked_sub(us_, d.us(), "instant - duration overflows int64 microseconds"));
  }
  constexpr duration operator-(instant o) const {
    return duration::from_us(checked_sub(us_, o.us_, "instant - instant overflows int64 microseconds"));
  }
  constexpr instant& operator+=(duration d) { return *this = *this + d; }

 private:
  constexpr explicit instant(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

// The operators' arithmetic without the failure: nullopt where the operator
// would fail.
constexpr std::optional<duration> try_add(duration a, duration b) {
  const auto us = try_add(a.us(), b.us());
  return us ? std::optional(duration::from_us(*us)) : std::nullopt;
}
constexpr std::optional<duration> try_sub(duration a, duration b) {
  const auto us = try_sub(a.us(), b.us());
  return us ? std::optional(duration::from_us(*us)) : std::nullopt;
}
constexpr std::optional<duration> try_mul(duration a, std::int64_t k) {
  const auto us = try_mul(a.us(), k);
  return us ? std::optional(duration::from_us(*us)) : std::nullopt;
}
constexpr std::optional<instant> try_add(instant t, duration d) {
  const auto us = try_add(t.us(), d.us());
  return us ? std::optional(instant::from_us(*us)) : std::nullopt;
}
constexpr std::optional<instant> try_sub(instant t, duration d) {
  const auto us = try_sub(t.us(), d.us());
  return us ? std::optional(instant::from_us(*us)) : std::nullopt;
}
constexpr std::optional<duration> try_sub(instant a, instant b) {
  const auto us = try_sub(a.us(), b.us());
  return us ? std::optional(duration::from_us(*us)) : std::nullopt;
}

namespace detail {
// A literal above INT64_MAX would wrap in the cast to int64.
constexpr std::int64_t literal_count(unsigned long long v) {
  TWICE_CHECK(v <= static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()));
  return static_cast<std::int64_t>(v);
}
}  // namespace detail

namespace literals {
constexpr duration operator""_us(unsigned long long v) { return duration::from_us(detail::literal_count(v)); }
constexpr duration operator""_ms(unsigned long long v) { return duration::from_ms(detail::literal_count(v)); }
constexpr duration operator""_s(unsigned long long v) { return duration::from_s(detail::literal_count(v)); }
}  // namespace literals

}  // namespace twice::sim
