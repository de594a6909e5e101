#pragma once
// One message queue with the semantics of an Amazon SQS standard queue, or
// (queue_config::fifo) of an SQS FIFO queue: see "FIFO queues" below.
// Every behaviour below is what SQS documents (or what public tests against
// AWS show); where SQS leaves a choice open we say which one we made.
//
//  * send(body, delay): the message is hidden for `delay` (0..900 s; the
//    queue's DelaySeconds when none is given), then visible. The message id
//    never changes; the sent time never changes.
//  * receive: takes 1..10 visible messages (fewer if fewer are visible),
//    in the order they first became visible, and leases each for a
//    visibility timeout (the queue's default, or one given on this receive,
//    for this receive only). A message whose lease ended (expired, or a
//    change of visibility to 0) keeps its place: it is served before the
//    messages that became visible after it first did. SQS's ordering is
//    best effort, but its recorded answer returns the requeued message
//    first (LocalStack's AWS-validated test_inflight_message_requeue).
//    Out-of-range options answer invalid_parameter (InvalidParameterValue).
//    Each delivery returns a fresh receipt handle and increments the
//    message's receive count. A long poll (wait 0..20 s) returns as soon as
//    at least one message is visible, or empty when the wait ends. A short
//    poll sees every visible message: SQS's sampling of a subset of servers
//    (an empty short poll while messages wait) is not modelled. A receive
//    that names no wait uses the queue's ReceiveMessageWaitTimeSeconds.
//  * change_visibility(handle, timeout): the heartbeat and the nack. The new
//    timeout counts from the call; 0 makes the message visible at once. The
//    total time a message stays in flight after a receive may not pass 12 h.
//    - after the lease expired (and nobody received it again): answers OK and
//      does nothing.
//    - with an OLD handle while the message is in flight under a newer
//      receive: SQS still applies it, to the copy now in flight. A worker
//      cannot learn from SQS that it lost its lease. (handle_semantics::strict
//      answers `stale_handle` instead, as Pub/Sub exactly-once delivery does:
//      only the latest handle counts.)
//    - once the message is gone (deleted, expired, redriven, purged):
//      message_not_available (SQS's InvalidParameterValue, "Message does not
//      exist or is not available for visibility timeout change").
//    - a handle this queue never issued: invalid_handle.
//    - strict semantics answer `stale_handle` for any handle older than the
//      latest, in flight or not; the latest handle behaves as on SQS.
//  * delete(handle): repeating it is fine; an expired handle still deletes a
//    message nobody has received again. With a stale handle (the message was
//    received again since) SQS only promises it "might not" be deleted. We
//    pick: NOT deleted, and the call answers OK — the more dangerous reading,
//    so the simulator shows its consequence (the message comes back).
//    Strict semantics answer `stale_handle`. Once a message is gone
//    (deleted, expired, redriven, purged) a delete with any of its handles
//    answers OK, as AWS does (test_delete_message_with_deleted_receipt_handle,
//    test_message_retention_with_inflight). Its handles are remembered until
//    its retention would have ended, or 12 h after it left if that is later
//    (no lease outlives 12 h); then they are forgotten, so memory stays
//    bounded, and a delete answers invalid_handle as for one never issued.
//  * purge: every message held (visible, delayed, in flight) is deleted at
//    once; a second purge within 60 s answers purge_in_progress. SQS takes
//    "up to 60 seconds" and may also delete messages sent meanwhile: not
//    modelled (the purge is instant and exact).
//  * batches (broker/queue_batch.hpp): delete and change visibility for
//    1..10 entries, each with its own answer.
//  * redrive: with a dead-letter target and max_receive_count N (1..1000),
//    the receive that would be delivery N+1 instead moves the message to the
//    dead-letter queue, where it keeps its id and sent time and its receive
//    count carries on. That receive then goes on looking for other messages.
//    A max_receive_count without a dead-letter target is a programmer error
//    (SQS's redrive policy always names both), checked at the redrive.
//  * fair queues: a message may carry a group (SQS's MessageGroupId on a
//    standard queue: the tenant). A group is a noisy neighbour while it has
//    more than 10% of the queue's in-flight messages and at least 30 of its
//    own in flight; while one is, a receive takes the oldest visible message
//    of a quiet group (or one without a group: each is its own tenant) when
//    there is one, and otherwise the oldest of the noisy group with the
//    fewest in flight. Noisy messages are delayed, never dropped ("How
//    Amazon SQS fair queues work", Developer Guide). Not modelled: the
//    second measure SQS uses, a tenant's recent share of consumer
//    processing time (no consumer time is visible to the broker here).
//  * retention (60 s .. 14 days, default 4 days): a message is deleted once
//    `retention` has passed since it was first sent — in the dead-letter
//    queue too, counted from the original enqueue (SQS standard queues keep
//    the enqueue timestamp on redrive), so a dead letter nobody reads
//    eventually disappears, and the trace shows when. A message redriven
//    after the DLQ's retention has already passed expires on arrival.
//    Retention ends a message wherever it is: visible, delayed or in flight.
//
// FIFO queues (queue_config::fifo), where they differ from the above:
//  * send_message needs a group (MissingParameter) and a deduplication id,
//    unless the queue has content-based deduplication (InvalidParameterValue);
//    a per-message delay other than 0 answers invalid_parameter (the queue's
//    DelaySeconds applies). A send whose deduplication id was accepted in the
//    last 5 minutes is accepted and dropped (broker/dedup_window.hpp): it
//    answers the first message's id.
//  * receive order and group blocking: broker/fifo_order.hpp.
//  * delete and change_visibility need the latest handle while its lease
//    lasts; otherwise, while the message is held, they answer
//    receipt_handle_expired ("The receipt handle has expired.", AWS-validated
//    test_fifo_delete_after_visibility_timeout; for a change of visibility
//    not recorded, taken to be the same). A gone message's handles delete OK
//    as on a standard queue.
//  * no injected duplicate deliveries or lost deletes: FIFO's exactly-once
//    processing rules them out (the faults seam is not asked).
//  * a purge also forgets every deduplication id.
//
// Held until the ack (queue_config::hold_until_ack: Sidekiq's BasicFetch, a
// Redis list read with BRPOP; sidekiq/sidekiq v8.1.7, lib/sidekiq/fetch.rb),
// where it differs from the above:
//  * a received message has no lease: no timer brings it back. It stays with
//    the process that took it until a delete (the job finished) or a
//    change of visibility (a retry: the job waits in the retry set, then
//    goes to the BACK of the queue, as Sidekiq's poller LPUSHes it). Such a
//    retry may wait longer than 12 h (Sidekiq's 25th waits ~4.5 days).
//  * drop_held: the process died (SIGKILL, OOM) and the message with it
//    ("If Sidekiq crashes while processing that job, it is lost forever",
//    the Reliability wiki).
//  * requeue_held: the process pushed it back (bulk_requeue at a hard
//    shutdown, RPUSH: it is the next message served).
//  * no retention (a Redis list keeps its entries), and no injected
//    duplicate deliveries or lost deletes (a pop is exactly once).
//  * super_fetch (Sidekiq Pro's reliable fetch): a fetched job is also kept
//    in its process's private working list, so a process that dies orphans
//    it (orphan_held) instead of losing it. A process that starts
//    (recover_orphans, called by the runtime) looks for orphans "if the
//    process's heartbeat has expired (it takes 60 seconds to expire); AND if
//    an hour has passed since the last orphan check" (Sidekiq's wiki,
//    "Reliability"; Pro-Changes 3.4.1, "as often as every hour"): a pod that
//    restarts within the minute finds its own job not yet orphaned, and it
//    waits for the next start an hour on. A job recovered more than 3 times
//    within 72 h goes to the dead-letter queue instead (Pro 5.1's poison-pill
//    handling). Sidekiq Pro is not open source; where it puts a recovered
//    job is not documented, and it keeps its place here.
//
// Redis ack emulation (queue_config::redis_ack_emulation: Celery's Redis
// transport, celery/kombu@9ee8595b835c, kombu/transport/redis.py), where it
// differs from SQS standard:
//  * a receive (BRPOP) puts the message in the `unacked` hash, stamped with
//    the time it was taken (QoS.append). Its visibility timeout (3600 s by
//    default) counts from then, whether the consumer runs it at once, keeps
//    it prefetched, or holds it for a later ETA; nothing extends it (there
//    is no change of visibility), and a receive cannot ask for another (it
//    is the transport's option, not the consumer's).
//  * a message past its timeout is restored by the next sweep of
//    restore_visible: every consumer sweeps every unacked_restore_interval
//    (10 s) x unacked_restore_throttle (10), and the first sweep after
//    `received + timeout` restores it (`restore_sweep`, 100 s: the sweeps
//    are modelled on one clock from time 0, and they run whether or not a
//    consumer is alive). A restored message is RPUSHed to the end BRPOP
//    reads: it keeps its place before everything sent after it first was.
//  * delete (the ack) removes the message only while it is unacked under
//    that handle; after its restore the old handle's ack finds nothing and
//    the restored copy stays (QoS.ack: zrem/hdel of that tag only).
//  * requeue_held: restore_unacked at a warm shutdown, RPUSHed to the end
//    BRPOP reads: ahead of every message waiting, so of messages pushed back
//    one after another the last is read first (the runtime pushes them in
//    delivery order, as restore_unacked walks _delivered);
//    reject_requeue: reject(requeue=True), LPUSHed to the back.
//  * no retention, no delays, no redrive, and no injected duplicate
//    deliveries or lost deletes.
//  * a message may carry an ETA (Celery's `eta` header), which the broker
//    keeps and hands to each consumer that takes it; it does not hold the
//    message back (the consumer does).
//
// A Pub/Sub subscription (queue_config::pubsub; google/pubsub/v1, the
// Subscription, ModifyAckDeadlineRequest, RetryPolicy and DeadLetterPolicy
// fields as googleapis/python-pubsub@63796ff3def3 documents them), where it
// differs from SQS standard:
//  * the visibility timeout is the subscription's ack deadline (10..600 s,
//    default 10 s); a change of visibility is a modifyAckDeadline, 0..600 s
//    from the call, with no limit on the total time a message is held (the
//    client's lease management stops at its own max_lease_duration).
//  * retention (message_retention_duration) runs from 10 minutes to 31 days,
//    7 days by default; the redrive (a dead-letter policy's
//    max_delivery_attempts) takes 5..100 deliveries (checked by the loader).
//  * a nack (a modifyAckDeadline of 0) redelivers the message at once,
//    unless the subscription has a RetryPolicy: then it waits that
//    policy's backoff for its delivery count (broker/pubsub_retry_policy.hpp).
//    The policy's delay after an expired ack deadline is not modelled: the
//    message is redelivered as the deadline passes.
//  * semantics strict is exactly-once delivery: an ack or modack with an
//    ack id that is not the latest fails, and no duplicate delivery or lost
//    ack is injected ("not resent before the message's acknowledgment
//    deadline expires", "an acknowledged message will not be resent").
//    Without it (at-least-once) both may be, as on SQS.
//
// Trace (actor "queue/<name>"; "body" is the job id, for joins): send,
// receive, receive_empty, duplicate_delivery, change_visibility,
// lease_expired, delay_ended, delete, delete_lost, redrive, redrive_in,
// retention_expired, moved_out, purge, send_deduplicated, lost_with_process,
// pushed_back (also a Celery restore at a warm shutdown).
//
// Faults are not part of the model: a queue_faults object, set from outside,
// is asked at the two seams where SQS misbehaves (a rare duplicate delivery
// without any crash; a delete acknowledged to the caller but lost).

