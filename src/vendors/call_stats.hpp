#pragma once
// What a simulated tool counts about its calls: requests, executions,
// timeouts, rejections by status, and requests per 100 ms bucket.

#include <cstdint>
#include <map>

#include "sim/time.hpp"

namespace twice {

inline constexpr sim::duration request_bucket_width = sim::duration::from_ms(100);

struct call_stats {
  std::uint64_t calls = 0;            // requests callers sent (lost ones included)
  std::uint64_t executions = 0;       // requests that began executing on the far side
  std::uint64_t client_timeouts = 0;  // callers still alive that got status 0
  // Fresh non-2xx answers by status (replays are not counted again).
  std::map<int, std::uint64_t> rejections_by_status;
  std::uint32_t executing_peak = 0;  // most executions in progress at once
  // Requests sent per 100 ms of simulated time: bucket = send_time_us / 100'000.
  // Only non-empty buckets are stored; a retry stampede shows as a tall one.
  std::map<std::int64_t, std::uint64_t> requests_per_100ms;
};

}  // namespace twice
