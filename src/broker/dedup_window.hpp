#pragma once
// An SQS FIFO queue's deduplication: "If a message with a particular message
// deduplication ID is sent successfully, any messages sent with the same
// message deduplication ID are accepted successfully but aren't delivered
// during the 5-minute deduplication interval" (Developer Guide, "Using the
// message deduplication ID"). The interval counts from the first accepted
// send; the id stays tracked after its message was received and deleted
// (AWS-validated test_fifo_deduplication_arrives_once_after_delete); it is
// queue-wide, not per group (test_sqs_fifo_same_dedup_id_different_message_groups);
// a purge forgets every id (test_purge_queue_clears_fifo_deduplication_cache).
// With ContentBasedDeduplication the id is the SHA-256 of the body: the
// body itself stands for it here (equal bodies, equal hashes), kept apart
// from explicit ids, which win when given.
//
// Memory: an id is held for its interval only, so the window holds the
// sends of the last five minutes.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <twice/sim/time.hpp>

namespace twice {

inline constexpr sim::duration deduplication_interval = sim::duration::from_s(5 * 60);

class dedup_window {
 public:
  using id_type = std::uint64_t;  // the queue's message id
  // (true: from the body, by ContentBasedDeduplication; the id or body)
  using key = std::pair<bool, std::string>;

  // The message first accepted under `k` within the interval before `now`.
  std::optional<id_type> find(const key& k, sim::instant now);
  // `message` was accepted under `k` at `now`.
  void remember(key k, id_type message, sim::instant now);
  void clear();
  std::size_t size() const { return by_key_.size(); }
  std::uint64_t footprint() const;

 private:
  void forget_until(sim::instant now);

  struct tracked {
    id_type message = 0;
    sim::instant until;
  };
  std::map<key, tracked> by_key_;
  std::deque<std::pair<sim::instant, key>> by_time_;  // (until, key), soonest first: sends come in time order
};

}  // namespace twice