#include <cstdint>
#include <functional>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <twice/broker/pubsub_retry_policy.hpp>
#include <twice/broker/queue_config.hpp>
#include <twice/events/queue_status.hpp>
#include <twice/events/event_log.hpp>
#include <twice/sim/condition.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/sim/trace.hpp>

#include "broker/dedup_window.hpp"
#include "broker/fifo_order.hpp"
#include "broker/tombstone_table.hpp"

namespace twice {

using message_id = std::uint64_t;
using receipt_handle = std::uint64_t;

// Message ids and receipt handles are unique across every queue of one
// world (a redriven message keeps its id in the dead-letter queue), so the
// queues of a world share one source.
struct queue_id_source {
  message_id next_message = 1;
  receipt_handle next_handle = 1;
};

struct received_message {
  message_id id = 0;
  receipt_handle handle = 0;
  std::string body;
  std::uint32_t receive_count = 0;  // including this delivery
  sim::instant sent_at;
  std::optional<sim::instant> eta;  // Redis ack emulation: the ETA it was sent with
};

struct send_request {
  std::string body;
  // None: the queue's DelaySeconds. FIFO queues take none, or 0 (the queue's too).
  std::optional<sim::duration> delay;
  std::string group;                // MessageGroupId: required on FIFO; on a standard queue, the fair-queue tenant
  std::string deduplication_id;     // MessageDeduplicationId: FIFO only
  std::optional<sim::instant> eta;  // Redis ack emulation only: Celery's eta header
};

struct send_result {
  queue_status status = queue_status::ok;
  message_id id = 0;          // the new message, or the one a deduplicated send matched
  bool deduplicated = false;  // accepted but not delivered
};

struct receive_options {
  std::uint32_t max_messages = 1;                   // 1..10
  std::optional<sim::duration> wait;                // long poll, 0..20 s; none: the queue's receive_wait
  std::optional<sim::duration> visibility_timeout;  // this receive only, 0..12 h
};

// ok, or invalid_parameter: "Must be >= 0 and <= 20, if provided" (wait),
// "Must be between 1 and 10, if provided" (max_messages).
queue_status check_receive_options(const receive_options& options);

struct receive_result {
  queue_status status = queue_status::ok;
  std::vector<received_message> messages;
};

// Seams for fault injection, implemented outside the model.
class queue_faults {
 public:
  virtual ~queue_faults() = default;
  // Asked on each delivery: true leaves the message visible as well, so a
  // second consumer receives it too (a duplicate without any crash).
  virtual bool duplicate_delivery(const received_message&) { return false; }
  // Asked on each delete that would succeed: true loses it on the way; the
  // caller hears OK and the message reappears when its lease expires.
  virtual bool lose_delete(message_id) { return false; }
};

struct queue_stats {
  std::size_t visible = 0;  // receivable now
  // Sent with a delay not yet passed; held until the ack (Sidekiq), also a
  // retry waiting in the retry set (scheduled: with no process).
  std::size_t delayed = 0;
  std::size_t in_flight = 0;  // leased, lease not yet expired; held until the ack: with the process that took it
  // Of the oldest message still in the queue (any state), counted from when
  // it entered THIS queue: for a DLQ that is the redrive, as CloudWatch's
  // ApproximateAgeOfOldestMessage counts it. Exact, not approximate; zero
  // when the queue is empty.
  sim::duration oldest_age;
  std::uint64_t sent = 0, received = 0, deleted = 0, expired = 0, redriven = 0;
  std::uint64_t purged = 0;
  std::uint64_t lost_with_process = 0;  // hold_until_ack: held by a process that died
  std::uint64_t moved_out = 0;          // by move tasks (a dead-letter redrive back to the source)
  std::map<std::uint32_t, std::uint64_t> receive_count_histogram;  // receive count at delete/redrive/expiry -> messages
};

// Kernel callbacks hold a pointer to the queue: it must outlive the runs of
// its kernel. Fault seams and trace observers must not call back into it.
class queue {
 public:
  queue(sim::kernel& k, event_log& events, queue_id_source& ids, queue_config config);
  queue(const queue&) = delete;
  queue& operator=(const queue&) = delete;

