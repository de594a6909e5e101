// The circuit breaker's states, as Hystrix defines them: closed until the
// window holds enough calls and enough of them failed; open for open_for,
// failing calls fast; then one trial call decides.

#include <catch2/catch.hpp>

#include "runtime/circuit_breaker.hpp"

using namespace twice;
using sim::duration;
using verdict = circuit_breaker::verdict;

namespace {
constexpr sim::instant at_ms(std::int64_t ms) { return sim::instant::epoch() + duration::from_ms(ms); }
}  // namespace

TEST_CASE("a breaker opens once the window holds min_calls calls and half of them failed", "[circuit_breaker]") {
  circuit_breaker b(
      {.window = duration::from_s(10), .min_calls = 4, .failure_percent = 50, .open_for = duration::from_s(5)});
  CHECK(b.allow(at_ms(0)) == verdict::go);
  CHECK_FALSE(b.record(at_ms(0), verdict::go, true));
  CHECK_FALSE(b.record(at_ms(100), verdict::go, true));
  CHECK_FALSE(b.record(at_ms(200), verdict::go, true));  // three of three failed, but fewer than min_calls
  CHECK(b.state() == breaker_state::closed);
  CHECK(b.record(at_ms(300), verdict::go, false));  // 3 of 4 failed: open
  CHECK(b.state() == breaker_state::open);
  CHECK(b.window_calls() == 4);
  CHECK(b.window_failures() == 3);
  CHECK(b.allow(at_ms(5299)) == verdict::refuse);
  // An answer to a call sent before it opened changes nothing.
  CHECK_FALSE(b.record(at_ms(400), verdict::go, false));
  CHECK(b.state() == breaker_state::open);
}

TEST_CASE("calls older than the window are forgotten", "[circuit_breaker]") {
  circuit_breaker b(
      {.window = duration::from_s(10), .min_calls = 4, .failure_percent = 50, .open_for = duration::from_s(5)});
  b.record(at_ms(0), verdict::go, true);
  b.record(at_ms(1000), verdict::go, true);
  b.record(at_ms(11'500), verdict::go, false);  // the two failures are older than 10 s now
  CHECK_FALSE(b.record(at_ms(11'600), verdict::go, true));
  CHECK(b.window_calls() == 2);
  CHECK(b.state() == breaker_state::closed);
}

TEST_CASE("after open_for one trial goes out: its success closes the breaker, its failure reopens it",
          "[circuit_breaker]") {
  circuit_breaker b(
      {.window = duration::from_s(10), .min_calls = 1, .failure_percent = 100, .open_for = duration::from_s(5)});
  CHECK(b.record(at_ms(0), verdict::go, true));
  CHECK(b.allow(at_ms(4999)) == verdict::refuse);
  CHECK(b.allow(at_ms(5000)) == verdict::trial);
  CHECK(b.state() == breaker_state::half_open);
  CHECK(b.allow(at_ms(5001)) == verdict::refuse);  // one trial at a time
  CHECK(b.record(at_ms(6000), verdict::trial, true));
  CHECK(b.state() == breaker_state::open);
  CHECK(b.allow(at_ms(10'999)) == verdict::refuse);  // open_for counts from the failed trial
  CHECK(b.allow(at_ms(11'000)) == verdict::trial);
  CHECK(b.record(at_ms(11'100), verdict::trial, false));
  CHECK(b.state() == breaker_state::closed);
  CHECK(b.window_calls() == 0);
  CHECK(b.allow(at_ms(11'200)) == verdict::go);
}
