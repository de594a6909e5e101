#pragma once
// A client-side circuit breaker, one per worker process and tool, with
// Hystrix's rules and defaults (Netflix Hystrix wiki, "Configuration" and
// "How it Works": circuitBreaker.requestVolumeThreshold 20,
// errorThresholdPercentage 50, sleepWindowInMilliseconds 5000, over a
// metrics.rollingStats window of 10 s):
//
//   closed     every call goes out. Once the calls of the last `window`
//              number at least `min_calls` and `failure_percent` of them
//              failed, the breaker opens.
//   open       calls fail at once, without reaching the far side (the
//              runtime sees `503 circuit_open`, a retryable answer), for
//              `open_for`.
//   half-open  then one trial call goes out; the others still fail fast.
//              Its success closes the breaker (and forgets the window);
//              its failure opens it for another `open_for`.
//
// A failure is what the far side's trouble looks like: a timeout, a 5xx or
// a 429. A 4xx is the caller's own mistake and counts as a success. With a
// dependency that collapses under load (a retry storm), the breaker takes
// the load off while it is down (Brooker, "Fixing retries with token
// buckets and circuit breakers", 2022).

#include <cstdint>
#include <deque>

#include <twice/sim/time.hpp>

#include <twice/runtime/circuit_breaker_config.hpp>

namespace twice {

enum class breaker_state : std::uint8_t { closed, open, half_open };

class circuit_breaker {
 public:
  explicit circuit_breaker(circuit_breaker_config config) : config_(config) {}

  breaker_state state() const { return state_; }

  enum class verdict : std::uint8_t { refuse, go, trial };

  // Whether a call may go out now. An open breaker whose time is up lets one
  // trial through (and becomes half-open).
  verdict allow(sim::instant now) {
    switch (state_) {
      case breaker_state::closed:
        return verdict::go;
      case breaker_state::open:
        if (now < opened_at_ + config_.open_for) return verdict::refuse;
        state_ = breaker_state::half_open;
        return verdict::trial;
      case breaker_state::half_open:
        return verdict::refuse;  // the trial is out
    }
    return verdict::refuse;
  }

  // A call that went out has its answer (`as`: what allow() said when it
  // left). Returns whether the state changed. Only the trial's answer
  // decides a half-open breaker; answers to calls sent before the breaker
  // opened are not counted.
  bool record(sim::instant now, verdict as, bool failed) {
    if (as == verdict::trial) {
      if (failed) {
        open(now);
      } else {
        state_ = breaker_state::closed;
        calls_.clear();
        failures_ = 0;
      }
      return true;
    }
    if (state_ != breaker_state::closed) return false;
    calls_.push_back({now, failed});
    failures_ += failed ? 1 : 0;
    forget_before(now - config_.window);
    const std::uint64_t calls = calls_.size();
    if (calls < config_.min_calls || failures_ * 100 < std::uint64_t{config_.failure_percent} * calls) return false;
    open(now);
    return true;
  }

  // What the window holds (for the trace when it opens).
  std::uint64_t window_calls() const { return calls_.size(); }
  std::uint64_t window_failures() const { return failures_; }

 private:
  struct outcome {
    sim::instant at;
    bool failed = false;
  };

  void open(sim::instant now) {
    state_ = breaker_state::open;
    opened_at_ = now;
  }
  void forget_before(sim::instant t) {
    while (!calls_.empty() && calls_.front().at <= t) {
      failures_ -= calls_.front().failed ? 1 : 0;
      calls_.pop_front();
    }
  }

  circuit_breaker_config config_;
  breaker_state state_ = breaker_state::closed;
  sim::instant opened_at_;
  std::deque<outcome> calls_;  // the window's calls, oldest first
  std::uint64_t failures_ = 0;
};

}  // namespace twice