  const queue_config& config() const { return config_; }
  void set_dead_letter(queue* dlq);  // redrive target; needs max_receive_count > 0
  // The random stream of the scheduled poller's waits; needs scheduled_poll_average > 0.
  void set_scheduled_poller(sim::random_stream waits);
  void set_faults(queue_faults* faults);  // not owned; nullptr = none
  // A condition notified, besides this queue's own long pollers, whenever a
  // message becomes visible: a consumer of several queues waits on one
  // condition for all of them (runtime/weighted_fetch.hpp). Not owned.
  void set_watcher(sim::condition* watcher) { watcher_ = watcher; }

  // `group`: the message group id (the tenant, for fair delivery); empty: none.
  // `delay`: none takes the queue's; out of 0..900 s is a programmer error
  // here (the scenario loader checks what users write).
  // On a FIFO queue the body is also the deduplication id, and the group
  // when none is given (the runtime's sends of a job id); a deduplicated
  // send returns the first message's id.
  message_id send(std::string body, std::optional<sim::duration> delay = std::nullopt, std::string_view group = {});
  // SendMessage on either kind, answering as SQS does.
  send_result send_message(send_request request);
  sim::task<receive_result> receive(receive_options options = {});
  // What a receive would take now (options.wait is ignored), without
  // waiting and without recording an empty receive: one step of a consumer
  // that looks at several queues in turn. The options must be valid.
  std::vector<received_message> take_now(const receive_options& options);
  // Records a receive that found nothing after `waited` (a consumer of
  // several queues records it on the one it looked at first).
  void note_empty_receive(sim::duration waited);
  queue_status change_visibility(receipt_handle handle, sim::duration timeout);
  queue_status delete_message(receipt_handle handle);
  // hold_until_ack only, with the handle of a message held (received, not
  // deleted or retried since): ok, or invalid_handle.
  queue_status drop_held(receipt_handle handle);
  queue_status requeue_held(receipt_handle handle);
  // hold_until_ack only: a new copy of a job goes into the retry set, due
  // after `delay` and back in the queue at the scheduled poller's next look
  // (JobRetry's ZADD of a new payload, job_retry.rb). Returns its id.
  message_id schedule_retry(std::string body, sim::duration delay);
  // super_fetch, with the handle of a message held: its process died, and
  // the message waits to be recovered. ok, or invalid_handle.
  queue_status orphan_held(receipt_handle handle);
  // super_fetch: a process starts and recovers the orphans whose owner's
  // heartbeat has expired. Returns how many it recovered (or dead-lettered).
  std::size_t recover_orphans();
  // Redis ack emulation, with the handle of a message held: kombu's
  // reject(requeue=True), the message LPUSHed to the back. ok, or invalid_handle.
  queue_status reject_requeue(receipt_handle handle);
  // PurgeQueue: ok (every message deleted), or purge_in_progress.
  queue_status purge();
  // A message move task (SQS StartMessageMoveTask), run to its end at once:
  // every visible message, oldest first, leaves this queue and is sent to
  // `target` as a new message (a new id and enqueue time, so its retention
  // starts again, and a receive count of zero). In-flight messages stay.
  // Returns how many moved. SQS's optional move rate is not modelled.
  // With `which`, only the messages whose body it accepts move.
  std::size_t move_visible_to(queue& target, const std::function<bool(std::string_view body)>& which = {});
  // The bodies of the visible messages, oldest first.
  std::vector<std::string> visible_bodies() const;
  // Every message the queue still holds, in any state (visible, delayed, in
  // flight, held by a process, orphaned), with when retention will delete
  // it (none on a Redis list, which keeps its entries for ever), in id
  // order: for the invariants' final look at what a run left behind.
  struct held_view {
    std::string_view body;
    std::optional<sim::instant> retention_ends;
  };
  void for_each_message(const std::function<void(const held_view&)>& fn) const;

