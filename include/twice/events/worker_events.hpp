#pragma once
// The workers' events (the vocabulary: events/trace_events.hpp).

#include <cstdint>
#include <string_view>

#include <twice/events/event_basics.hpp>
#include <twice/events/discipline.hpp>
#include <twice/sim/time.hpp>
#include <twice/events/job_status.hpp>

namespace twice::ev {

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

// A liveness probe went unanswered: the worker's loop was blocked in a call
// of `job`'s slice for the whole timeout. At `failures` == `threshold` the
// kubelet restarts the container (SIGKILL at `kill_at`).
struct probe_failed {
  static constexpr std::string_view kind = "probe_failed";
  name_id job = 0;
  std::int64_t failures = 0;
  std::int64_t threshold = 0;
  sim::instant kill_at;  // meaningful once failures == threshold
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("failures", failures);
    v.integer("threshold", threshold);
    v.integer("kill_at_us", kill_at.us());
  }
};

// A worker's circuit breaker for `tool` changed state ("open", "half_open"
// is not traced: it is the trial call itself, "closed"); `calls` and
// `failures` are its window's when it opened.
struct circuit_changed {
  static constexpr std::string_view kind = "circuit_changed";
  name_id tool = 0;
  name_id state = 0;
  std::int64_t calls = 0;
  std::int64_t failures = 0;
  template <class V>
  void fields(V& v) const {
    v.name("tool", tool);
    v.name("state", state);
    v.integer("calls", calls);
    v.integer("failures", failures);
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
enum class retry_route : std::uint8_t { visibility, retry_set, republish };
constexpr std::string_view to_string(retry_route r) {
  switch (r) {
    case retry_route::visibility:
      return "visibility";
    case retry_route::retry_set:
      return "retry_set";
    case retry_route::republish:
      return "republish";
  }
  return "?";
}

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
  // Where a nack sends the job, in its broker's words, traced only when it
  // is not back to its queue after a visibility delay: Sidekiq's retry set,
  // or Celery's Task.retry, which publishes it again with a countdown.
  retry_route route = retry_route::visibility;
  // Traced only when true: `cap` is no cap but the bound Sidekiq's schedule
  // sets by its last retry (no retry.maximum_interval).
  bool schedule_bound = false;
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
    if (route != retry_route::visibility) v.word("route", raw(route), to_string(route));
    if (schedule_bound) v.boolean("schedule_bound", true);
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

// An orphan rescue (actor "lifeline") found the job's row running since
// `claimed_at` and did `outcome` with it: "queued" (a new message sent),
// "granted" (one more attempt granted, then queued) or "discarded" (out of
// attempts: dead-lettered).
struct orphan_rescued {
  static constexpr std::string_view kind = "orphan_rescued";
  name_id job = 0;
  std::int64_t attempts = 0;
  sim::instant claimed_at;
  name_id outcome = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempts", attempts);
    v.integer("claimed_at_us", claimed_at.us());
    v.name("outcome", outcome);
  }
};

// A worker received a job whose tenant already has `running` slices, its
// concurrency limit (runtime.tenant_limit): the message goes back to the
// queue for `delay`, no attempt started.
struct tenant_over_limit {
  static constexpr std::string_view kind = "tenant_over_limit";
  name_id job = 0;
  name_id tenant = 0;
  std::int64_t running = 0;
  sim::duration delay;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("tenant", tenant);
    v.integer("running", running);
    v.integer("delay_us", delay.us());
  }
};

// A write step the slice did not call: its claim (discipline's claimed
// tools, [tools.NAME] claim) was held already, by `claimed_by` ("attempt 0,
// delivery 1, worker/0"), so the step counts as done here.
struct claim_skipped {
  static constexpr std::string_view kind = "claim_skipped";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id claim = 0;
  name_id claimed_by = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("claim", claim);
    v.name("claimed_by", claimed_by);
  }
};

// An ack (delete) the broker answered OK but did nothing with: the lease
// had expired and the message was given out again (or restored) since, so
// the broker keeps it and it will run again. Emitted instead of `ack`.
struct ack_ignored {
  static constexpr std::string_view kind = "ack_ignored";
  name_id job = 0;
  std::uint32_t attempt = 0;
  std::uint64_t message = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("message", static_cast<std::int64_t>(message));
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

// A Celery worker's pool process died under a task (WorkerLostError); the
// worker's main process lives on. `requeued`: acks_late with
// reject_on_worker_lost sent the message to the back of the queue; else the
// task was acked and marked failed.
struct worker_lost {
  static constexpr std::string_view kind = "worker_lost";
  name_id job = 0;
  std::uint32_t attempt = 0;
  bool requeued = false;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.boolean("requeued", requeued);
  }
};

// A Celery worker took a message whose ETA is still ahead: it holds it,
// unacked, until then (celery/worker/strategy.py, call_at(eta, ...)).
struct eta_held {
  static constexpr std::string_view kind = "eta_held";
  name_id job = 0;
  std::uint64_t message = 0;
  sim::instant eta;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("message", static_cast<std::int64_t>(message));
    v.integer("eta_us", eta.us());
  }
};

// The runtime stopped extending a slice's lease at its max_lease_duration
// (a Pub/Sub client dropping the message from lease management); the slice
// runs on, unaware, and the message is redelivered when its deadline passes.
struct lease_dropped {
  static constexpr std::string_view kind = "lease_dropped";
  name_id job = 0;
  std::uint32_t attempt = 0;
  sim::duration held;  // since the message was received
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("held_us", held.us());
  }
};

// A slice reached runtime.execution_timeout (runtime/execution_timeout.hpp):
// `action` is what its runtime does there, "kill" (the worker process is
// killed), "time_limit" (Celery kills the pool process, the task fails) or
// "raise" (an exception inside the handler).
struct execution_timeout {
  static constexpr std::string_view kind = "execution_timeout";
  name_id job = 0;
  std::uint32_t attempt = 0;
  sim::duration limit;
  name_id action = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("attempt", attempt);
    v.integer("limit_us", limit.us());
    v.name("action", action);
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

}  // namespace twice::ev
