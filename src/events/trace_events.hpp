#pragma once
// The run's vocabulary: every observable step a model takes is one typed
// event, a payload struct below. Models emit them (events/event_log.hpp);
// observers (the world's own bookkeeping, the invariant checkers, the
// attempt collector) receive them through a typed callback and never learn
// what happened by matching a string. Text exists only at the output edge.
//
// Names (job ids, keys, invoices, shas, free text such as an error) are
// name_ids interned in the world's name_table (events/name_table.hpp): a
// payload is a few integers. Enumerations are the models' own.
//
// Each payload lists its fields once, in `fields(v)`, in the order they are
// written: that list is the event's text form at the output edge (today also
// the trace record the digest is computed from, sim/trace.hpp) and nothing
// else may be written. A visitor `v` has
//   v.name(field, name_id)                    a name, written as its text
//   v.integer(field, std::int64_t)
//   v.boolean(field, bool)
//   v.word(field, std::uint8_t value, text)   an enumeration: its value and its word
// Field names are string literals (static storage).

#include <cstdint>
#include <string_view>
#include <variant>

#include "broker/queue_status.hpp"
#include "runtime/discipline.hpp"
#include "sim/time.hpp"
#include "store/job_status.hpp"

namespace twice::ev {

using name_id = std::uint32_t;  // an interned text; 0 is the empty text

// Why a worker's pod stopped. A drain's grace period running out is the one
// the drain invariant is about, so it is a value, not a sentence to match.
enum class stop_reason : std::uint8_t { shutdown, rolling_kill, drained, grace_period_expired };
std::string_view to_string(stop_reason);

template <class E>
constexpr std::uint8_t raw(E e) {
  return static_cast<std::uint8_t>(e);
}

// ---- worker (actor worker/N) ---------------------------------------------------

// A tool call begins (worker or relay: the relay's has no attempt or sha and
// names its outbox row).
struct tool_start {
  static constexpr std::string_view kind = "tool_start";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  name_id sha = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.name("sha", sha);
  }
};

// A tool call answered (or timed out: status 0).
struct tool_call {
  static constexpr std::string_view kind = "tool_call";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  name_id sha = 0;
  std::int64_t status = 0;
  name_id error = 0;
  name_id ref = 0;
  bool replayed = false;
  bool new_write = false;  // the far side acted anew
  sim::instant started;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.name("sha", sha);
    v.integer("status", status);
    v.name("error", error);
    v.name("ref", ref);
    v.boolean("replayed", replayed);
    v.boolean("new_write", new_write);
    v.integer("started_us", started.us());
  }
};

// An injected fault at a suspension point of the handler: the pod dies, or
// the handler raises.
struct fault_crash {
  static constexpr std::string_view kind = "fault_crash";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id point = 0;
  std::int64_t step = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("point", point);
    v.integer("step", step);
  }
};
struct fault_error {
  static constexpr std::string_view kind = "fault_error";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id point = 0;
  std::int64_t step = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("point", point);
    v.integer("step", step);
  }
};

struct checkpoint {
  static constexpr std::string_view kind = "checkpoint";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::int64_t step = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("step", step);
  }
};

// The slice's lease token was superseded (fencing on the job row).
struct fenced {
  static constexpr std::string_view kind = "fenced";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::uint64_t token = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("token", static_cast<std::int64_t>(token));
  }
};

struct pod_start {
  static constexpr std::string_view kind = "start";
  name_id sha = 0;
  template <class V>
  void fields(V& v) const {
    v.name("sha", sha);
  }
};

// The pod died (an injected or timed crash); `job` is 0 with nothing in flight.
struct crash {
  static constexpr std::string_view kind = "crash";
  name_id why = 0;
  name_id sha = 0;
  bool in_flight = false;
  name_id job = 0;
  template <class V>
  void fields(V& v) const {
    v.name("why", why);
    v.name("sha", sha);
    v.boolean("in_flight", in_flight);
    v.name("job", job);
  }
};

struct drain {
  static constexpr std::string_view kind = "drain";
  bool in_flight = false;
  template <class V>
  void fields(V& v) const {
    v.boolean("in_flight", in_flight);
  }
};