  queue_stats stats() const;
  // Whether message `id` is still held by this queue (for checkers).
  bool contains(message_id id) const;
  // Whether the message `handle` was issued for is still here and no longer
  // leased under it: received again, visible again or restored since. An
  // ack with that handle that answered OK then deleted nothing.
  bool given_out_since(receipt_handle handle) const;
  // Messages held: visible, delayed or in flight.
  std::size_t size() const { return messages_.size(); }
  // Bytes held (sim/footprint.hpp): messages, receipt handles, tombstones.
  std::uint64_t footprint() const;
  // The trace actor of this queue: "queue/<name>".
  const std::string& actor() const { return actor_; }

 private:
  // One record per message. Kernel timers name a message by id and carry
  // the version they were armed for, so a timer that a later visibility
  // change (a heartbeat, a delete, a new receive) made obsolete does nothing.
  struct message {
    message_id id = 0;
    std::string body;
    ev::name_id body_name = 0;  // the body in the event log's names
    sim::instant sent_at;       // original enqueue; kept on redrive (retention counts from it)
    sim::instant entered_at;    // when this queue got it (send, or redrive into a DLQ)
    std::uint32_t receive_count = 0;
    message_state state = message_state::visible;
    sim::instant visible_at;           // delayed / in flight: when it becomes visible; visible: since when
    sim::instant received_at;          // start of the current lease: the 12 h limit counts from it
    receipt_handle latest_handle = 0;  // 0: never received in this queue
    std::uint64_t version = 0;         // bumped on every visibility change
    // Its place in the receive order: when it first became visible here
    // (a Celery push-back at a warm shutdown: just before the head).
    sim::instant queued_at;
    // Its handles in this queue are those of its rows in handle_rows_ from
    // handles_from on: a message redriven away and back starts a new list.
    receipt_handle handles_from = 0;
    std::uint32_t handles_issued = 0;
    bool grouped = false;
    ev::name_id group = 0;    // its MessageGroupId, when grouped
    std::uint64_t place = 0;  // FIFO: its place in the order of groups (broker/fifo_order.hpp)
    bool held = false;        // hold_until_ack: with the process that received it, not waiting out a retry
  };

