#pragma once
// The ack deadline Google's streaming pull client keeps for itself, which is
// what it modacks every message it holds to, whatever the subscription's
// ack_deadline_seconds says (googleapis/python-pubsub@63796ff3def3,
// google/cloud/pubsub_v1/subscriber/_protocol/):
//
//  * streaming_pull_manager.py L379-385: it starts at histogram.MIN_ACK_DEADLINE,
//    10 s (FlowControl.min_duration_per_lease_extension is 0 by default);
//  * L479-532 `_obtain_ack_deadline(maybe_update=True)`, called by the leaser
//    on each of its loops (leaser.py L160): once the histogram of ack times
//    has grown past min(2 x, + 100) its size at the last update, the
//    deadline becomes its 99th percentile; with exactly-once delivery it is
//    at least `_MIN_ACK_DEADLINE_SECS_WHEN_EXACTLY_ONCE_ENABLED`, 60 s (L103,
//    L523-528), from the first response that tells the client so (L1274-1286);
//  * histogram.py: whole seconds, clamped to 10..600; `percentile(99)` walks
//    the values from the largest down until `len - len * 0.99` is passed;
//  * message.py L277: an ack adds `ceil(now - received)` seconds (a nack adds
//    nothing);
//  * L1288-1298: every message is modacked to the current deadline the
//    moment it is received (the "receipt modack"), before lease management.
//
// One per client process: a restarted pod starts again from 10 s.
// FlowControl's min/max_duration_per_lease_extension are not modelled (their
// defaults, 0, leave the deadline to the histogram).

#include <cstdint>
#include <map>

#include <twice/sim/time.hpp>

namespace twice {

class pubsub_ack_deadline {
 public:
  explicit pubsub_ack_deadline(bool exactly_once);
  // `ack_deadline` (maybe_update=False): what a receipt modack sends.
  sim::duration current() const;
  // `_obtain_ack_deadline(maybe_update=True)`: what the leaser extends by.
  sim::duration update();
  // Message.ack() after the message was held this long.
  void record_ack(sim::duration time_to_ack);

 private:
  std::int64_t percentile_99_s() const;

  bool exactly_once_;
  std::int64_t deadline_s_;
  std::map<std::int64_t, std::uint64_t> acks_by_seconds_;  // the histogram
  std::uint64_t size_ = 0;
  std::uint64_t size_at_update_ = 0;
};

}  // namespace twice