// The pod was stopped; a slice in flight was killed with it.
struct stop {
  static constexpr std::string_view kind = "stop";
  stop_reason why = stop_reason::shutdown;
  bool in_flight = false;
  name_id job = 0;
  template <class V>
  void fields(V& v) const {
    v.word("why", raw(why), to_string(why));
    v.boolean("in_flight", in_flight);
    v.name("job", job);
  }
};

struct slice_end {
  static constexpr std::string_view kind = "slice_end";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id how = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("how", how);
  }
};

// The consumer loop caught something the handler did not.
struct runtime_error {
  static constexpr std::string_view kind = "runtime_error";
  name_id job = 0;
  name_id error = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("error", error);
  }
};

// A delivery of a job that has already ended.
struct already_ended {
  static constexpr std::string_view kind = "already_ended";
  name_id job = 0;
  job_status status = job_status::done;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.word("status", raw(status), to_string(status));
  }
};

// An attempt starts on the job row: `checkpoint` is the last durable step
// (-1: none).
struct attempt_start {
  static constexpr std::string_view kind = "attempt_start";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id sha = 0;
  std::uint64_t message = 0;
  std::int64_t receive_count = 0;
  std::int64_t checkpoint = -1;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("sha", sha);
    v.integer("message", static_cast<std::int64_t>(message));
    v.integer("receive_count", receive_count);
    v.integer("checkpoint", checkpoint);
  }
};

// The slice gave up its work without finishing it (its lease was lost).
struct abandoned {
  static constexpr std::string_view kind = "abandoned";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id why = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("why", why);
  }
};

// The message given back with a visibility delay (the backoff).
struct nack {
  static constexpr std::string_view kind = "nack";
  name_id job = 0;
  std::uint32_t attempt = 0;
  queue_status status = queue_status::ok;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.word("status", raw(status), to_string(status));
  }
};

// The delay chosen before the next attempt, with what bounded it.
struct backoff {
  static constexpr std::string_view kind = "backoff";
  name_id job = 0;
  std::uint32_t attempt = 0;
  name_id error = 0;
  sim::duration delay;
  sim::duration envelope;
  sim::duration cap;
  sim::duration retry_after;
  retry_mode mode = retry_mode::nack;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("error", error);
    v.integer("delay_us", delay.us());
    v.integer("envelope_us", envelope.us());
    v.integer("cap_us", cap.us());
    v.integer("retry_after_us", retry_after.us());
    v.word("mode", raw(mode), to_string(mode));
  }
};

// The job ended on its row (`attempt` may be -1 for a parent failed by its
// split-out job before any attempt of its own).
struct job_done {
  static constexpr std::string_view kind = "job_done";
  name_id job = 0;
  std::int64_t attempt = 0;
  name_id error = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("error", error);
  }
};
struct job_failed {
  static constexpr std::string_view kind = "job_failed";
  name_id job = 0;
  std::int64_t attempt = 0;
  name_id error = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.name("error", error);
  }
};

struct ack {
  static constexpr std::string_view kind = "ack";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::uint64_t message = 0;
  queue_status status = queue_status::ok;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("message", static_cast<std::int64_t>(message));
    v.word("status", raw(status), to_string(status));
  }
};

// The runtime dead-lettered the job after `attempts` attempts.
struct dead_letter {
  static constexpr std::string_view kind = "dead_letter";
  name_id job = 0;
  std::int64_t attempts = 0;
  name_id reason = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempts", attempts);
    v.name("reason", reason);
  }
};

// A step handed off as a job of its own (`to`), to a queue whose lease fits it.
struct hand_off {
  static constexpr std::string_view kind = "hand_off";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::int64_t step = 0;
  name_id to = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("step", step);
    v.name("to", to);
  }
};

// A parent job resumed after its split-out job `from` ended.
struct resume {
  static constexpr std::string_view kind = "resume";
  name_id job = 0;
  std::int64_t step = 0;
  name_id from = 0;
  name_id why = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("step", step);
    v.name("from", from);
    v.name("why", why);
  }
};

struct heartbeat {
  static constexpr std::string_view kind = "heartbeat";
  name_id job = 0;
  std::uint32_t attempt = 0;
  queue_status status = queue_status::ok;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.word("status", raw(status), to_string(status));
  }
};

