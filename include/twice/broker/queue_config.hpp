#pragma once
// A queue's settings: what a scenario's [queue] and [dead_letter] set, and
// the limits SQS (and the other flavours) put on them. The model that
// reads them is private (src/broker/queue.hpp, whose opening comment says
// what each setting does).

#include <cstdint>
#include <optional>
#include <string>

#include <twice/broker/pubsub_retry_policy.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// "Amazon SQS FIFO queue looks through the first 20k messages to determine
// available message groups" (the AWS knowledge-center article src/broker/fifo_order.hpp cites).
inline constexpr std::uint32_t fifo_scan_window_sqs = 20'000;

enum class handle_semantics : std::uint8_t { sqs, strict };

struct queue_config {
  std::string name = "jobs";
  sim::duration visibility_timeout = sim::duration::from_s(30);    // SQS default 30 s, 0..12 h
  sim::duration retention = sim::duration::from_s(4 * 24 * 3600);  // SQS default 4 days
  std::uint32_t max_receive_count = 0;  // redrive after this many receives; 0 = no redrive policy
  handle_semantics semantics = handle_semantics::sqs;
  sim::duration delay = sim::duration::zero();            // DelaySeconds: a send that names none, 0..900 s
  sim::duration receive_wait = sim::duration::zero();     // ReceiveMessageWaitTimeSeconds, 0..20 s
  bool fifo = false;                                      // FifoQueue
  bool content_based_deduplication = false;               // ContentBasedDeduplication (FIFO only)
  std::uint32_t fifo_scan_window = fifo_scan_window_sqs;  // FIFO: messages a receive looks through for groups
  bool hold_until_ack = false;                            // Sidekiq's BasicFetch: no lease (src/broker/queue.hpp)
  bool super_fetch = false;          // with hold_until_ack: Sidekiq Pro's super_fetch (src/broker/queue.hpp)
  bool redis_ack_emulation = false;  // Celery's Redis transport (src/broker/queue.hpp)
  bool pubsub = false;               // a Pub/Sub subscription (src/broker/queue.hpp)
  // Sidekiq's dead set, a sorted set scored by the time of death: no timer
  // deletes from it. Each death (DeadSet#kill, api.rb) first drops the jobs
  // that died more than `retention` ago (dead_timeout_in_seconds, 180 days)
  // and then the oldest beyond `dead_max_jobs` (10,000).
  bool dead_set = false;
  std::uint32_t dead_max_jobs = 10'000;
  // With hold_until_ack: Sidekiq's scheduled poller. A retry due in the retry
  // set re-enters the queue at the poller's next look, not the moment it is
  // due; each wait between looks is drawn between half and one and a half
  // times this average (scheduled.rb random_poll_interval; the fleet's
  // processes, each polling process_count times less often, taken as one
  // poller). Zero: a retry re-enters when due.
  sim::duration scheduled_poll_average = sim::duration::zero();
  // pubsub: its RetryPolicy (broker/pubsub_retry_policy.hpp); none: a nack redelivers at once.
  std::optional<pubsub_retry_policy> retry_policy{};
  // Redis ack emulation: how often unacked messages past their timeout are
  // restored (unacked_restore_interval 10 s x unacked_restore_throttle 10).
  sim::duration restore_sweep = sim::duration::from_s(100);
};

inline constexpr sim::duration max_visibility_timeout = sim::duration::from_s(12 * 3600);
// Redis ack emulation has no 12 h limit: kombu takes any visibility_timeout
// (Celery's docs suggest raising it to the longest ETA); ours stops at 30 days.
inline constexpr sim::duration max_redis_visibility_timeout = sim::duration::from_s(30LL * 24 * 3600);
inline constexpr sim::duration max_delay = sim::duration::from_s(900);
// super_fetch: a dead process's heartbeat key expires after this long; the
// orphan check runs at most this often; more recoveries than this within the
// window make a poison pill.
inline constexpr sim::duration super_fetch_heartbeat_expiry = sim::duration::from_s(60);
inline constexpr sim::duration super_fetch_orphan_check = sim::duration::from_s(3600);
inline constexpr std::uint32_t super_fetch_recovery_limit = 3;
inline constexpr sim::duration super_fetch_recovery_window = sim::duration::from_s(72 * 3600);
// Pub/Sub: the longest ack deadline one modifyAckDeadline (or the
// subscription) may set, and the longest message_retention_duration.
inline constexpr sim::duration max_ack_deadline = sim::duration::from_s(600);
inline constexpr sim::duration max_pubsub_retention = sim::duration::from_s(31LL * 24 * 3600);
// Sidekiq's dead set: dead_timeout_in_seconds may be anything; ours stops at 10 years.
inline constexpr sim::duration max_dead_set_retention = sim::duration::from_s(3650LL * 24 * 3600);
// hold_until_ack: the longest a retry may wait (a year: past any story).
inline constexpr sim::duration uncapped_retry_wait = sim::duration::from_s(365LL * 24 * 3600);
inline constexpr sim::duration max_long_poll = sim::duration::from_s(20);
inline constexpr std::uint32_t max_messages_per_receive = 10;
// "Only one PurgeQueue operation on <queue> is allowed every 60 seconds."
inline constexpr sim::duration purge_interval = sim::duration::from_s(60);

}  // namespace twice
