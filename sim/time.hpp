#pragma once
// Simulated time: integer microseconds in two strong types. An `instant` is a
// point on the virtual clock (microseconds since the run started); a
// `duration` is a signed span. No floating point, no epsilon: two runs of the
// same scenario agree to the microsecond on every machine.

#include <compare>
#include <cstdint>
#include <limits>

namespace twice::sim {

class duration {
 public:
  constexpr duration() = default;
  static constexpr duration from_us(std::int64_t us) { return duration(us); }
  static constexpr duration from_ms(std::int64_t ms) { return duration(ms * 1'000); }
  static constexpr duration from_s(std::int64_t s) { return duration(s * 1'000'000); }
  static constexpr duration zero() { return duration(0); }
  static constexpr duration max() { return duration(std::numeric_limits<std::int64_t>::max()); }

  constexpr std::int64_t us() const { return us_; }

  friend constexpr auto operator<=>(duration, duration) = default;
  constexpr duration operator+(duration o) const { return duration(us_ + o.us_); }
  constexpr duration operator-(duration o) const { return duration(us_ - o.us_); }
  constexpr duration operator*(std::int64_t k) const { return duration(us_ * k); }
  constexpr duration operator/(std::int64_t k) const { return duration(us_ / k); }
  constexpr duration& operator+=(duration o) { us_ += o.us_; return *this; }
  constexpr duration& operator-=(duration o) { us_ -= o.us_; return *this; }

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
  constexpr instant operator+(duration d) const { return instant(us_ + d.us()); }
  constexpr instant operator-(duration d) const { return instant(us_ - d.us()); }
  constexpr duration operator-(instant o) const { return duration::from_us(us_ - o.us_); }
  constexpr instant& operator+=(duration d) { us_ += d.us(); return *this; }

 private:
  constexpr explicit instant(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

namespace literals {
constexpr duration operator""_us(unsigned long long v) { return duration::from_us(static_cast<std::int64_t>(v)); }
constexpr duration operator""_ms(unsigned long long v) { return duration::from_ms(static_cast<std::int64_t>(v)); }
constexpr duration operator""_s(unsigned long long v) { return duration::from_s(static_cast<std::int64_t>(v)); }
}  // namespace literals

}  // namespace twice::sim