struct lease_lost {
  static constexpr std::string_view kind = "lease_lost";
  name_id job = 0;
  std::uint32_t attempt = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
  }
};

// ---- outbox relay (actor relay) ----------------------------------------------------

struct relay_crash {
  static constexpr std::string_view kind = "crash";
  name_id why = 0;
  template <class V>
  void fields(V& v) const {
    v.name("why", why);
  }
};

struct relay_tool_start {
  static constexpr std::string_view kind = "tool_start";
  name_id job = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  std::uint64_t outbox_id = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.integer("outbox_id", static_cast<std::int64_t>(outbox_id));
  }
};

struct relay_tool_call {
  static constexpr std::string_view kind = "tool_call";
  name_id job = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  std::int64_t status = 0;
  name_id error = 0;
  name_id ref = 0;
  bool replayed = false;
  bool new_write = false;
  sim::instant started;
  std::uint64_t outbox_id = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.integer("status", status);
    v.name("error", error);
    v.name("ref", ref);
    v.boolean("replayed", replayed);
    v.boolean("new_write", new_write);
    v.integer("started_us", started.us());
    v.integer("outbox_id", static_cast<std::int64_t>(outbox_id));
  }
};

// The relay sent an outbox row (`relayed`) or gave up on it.
struct relayed {
  static constexpr std::string_view kind = "relayed";
  name_id job = 0;
  name_id key = 0;
  std::int64_t status = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("key", key);
    v.integer("status", status);
  }
};
struct relay_gave_up {
  static constexpr std::string_view kind = "relay_gave_up";
  name_id job = 0;
  name_id key = 0;
  std::int64_t status = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("key", key);
    v.integer("status", status);
  }
};

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

// The message is visible again: its lease ran out, or the delay a nack set.
struct lease_expired {
  static constexpr std::string_view kind = "lease_expired";
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

// ---- vendors (actor vendor/NAME) -------------------------------------------------

// A request arrived; `amount` only for a payment (has_amount).
struct vendor_request {
  static constexpr std::string_view kind = "request";
  std::uint64_t req = 0;
  name_id key = 0;
  name_id target = 0;
  bool has_amount = false;
  std::int64_t amount = 0;
  name_id verdict = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("key", key);
    v.name("target", target);
    if (has_amount) v.integer("amount", amount);
    v.name("verdict", verdict);
  }
};

// A stored answer replayed for a key seen before.
struct vendor_replay {
  static constexpr std::string_view kind = "replay";
  std::uint64_t req = 0;
  name_id key = 0;
  std::int64_t status = 0;
  name_id ref = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("key", key);
    v.integer("status", status);
    v.name("ref", ref);
  }
};

struct vendor_execute {
  static constexpr std::string_view kind = "execute";
  std::uint64_t req = 0;
  sim::duration latency;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("latency_us", latency.us());
  }
};

struct vendor_response_lost {
  static constexpr std::string_view kind = "response_lost";
  std::uint64_t req = 0;
  name_id ref = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
  }
};

// A refund committed to the vendor's own ledger.
struct vendor_commit {
  static constexpr std::string_view kind = "commit";
  std::uint64_t req = 0;
  name_id ref = 0;
  name_id key = 0;
  std::int64_t amount = 0;
  name_id target = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
    v.name("key", key);
    v.integer("amount", amount);
    v.name("target", target);
  }
};

struct vendor_execution_error {
  static constexpr std::string_view kind = "execution_error";
  std::uint64_t req = 0;
  std::int64_t status = 0;
  name_id error_code = 0;
  name_id key = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("status", status);
    v.name("error_code", error_code);
    v.name("key", key);
  }
};

struct vendor_reject {
  static constexpr std::string_view kind = "reject";
  std::uint64_t req = 0;
  std::int64_t status = 0;
  name_id error_code = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("status", status);
    v.name("error_code", error_code);
  }
};

struct vendor_client_timeout {
  static constexpr std::string_view kind = "client_timeout";
  std::uint64_t req = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
  }
};

struct vendor_answered {
  static constexpr std::string_view kind = "answered";
  std::uint64_t req = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
  }
};

// An email the provider sent: the `count`-th to that recipient.
struct email_sent {
  static constexpr std::string_view kind = "sent";
  std::uint64_t req = 0;
  name_id ref = 0;
  name_id recipient = 0;
  name_id reference = 0;
  std::int64_t count = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
    v.name("recipient", recipient);
    v.name("reference", reference);
    v.integer("count", count);
  }
};

