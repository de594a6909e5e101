#pragma once
// A Pub/Sub subscription's RetryPolicy (google/pubsub/v1 as
// googleapis/python-pubsub@63796ff3def3 documents it,
// google/pubsub_v1/types/pubsub.py L2296-2332): "Retry delay will be
// exponential based on provided minimum and maximum backoffs", minimum_backoff
// 10 s and maximum_backoff 600 s by default, each 0..600 s; "triggered on
// NACKs or acknowledgment deadline exceeded events". Without one
// (Subscription.retry_policy, L2085-2094) "messages will be retried as soon
// as possible".
//
// The docs name no base for the exponent; the model doubles (the
// exponential backoff the docs link to): the delay after a message's n-th
// delivery is minimum_backoff x 2^(n-1), at most maximum_backoff. No
// jitter, so no random draw: the docs promise none ("best effort" aside).

#include <algorithm>
#include <cstdint>

#include <twice/sim/time.hpp>

namespace twice {

struct pubsub_retry_policy {
  sim::duration minimum_backoff = sim::duration::from_s(10);
  sim::duration maximum_backoff = sim::duration::from_s(600);
  bool operator==(const pubsub_retry_policy&) const = default;
};

// The longest either backoff may be.
inline constexpr sim::duration max_pubsub_backoff = sim::duration::from_s(600);

// How long a message nacked after its `deliveries`-th delivery (1 for the
// first) waits before the next.
inline sim::duration pubsub_retry_delay(const pubsub_retry_policy& p, std::uint32_t deliveries) {
  std::int64_t us = p.minimum_backoff.us();
  const std::int64_t cap = p.maximum_backoff.us();
  // At most 600 s: a few dozen doublings reach it, so no overflow.
  for (std::uint32_t i = 1; i < deliveries && us < cap && us > 0; ++i) us *= 2;
  return sim::duration::from_us(std::min(us, cap));
}

}  // namespace twice
