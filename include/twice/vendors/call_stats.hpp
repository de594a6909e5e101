#pragma once
// What a simulated tool counts about its calls: requests, executions,
// timeouts, rejections by status, and the tallest requests per 100 ms buckets.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include <twice/sim/time.hpp>

namespace twice {

inline constexpr sim::duration request_bucket_width = sim::duration::from_ms(100);

// Requests per 100 ms, in memory that does not grow with the run: the bucket
// being filled and the tallest few seen (a run of days has millions of
// buckets, and a report wants the peak and where it was).
class request_buckets {
 public:
  struct bucket {
    std::int64_t index = 0;  // send_time_us / 100'000
    std::uint64_t requests = 0;
    friend bool operator==(const bucket&, const bucket&) = default;
  };
  static constexpr std::size_t kept = 16;

  // Counts a request sent at `t`; time only moves forward.
  void count(sim::instant t);
  // The tallest buckets, tallest first (the earlier of two the same height).
  const std::vector<bucket>& tallest() const { return tallest_; }
  std::uint64_t peak() const { return tallest_.empty() ? 0 : tallest_.front().requests; }

 private:
  bucket current_{-1, 0};
  std::vector<bucket> tallest_;
};

struct call_stats {
  std::uint64_t calls = 0;            // requests callers sent (lost ones included)
  std::uint64_t executions = 0;       // requests that began executing on the far side
  std::uint64_t client_timeouts = 0;  // callers still alive that got status 0
  // Fresh non-2xx answers by status (replays are not counted again).
  std::map<int, std::uint64_t> rejections_by_status;
  std::uint32_t executing_peak = 0;  // most executions in progress at once
  // The tallest buckets of requests sent per 100 ms of simulated time
  // (bucket = send_time_us / 100'000): a retry stampede shows as a tall one.
  request_buckets requests_per_100ms;
};

}  // namespace twice
