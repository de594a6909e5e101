#pragma once
// The small public interface a job handler is written against: the built-in
// agent handler uses it, and so does a user's own handler (see
// docs/writing-a-handler.md). A handler is a coroutine that runs one slice of
// one job; the runtime owns everything around it (leasing, the attempt
// counter, heartbeats, backoff, checkpoint of the job's end, the ack).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <twice/events/discipline.hpp>
#include <twice/runtime/job.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/tools/tool.hpp>

namespace twice {

class store;
class transaction;

// How a slice ended, as the handler reports it.
struct slice_outcome {
  // handed_off: the slice gave `step` to a job of its own (the split
  // discipline); the runtime sends that job and acks, and the job resumes
  // after the step once the split-out job is done.
  enum class kind : std::uint8_t { success, retryable, fatal, handed_off };
  kind result = kind::success;
  std::string error;                                  // "503 unavailable", "400 invoice_not_found" ...
  sim::duration retry_after = sim::duration::zero();  // a server's floor on the next attempt
  std::size_t step = 0;                               // the step handed off
  bool timed_out = false;                             // the failure was a call that got no answer in time
  int status = 0;                                     // the tool's answer (503, 429 ...); 0: none came

  static slice_outcome success() { return {}; }
  static slice_outcome hand_off(std::size_t step) {
    return {kind::handed_off, {}, sim::duration::zero(), step, false, 0};
  }
  // Classifies a failed tool result: retryable (503, 429, 409, 5xx,
  // timeouts) or fatal (400 and other 4xx).
  static slice_outcome from(const tool_result& r);
};

// Thrown out of a handler by an injected slice error ("the handler raised
// after the write"): the runtime treats it as a retryable failure.
struct slice_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown out of a handler when the runtime learned its lease is gone
// (strict broker or fencing) and the discipline says stop.
struct lease_lost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a handler sees of the runtime during one slice.
class slice_context {
 public:
  virtual ~slice_context() = default;

  virtual const job_spec& job() const = 0;
  virtual std::uint32_t attempt() const = 0;         // 0-based, from the job row
  virtual std::int32_t checkpoint_step() const = 0;  // last durable step at slice start (-1 = none)
  virtual std::string_view worker() const = 0;
  virtual std::string_view sha() const = 0;
  virtual const discipline& rules() const = 0;
  virtual store& db() = 0;
  virtual tool& tool_named(std::string_view name) = 0;

  // What names this slice's unit of work in keys and claims: the job's id,
  // or with discipline.work_id = "message" its message's ("message_4").
  virtual std::string work_id() const = 0;

  // The idempotency key for a step's write under the discipline: "" (none),
  // "job_17:step_3:refund:attempt_1" (per attempt) or "job_17:step_3:refund"
  // (work_id() in place of the job's id).
  virtual std::string key_for(std::size_t step, std::string_view tool) const = 0;

  // A claim on a write step (discipline's claimed tools: [tools.NAME] claim):
  // the row "<work_id>:step_N:<tool>" inserted and committed in a
  // transaction of its own, before the call. True: this slice holds it and
  // calls the tool. False: an earlier attempt or an overlapping slice holds
  // it; the runtime has traced the step as skipped, naming who claimed it.
  virtual sim::task<bool> claim(std::size_t step, std::string_view tool) = 0;
  // Gives a claim back, when the far side answered that it did nothing (a
  // 503, a 4xx), so a retry calls again. (A timeout keeps it: maybe done.)
  virtual sim::task<void> release_claim(std::size_t step, std::string_view tool) = 0;

  // Calls a tool inside a span carrying job, attempt, key, worker and SHA.
  virtual sim::task<tool_result> call(tool& t, tool_call request, std::size_t step) = 0;

  // A named point where faults may strike: the process may crash here (the
  // coroutine is destroyed; nothing after this runs) or a slice_error may be
  // thrown. Points: before_tool, after_tool, before_checkpoint,
  // after_checkpoint (handlers), before_ack, after_ack (the runtime).
  virtual sim::task<void> point(std::string_view name, std::size_t step = 0, std::string_view tool = {}) = 0;

  // Marks `step` durable in its own transaction, checking the fencing token
  // when the discipline asks for one (throws lease_lost on a stale token).
  virtual sim::task<void> checkpoint(std::size_t step) = 0;
  // The same, inside `tx` (with the handler's own writes, e.g. a ledger
  // row), then commits it. False when the commit was refused.
  virtual sim::task<bool> commit_step(transaction& tx, std::size_t step) = 0;
};

class handler {
 public:
  virtual ~handler() = default;
  virtual sim::task<slice_outcome> run(slice_context& ctx) = 0;
  // Called inside the transaction that starts the attempt (the attempt
  // counter goes up in it), before it commits: what a handler writes here is
  // durable exactly when the slice has started. The outbox pattern writes its
  // intent rows here, with their keys already chosen.
  virtual sim::task<void> on_slice_start(slice_context& ctx, transaction& tx) {
    (void)ctx;
    (void)tx;
    co_return;
  }
};

}  // namespace twice