  // Every receipt handle this queue issued, in issue order (ascending), with
  // its message: 16 bytes a delivery, where a tree node per handle was five
  // times that for a message redelivered without end. A row is live while
  // its message (or the message's tombstone) is here and the handle is of
  // its current stint; dead rows are dropped in batches (compact_handles).
  struct handle_row {
    receipt_handle handle = 0;
    message_id id = 0;
  };

  using message_map = std::map<message_id, message>;

  static void on_visibility_timer(sim::kernel& k, void* ctx, std::uint64_t arg);
  static void on_retention_timer(sim::kernel& k, void* ctx, std::uint64_t seq);
  void visibility_timer_fired(message_id id, std::uint64_t version_bits);
  void retention_due(std::uint64_t seq);
  void retention_timer_fired(message_id id);
  void schedule_soonest_retention();

  void arm_visibility_timer(message& m);
  void arm_retention_timer(const message& m);
  // An entry of retention_ for message `id` at `at`: its expiry, or when its
  // tombstone is forgotten.
  void arm_deadline(sim::instant at, message_id id);
  // `at_back`: a retry's re-enqueue takes a new place behind the backlog.
  void make_visible(message& m, bool at_back = false);
  // Pub/Sub's RetryPolicy: the message is no longer leased and waits `wait`
  // before it is delivered again (a delayed message, so no modack or late
  // ack reaches it meanwhile).
  void start_retry_backoff(message& m, sim::duration wait);
  // Redis ack emulation's RPUSH at a warm shutdown: its place in the receive
  // order becomes the first, ahead of every message waiting.
  void place_at_head(message& m);
  // The message `handle` names when it is held under it (hold_until_ack,
  // redis_ack_emulation).
  message_map::iterator held(receipt_handle handle);
  void notify_visible();
  // The visible index, and the fair-queue bookkeeping beside it.
  void note_group_seen();
  void index_visible(const message& m);
  void unindex_visible(const message& m);
  void count_in_flight(const message& m, bool entering);
  bool any_noisy_group() const;
  bool noisy(std::uint32_t in_flight) const;
  std::optional<message_id> fair_pick(const std::vector<message_id>& taken) const;
  void take_visible(const receive_options& options, std::vector<received_message>& out);
  void take_visible_fairly(const receive_options& options, std::vector<received_message>& out);
  void take_visible_fifo(const receive_options& options, std::vector<received_message>& out);
  message_id store_sent(std::string body, sim::duration delay, std::string_view group);
  // FIFO: what a delete or change of visibility with `handle` of held message `m` may do.
  bool fifo_lease_live(const message& m, receipt_handle handle) const;
  // The faults seam is asked only on an SQS standard queue: FIFO's
  // exactly-once processing, and a Redis pop (Sidekiq), have no duplicate
  // deliveries or lost deletes to inject.
  bool broker_faults_apply() const {
    const bool exactly_once = config_.pubsub && config_.semantics == handle_semantics::strict;
    return faults_ != nullptr && !fifo_ && !config_.hold_until_ack && !config_.redis_ack_emulation && !exactly_once;
  }
  // A Redis list (Sidekiq, Celery) keeps its entries: no retention.
  bool keeps_forever() const { return config_.hold_until_ack || config_.redis_ack_emulation || config_.dead_set; }
  // A death entering the dead set: trim it by age and size (see queue_config::dead_set).
  void trim_dead_set(message_id arriving);
  // The longest a lease may last: a handle is remembered at least this long after its message left.
  sim::duration longest_lease() const {
    return config_.redis_ack_emulation ? config_.visibility_timeout + config_.restore_sweep : max_visibility_timeout;
  }
  received_message deliver(message& m, sim::duration timeout);
  void redrive(message_map::iterator it);
  void accept_redriven(message m, const std::string& from);
  void expire(message_map::iterator it);
  void record_expiry(const message& m);
  // Erases the message and keeps its handles known for a while (a tombstone).
  void erase_message(message_map::iterator it);
  void forget_tombstone(message_id id);
  // The message a handle was issued for, while the handle is still known
  // (0: never issued here, or forgotten with its message).
  message_id message_of(receipt_handle handle) const;
  bool row_live(const handle_row& row) const;
  void forget_handles(std::uint32_t rows);
  void compact_handles();
  void count_final(std::uint32_t receive_count);
  queue_status apply_visibility(message& m, sim::duration timeout);

