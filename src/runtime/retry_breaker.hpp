#pragma once
// A circuit breaker of retries alone, one per worker process: first tries
// always go out; a failed attempt is retried only while this process's
// failed attempts are at most `failure_percent` of its first tries, counted
// over its whole life. It is the breaker of Brooker's "Fixing retries with
// token buckets and circuit breakers" (2022), as his simulation has it
// (mbrooker/simulator_example, retry_sim/retry_strategy.py,
// CircuitBreakerRetryCall: `calls` counts each call's start, `failures`
// each failure before the retry decision, and a retry is refused once
// failures / calls > max_rate). Unlike [retry.circuit_breaker] (Hystrix's),
// it never fails a first try fast.

#include <cstdint>

#include <twice/runtime/retry_breaker_config.hpp>

namespace twice {

class retry_breaker {
 public:
  explicit retry_breaker(retry_breaker_config config) : config_(config) {}

  void on_first_try() { ++calls_; }
  // A failed attempt, every one: whether it may be retried (the job's own
  // attempt limit still applies).
  bool on_failure() {
    ++failures_;
    return failures_ * 100 <= static_cast<std::uint64_t>(config_.failure_percent) * calls_;
  }

 private:
  retry_breaker_config config_;
  std::uint64_t calls_ = 0, failures_ = 0;
};

}  // namespace twice