struct key_pruned {
  static constexpr std::string_view kind = "key_pruned";
  name_id key = 0;
  sim::instant created;
  template <class V>
  void fields(V& v) const {
    v.name("key", key);
    v.integer("created_us", created.us());
  }
};

// ---- store (actor store) ----------------------------------------------------------

// A wait for a pool connection; `holder` (0: none) is who waited.
struct pool_wait {
  static constexpr std::string_view kind = "pool_wait";
  sim::duration waited;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("waited_us", waited.us());
    if (holder != 0) v.name("holder", holder);
  }
};
struct pool_wait_abandoned {
  static constexpr std::string_view kind = "pool_wait_abandoned";
  sim::duration waited;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("waited_us", waited.us());
    if (holder != 0) v.name("holder", holder);
  }
};

struct constraint_violation {
  static constexpr std::string_view kind = "constraint_violation";
  std::uint64_t tx = 0;
  name_id table = 0;
  name_id key = 0;
  name_id phase = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("table", table);
    v.name("key", key);
    v.name("phase", phase);
  }
};

// A write refused by the job row's lease token.
struct store_fenced {
  static constexpr std::string_view kind = "fenced";
  std::uint64_t tx = 0;
  name_id job = 0;
  std::uint64_t expected = 0;
  std::uint64_t found = 0;
  name_id phase = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("job", job);
    v.integer("expected", static_cast<std::int64_t>(expected));
    v.integer("found", static_cast<std::int64_t>(found));
    v.name("phase", phase);
  }
};

struct store_commit {
  static constexpr std::string_view kind = "commit";
  std::uint64_t tx = 0;
  std::int64_t writes = 0;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.integer("writes", writes);
    if (holder != 0) v.name("holder", holder);
  }
};

struct store_rollback {
  static constexpr std::string_view kind = "rollback";
  std::uint64_t tx = 0;
  name_id reason = 0;
  std::int64_t discarded = 0;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("reason", reason);
    v.integer("discarded", discarded);
    if (holder != 0) v.name("holder", holder);
  }
};

// ---- world ---------------------------------------------------------------------------

// The queues' counters, sampled (actor sampler).
struct queue_sample {
  static constexpr std::string_view kind = "queue_sample";
  std::int64_t visible = 0, delayed = 0, in_flight = 0, dead_letters = 0;
  sim::duration oldest_age;
  template <class V>
  void fields(V& v) const {
    v.integer("visible", visible);
    v.integer("delayed", delayed);
    v.integer("in_flight", in_flight);
    v.integer("dead_letters", dead_letters);
    v.integer("oldest_age_us", oldest_age.us());
  }
};

struct all_jobs_ended {
  static constexpr std::string_view kind = "all_jobs_ended";
  std::int64_t jobs = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("jobs", jobs);
  }
};

// Every kind, in a fixed order (the variant index is part of the digest's
// binary encoding once it is specified: append new kinds at the end).
using payload = std::variant<tool_start, tool_call, fault_crash, fault_error, checkpoint, fenced, pod_start, crash, drain,
                             stop, slice_end, runtime_error, already_ended, attempt_start, abandoned, nack, backoff,
                             job_done, job_failed, ack, dead_letter, hand_off, resume, heartbeat, lease_lost,
                             relay_crash, relay_tool_start, relay_tool_call, relayed, relay_gave_up, send,
                             receive_empty, receive, duplicate_delivery, change_visibility, delay_ended, lease_expired,
                             message_delete, delete_lost, redrive, redrive_in, retention_expired, vendor_request,
                             vendor_replay, vendor_execute, vendor_response_lost, vendor_commit,
                             vendor_execution_error, vendor_reject, vendor_client_timeout, vendor_answered,
                             email_sent, key_pruned, pool_wait, pool_wait_abandoned, constraint_violation,
                             store_fenced, store_commit, store_rollback, queue_sample, all_jobs_ended>;

// One event: when, who (an interned actor name such as "worker/0"), what.
struct event {
  sim::instant at;
  name_id actor = 0;
  payload body;
};

}  // namespace twice::ev
