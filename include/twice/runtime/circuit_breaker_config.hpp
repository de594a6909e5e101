#pragma once
// The settings of a circuit breaker (runtime/circuit_breaker.hpp), apart from
// the breaker, so the runtime's settings need not include it. The defaults
// are Hystrix's (its wiki, "Configuration": requestVolumeThreshold 20,
// errorThresholdPercentage 50, sleepWindowInMilliseconds 5000, a rolling
// window of 10 s).

#include <cstdint>

#include <twice/sim/time.hpp>

namespace twice {

struct circuit_breaker_config {
  sim::duration window = sim::duration::from_s(10);
  std::uint32_t min_calls = 20;
  std::uint32_t failure_percent = 50;  // 1..100
  sim::duration open_for = sim::duration::from_s(5);
  friend bool operator==(const circuit_breaker_config&, const circuit_breaker_config&) = default;
};

}  // namespace twice