  sim::kernel& kernel_;
  event_log& events_;
  queue_id_source& ids_;
  queue_config config_;
  std::string actor_;
  ev::name_id actor_name_ = 0;
  queue* dead_letter_ = nullptr;
  queue_faults* faults_ = nullptr;

  message_map messages_;
  // (queued_at_us, id): receive takes the first-queued first, the lower id
  // on a tie. Holds exactly the messages in state visible.
  std::set<std::pair<std::int64_t, message_id>> visible_index_;
  // Fair queues: the visible messages again, by group (those without one
  // apart, kept only once a grouped message was sent: a queue without
  // groups pays nothing), and the messages in flight by group and in all.
  bool grouped_seen_ = false;
  std::map<ev::name_id, std::set<std::pair<std::int64_t, message_id>>> visible_by_group_;
  std::set<std::pair<std::int64_t, message_id>> visible_ungrouped_;
  std::map<ev::name_id, std::uint32_t> in_flight_by_group_;
  std::uint32_t in_flight_total_ = 0;
  std::vector<handle_row> handle_rows_;
  std::uint64_t forgotten_rows_ = 0;  // rows of handle_rows_ no longer live
  // A gone message's handles stay known until forget_at (its retention end,
  // or 12 h after it left if later), so a delete with one still answers OK;
  // then they are forgotten and memory stays bounded.
  tombstone_table gone_;
  std::optional<sim::instant> last_purge_;
  // Every message's retention deadline, soonest first by (time, place in the
  // kernel's order), the place taken when the message was stored. Only the
  // soonest waits in the kernel's event queue (an entry once it has been the
  // soonest): the kernel's heap holds a queue's next expiry rather than one
  // per message for four days, while every expiry still fires as its own
  // event at the place a timer armed then would have had.
  struct retention_entry {
    std::int64_t at_us;
    std::uint64_t seq;
    message_id id;
    bool scheduled;  // in the kernel's queue
  };
  std::vector<retention_entry> retention_;                  // a min-heap
  std::deque<std::pair<sim::instant, message_id>> deaths_;  // the dead set's entries, oldest death first
  // The scheduled poller's looks, drawn as far as a retry asked, from the
  // last one before now (see queue_config::scheduled_poll_average).
  std::optional<sim::random_stream> poller_waits_;
  std::deque<sim::instant> poller_looks_;
  sim::instant poller_drawn_until_;
  sim::instant scheduled_poll_at_or_after(sim::instant due);
  std::optional<fifo_order> fifo_;          // FIFO queues only
  dedup_window dedup_;                      // FIFO queues only
  std::map<message_id, sim::instant> eta_;  // Redis ack emulation: the messages sent with an ETA
  // super_fetch: the orphaned messages and since when; each message's
  // recoveries in the current 72 h window (count, window start).
  std::map<message_id, sim::instant> orphans_;
  std::map<message_id, std::pair<std::uint32_t, sim::instant>> recoveries_;
  std::optional<sim::instant> last_orphan_check_;
  std::uint64_t next_place_ = 0;
  sim::condition available_;  // long pollers wait here for a message to become visible
  sim::condition* watcher_ = nullptr;

  std::uint64_t sent_ = 0;
  std::uint64_t received_ = 0;
  std::uint64_t deleted_count_ = 0;
  std::uint64_t expired_ = 0;
  std::uint64_t redriven_ = 0;
  std::uint64_t moved_out_ = 0;
  std::uint64_t purged_ = 0;
  std::uint64_t lost_ = 0;
  std::map<std::uint32_t, std::uint64_t> receive_count_histogram_;
};

}  // namespace twice
