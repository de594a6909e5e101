#pragma once
// The settings of a retry budget (runtime/retry_budget.hpp), apart from the
// bucket, so the runtime's settings need not include it. The defaults are
// the AWS SDKs' standard retry mode (aws-sdk-js-v3, middleware-retry).

#include <cstdint>
#include <optional>

namespace twice {

struct retry_budget_config {
  std::uint32_t tokens = 500;  // the bucket's size, and where it starts
  std::uint32_t retry_cost = 5;
  std::uint32_t timeout_cost = 10;   // a retry after the call timed out
  std::uint32_t success_refund = 1;  // a first attempt that succeeded
  // What a retry that succeeded puts back. Unset: what it cost (the SDKs).
  // Brooker's adaptive retries put back the same part of a token for every
  // success, first attempt or retry ("If it succeeds, it drops part of a
  // token into a limited-size token bucket"): set it to success_refund.
  std::optional<std::uint32_t> retry_success_refund = std::nullopt;
  // Brooker's simulation refills per call instead (mbrooker/simulator_example,
  // retry_sim/retry_strategy.py, AdaptiveRetryStrategy.start): every first
  // try puts `success_refund` in as it starts, whatever its outcome, and a
  // success puts nothing back.
  bool refill_per_call = false;
};

}  // namespace twice
