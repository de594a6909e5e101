#pragma once
// The broker's events (the vocabulary: events/trace_events.hpp).

#include <cstdint>
#include <string_view>

#include <twice/events/queue_status.hpp>
#include <twice/events/event_basics.hpp>
#include <twice/sim/time.hpp>

namespace twice::ev {

// ---- broker (actor queue/NAME) ---------------------------------------------------

// A message's body is the job id it carries.
struct send {
  static constexpr std::string_view kind = "send";
  std::uint64_t id = 0;
  name_id body = 0;
  sim::duration delay;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("delay_us", delay.us());
  }
};

struct receive_empty {
  static constexpr std::string_view kind = "receive_empty";
  sim::duration waited;
  template <class V>
  void fields(V& v) const {
    v.integer("waited_us", waited.us());
  }
};

struct receive {
  static constexpr std::string_view kind = "receive";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  sim::instant visible_until;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
    v.integer("receive_count", receive_count);
    v.integer("visible_until_us", visible_until.us());
  }
};

// A delivery without any crash (an injected broker fault).
struct duplicate_delivery {
  static constexpr std::string_view kind = "duplicate_delivery";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
    v.integer("receive_count", receive_count);
  }
};

// ChangeMessageVisibility; `visible_until` only when it was applied.
struct change_visibility {
  static constexpr std::string_view kind = "change_visibility";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  sim::duration timeout;
  queue_status status = queue_status::ok;
  bool applied = false;
  bool latest = false;
  sim::instant visible_until;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.integer("timeout_us", timeout.us());
    v.word("status", raw(status), to_string(status));
    v.boolean("applied", applied);
    v.boolean("latest", latest);
    if (applied) v.integer("visible_until_us", visible_until.us());
  }
};

struct delay_ended {
  static constexpr std::string_view kind = "delay_ended";
  std::uint64_t id = 0;
  name_id body = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
  }
};

// What held a message back, in its broker's words: SQS's visibility
// timeout; Pub/Sub's ack deadline; the visibility timeout of Celery's Redis
// transport, which the unacked sweep restores; Sidekiq's retry set (a
// fetch there has no lease: only a retry waits, and comes due).
enum class lease_kind : std::uint8_t { visibility_timeout, ack_deadline, redis_visibility, retry_set };
constexpr std::string_view to_string(lease_kind k) {
  switch (k) {
    case lease_kind::visibility_timeout:
      return "visibility_timeout";
    case lease_kind::ack_deadline:
      return "ack_deadline";
    case lease_kind::redis_visibility:
      return "redis_visibility";
    case lease_kind::retry_set:
      return "retry_set";
  }
  return "?";
}

// The message is visible again: its lease ran out, or the delay a nack set.
// `lease` is traced only when it is not SQS's visibility timeout.
struct lease_expired {
  static constexpr std::string_view kind = "lease_expired";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  lease_kind lease = lease_kind::visibility_timeout;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
    v.integer("receive_count", receive_count);
    if (lease != lease_kind::visibility_timeout) v.word("lease", raw(lease), to_string(lease));
  }
};

// DeleteMessage (the ack); `applied` when it removed the message.
struct message_delete {
  static constexpr std::string_view kind = "delete";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  queue_status status = queue_status::ok;
  bool applied = false;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
    v.word("status", raw(status), to_string(status));
    v.boolean("applied", applied);
  }
};

// A delete the broker answered OK but never applied (an injected fault).
struct delete_lost {
  static constexpr std::string_view kind = "delete_lost";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  queue_status status = queue_status::ok;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
    v.word("status", raw(status), to_string(status));
  }
};

// Moved to the dead-letter queue `to` (maxReceiveCount reached).
struct redrive {
  static constexpr std::string_view kind = "redrive";
  std::uint64_t id = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  name_id to = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("receive_count", receive_count);
    v.name("to", to);
  }
};

// Arrived from the queue `from` (on the dead-letter queue's side).
struct redrive_in {
  static constexpr std::string_view kind = "redrive_in";
  std::uint64_t id = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  name_id from = 0;
  sim::instant expires_at;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("receive_count", receive_count);
    v.name("from", from);
    v.integer("expires_at_us", expires_at.us());
  }
};

struct retention_expired {
  static constexpr std::string_view kind = "retention_expired";
  std::uint64_t id = 0;
  name_id body = 0;
  sim::duration age;
  std::int64_t receive_count = 0;
  message_state state = message_state::visible;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("age_us", age.us());
    v.integer("receive_count", receive_count);
    v.word("state", raw(state), to_string(state));
  }
};

// Moved out by a message move task (SQS StartMessageMoveTask: a redrive
// from the dead-letter queue back to the source queue `to`), where it
// arrives as a new message, `new_id` (its `send` event follows).
struct moved_out {
  static constexpr std::string_view kind = "moved_out";
  std::uint64_t id = 0;
  name_id body = 0;
  std::int64_t receive_count = 0;
  name_id to = 0;
  std::uint64_t new_id = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("receive_count", receive_count);
    v.name("to", to);
    v.integer("new_id", static_cast<std::int64_t>(new_id));
  }
};

// PurgeQueue: `messages` deleted (visible, delayed and in flight), or none
// and purge_in_progress for a second purge within 60 s.
struct purge {
  static constexpr std::string_view kind = "purge";
  std::int64_t messages = 0;
  queue_status status = queue_status::ok;
  template <class V>
  void fields(V& v) const {
    v.integer("messages", messages);
    v.word("status", raw(status), to_string(status));
  }
};

