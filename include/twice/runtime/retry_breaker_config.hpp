#pragma once
// The settings of a retry breaker (runtime/retry_breaker.hpp), apart from
// the breaker, so the runtime's settings need not include it.

#include <cstdint>

namespace twice {

struct retry_breaker_config {
  std::uint32_t failure_percent = 10;  // 1..100
  friend bool operator==(const retry_breaker_config&, const retry_breaker_config&) = default;
};

}  // namespace twice
