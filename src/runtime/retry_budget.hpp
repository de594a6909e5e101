#pragma once
// A retry budget: the token bucket of the AWS SDKs' standard retry mode,
// one per worker process (one SDK client per process). A retry takes tokens
// (more after a timeout); a success gives some back; with too few tokens
// the runtime does not retry, and the job goes to the dead-letter queue to
// be redriven once the trouble is over. So when most calls fail, retries
// stop adding load: the fix for a retry storm that keeps a dependency down
// (Brooker, "Fixing retries with token buckets and circuit breakers", 2022).
//
// The numbers and the rules are the SDKs' (aws-sdk-js-v3,
// packages/middleware-retry: defaultRetryQuota.ts and constants.ts;
// docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html):
// the bucket starts full at INITIAL_RETRY_TOKENS = 500 and never holds more;
// a retry costs RETRY_COST = 5, or TIMEOUT_RETRY_COST = 10 after a timeout,
// and is made only if that many tokens are there; a success puts back what
// the retry that led to it cost, or NO_RETRY_INCREMENT = 1 when it was a
// first attempt. Here a retry is the job's next attempt (the runtime's own
// retry, by nack or in the slice), and a success a slice that finished the
// job. A retry redelivered to another worker is refunded by the worker that
// ran it, at RETRY_COST (it cannot know what the other paid).

#include <cstdint>
#include <optional>

#include <twice/runtime/retry_budget_config.hpp>

namespace twice {

class retry_budget {
 public:
  explicit retry_budget(retry_budget_config config) : config_(config), available_(config.tokens) {}

  // Takes a retry's tokens if there are enough: whether to retry.
  bool try_retry(bool after_timeout) {
    const std::uint32_t cost = after_timeout ? config_.timeout_cost : config_.retry_cost;
    if (cost > available_) {
      ++refused_;
      return false;
    }
    available_ -= cost;
    return true;
  }
  // An attempt finished its job: `retry_cost` back when it was a retry
  // (what that retry took; or retry_success_refund when set), the success
  // refund when it was a first attempt.
  void on_success(bool was_retry, std::uint32_t retry_cost) {
    if (config_.refill_per_call) return;
    available_ += was_retry ? config_.retry_success_refund.value_or(retry_cost) : config_.success_refund;
    if (available_ > config_.tokens) available_ = config_.tokens;
  }

  // A first try starts (refill_per_call only).
  void on_first_try() {
    if (!config_.refill_per_call) return;
    available_ += config_.success_refund;
    if (available_ > config_.tokens) available_ = config_.tokens;
  }

  const retry_budget_config& config() const { return config_; }
  std::uint32_t available() const { return available_; }
  std::uint64_t refused() const { return refused_; }  // retries not made for want of tokens

 private:
  retry_budget_config config_;
  std::uint32_t available_;
  std::uint64_t refused_ = 0;
};

}  // namespace twice