// A FIFO queue accepted a send whose deduplication id (or body, with
// content-based deduplication) it had accepted within the last 5 minutes,
// and kept nothing: "accepted successfully but aren't delivered". `id` is
// the message first accepted under it.
struct send_deduplicated {
  static constexpr std::string_view kind = "send_deduplicated";
  std::uint64_t id = 0;
  name_id body = 0;
  name_id deduplication_id = 0;  // empty name: content-based
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.name("deduplication_id", deduplication_id);
  }
};

// The producer's send of `body` that the broker accepted (as message `id`,
// or dropped as a duplicate of it) while the producer's call timed out: the
// producer never learns it went through and sends the job again
// `resend_after` later ([[queue_fault]] kind = "send_timeout").
struct send_timeout {
  static constexpr std::string_view kind = "send_timeout";
  std::uint64_t id = 0;
  name_id body = 0;
  sim::duration resend_after;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("resend_after_us", resend_after.us());
  }
};

// The producer's retry of a send that timed out: `body` sent again, taken
// as message `id`, or dropped as a duplicate of message `id` within the
// FIFO queue's 5-minute deduplication interval.
struct resent {
  static constexpr std::string_view kind = "resent";
  std::uint64_t id = 0;
  name_id body = 0;
  bool deduplicated = false;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.boolean("deduplicated", deduplicated);
  }
};

// A queue that holds a fetched message until its ack (Sidekiq's BasicFetch):
// the process holding it died, and the message with it.
struct lost_with_process {
  static constexpr std::string_view kind = "lost_with_process";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
  }
};

// Sidekiq Pro's super_fetch: the process holding a message died, and the
// message waits in its private working list for a live process to recover it.
struct orphaned {
  static constexpr std::string_view kind = "orphaned";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
  }
};

// super_fetch recovered an orphaned message: back in the queue, the
// `recoveries`-th time within 72 h.
struct orphan_recovered {
  static constexpr std::string_view kind = "orphan_recovered";
  std::uint64_t id = 0;
  name_id body = 0;
  std::uint32_t recoveries = 0;
  sim::duration orphaned_for;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("recoveries", recoveries);
    v.integer("orphaned_for_us", orphaned_for.us());
  }
};

// The same kind of queue: the process pushed a message it held back to the
// head of the queue (Sidekiq's bulk_requeue at a hard shutdown).
struct pushed_back {
  static constexpr std::string_view kind = "pushed_back";
  std::uint64_t id = 0;
  std::uint64_t handle = 0;
  name_id body = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.integer("handle", static_cast<std::int64_t>(handle));
    v.name("body", body);
  }
};

// The dead-letter queue's alarm went off (a CloudWatch alarm on
// ApproximateNumberOfMessagesVisible > 0, actor "operator"): `messages`
// held then; the on-call starts a redrive `redrive_at`.
struct dead_letter_alarm {
  static constexpr std::string_view kind = "dead_letter_alarm";
  std::int64_t messages = 0;
  sim::instant redrive_at;
  template <class V>
  void fields(V& v) const {
    v.integer("messages", messages);
    v.integer("redrive_at_us", redrive_at.us());
  }
};

// A CloudWatch alarm on the dead-letter queue changed state (actor
// "operator"): `alarm` is "depth" (ApproximateNumberOfMessagesVisible > 0)
// or "age" (ApproximateAgeOfOldestMessage at or past its threshold), `to`
// "ALARM" or "OK"; `value` the metric then (messages, or the age in us).
// Only OK -> ALARM runs the alarm's action, the page.
struct alarm_state {
  static constexpr std::string_view kind = "alarm_state";
  name_id alarm = 0;
  name_id to = 0;
  std::int64_t value = 0;
  template <class V>
  void fields(V& v) const {
    v.name("alarm", alarm);
    v.name("to", to);
    v.integer("value", value);
  }
};

// The pager opened incident `incident` for `alarm`'s page: the on-call
// looks `answer_at`; the pager resolves it by itself at `resolves_at`
// (its auto-resolve timeout; -1: never) unless someone acts first.
struct page {
  static constexpr std::string_view kind = "page";
  std::int64_t incident = 0;
  name_id alarm = 0;
  std::int64_t messages = 0;
  sim::instant answer_at;
  std::int64_t resolves_at_us = -1;
  template <class V>
  void fields(V& v) const {
    v.integer("incident", incident);
    v.name("alarm", alarm);
    v.integer("messages", messages);
    v.integer("answer_at_us", answer_at.us());
    v.integer("resolves_at_us", resolves_at_us);
  }
};

// Incident `incident` closed: `why` is "auto_resolve" (the pager's
// timeout), "alarm_ok" (the alarm's OK action resolved it) or "redriven"
// (the on-call ran the runbook).
struct page_resolved {
  static constexpr std::string_view kind = "page_resolved";
  std::int64_t incident = 0;
  name_id why = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("incident", incident);
    v.name("why", why);
  }
};

// The on-call came back to incident `incident` and found nothing open on
// the pager: no redrive; `messages` dead letters keep waiting.
struct page_unanswered {
  static constexpr std::string_view kind = "page_unanswered";
  std::int64_t incident = 0;
  std::int64_t messages = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("incident", incident);
    v.integer("messages", messages);
  }
};

// A re-notification (dead_letter_redrive_config::renotify_every): alarm
// `alarm` is still in ALARM and is published again. `incident` is the open
// incident of that alarm the pager groups it into (its dedup key), or 0
// when none is open, and the page that follows opens a new one.
struct renotify {
  static constexpr std::string_view kind = "renotify";
  name_id alarm = 0;
  std::int64_t incident = 0;
  template <class V>
  void fields(V& v) const {
    v.name("alarm", alarm);
    v.integer("incident", incident);
  }
};

}  // namespace twice::ev
