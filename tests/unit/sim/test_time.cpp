// The strong time types: arithmetic between instants and durations, their
// ordering, and the literals scenario-free code uses.

#include <catch2/catch.hpp>

#include <compare>

#include <twice/sim/time.hpp>

using twice::sim::duration;
using twice::sim::instant;
using namespace twice::sim::literals;

// The types are constexpr so kernel constants can be checked at compile time.
static_assert(instant::epoch() + 5_ms == instant::from_us(5'000));
static_assert(instant::from_us(10) - instant::from_us(4) == 6_us);
static_assert(duration{} == duration::zero());
static_assert(instant{} == instant::epoch());

TEST_CASE("duration literals and factories agree", "[time]") {
  CHECK((7_us).us() == 7);
  CHECK((7_ms).us() == 7'000);
  CHECK((7_s).us() == 7'000'000);
  CHECK(duration::from_ms(250) == 250_ms);
  CHECK(duration::from_s(30) == 30_s);
  CHECK(duration::from_us(1'500) == 1_ms + 500_us);
  CHECK(duration::zero().us() == 0);
}

TEST_CASE("duration arithmetic is exact integer microseconds", "[time]") {
  CHECK(1_s + 500_ms == 1'500_ms);
  CHECK(1_s - 1_ms == 999_ms);
  CHECK(250_ms * 4 == 1_s);
  CHECK(1_s / 3 == 333'333_us);  // truncates, never rounds through floating point
  CHECK((1_ms - 2_ms).us() == -1'000);
  duration d = 1_s;
  d += 250_ms;
  CHECK(d == 1'250_ms);
  d -= 1_s;
  CHECK(d == 250_ms);
}

TEST_CASE("instant plus and minus duration", "[time]") {
  const instant t = instant::epoch() + 2_s;
  CHECK(t.us() == 2'000'000);
  CHECK(t - 500_ms == instant::from_us(1'500'000));
  CHECK(t + duration::zero() == t);
  instant u = t;
  u += 1_us;
  CHECK(u.us() == 2'000'001);
}

TEST_CASE("instant minus instant is a signed duration", "[time]") {
  const instant a = instant::from_us(1'000);
  const instant b = instant::from_us(4'000);
  CHECK(b - a == 3_ms);
  CHECK(a - b == duration::from_us(-3'000));
  CHECK(a - a == duration::zero());
  CHECK(a + (b - a) == b);
}

TEST_CASE("instants and durations are totally ordered", "[time]") {
  CHECK(instant::epoch() < instant::from_us(1));
  CHECK(instant::from_us(5) <= instant::from_us(5));
  CHECK(instant::from_us(6) > instant::from_us(5));
  CHECK(instant::from_us(5) != instant::from_us(6));
  CHECK(std::is_eq(instant::epoch() + 3_s <=> instant::from_us(3'000'000)));
  CHECK(instant::max() > instant::epoch() + 1'000'000_s);
  CHECK(999_us < 1_ms);
  CHECK(1_ms >= 1'000_us);
  CHECK(duration::from_us(-1) < duration::zero());
  CHECK(duration::max() > 1'000'000'000_s);
}
