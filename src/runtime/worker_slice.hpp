#pragma once
// worker::slice, the handler's view of the runtime while it runs one
// attempt: private to the worker's sources (worker.cpp and the consumer
// loops and lifecycle beside it), not part of the handler API.

#include <cstdint>
#include <string>

#include <twice/sim/condition.hpp>
#include "runtime/worker.hpp"
#include "sim/duration_text.hpp"
#include <twice/store/store.hpp>

namespace twice {

namespace worker_detail {
inline std::int64_t as_int(std::uint64_t v) { return static_cast<std::int64_t>(v); }
}  // namespace worker_detail

// One slice: the handler's view of the runtime while it runs one attempt.
class worker::slice final : public slice_context {
  static std::int64_t as_int(std::uint64_t v) { return worker_detail::as_int(v); }

 public:
  // The job's name was interned when its message was sent (queue::send):
  // looked up once here, not on every event of the slice.
  slice(twice::worker& w, queue* source, received_message message, job_spec spec)
      : worker_(w),
        source_(source),
        message_(std::move(message)),
        spec_(std::move(spec)),
        job_name_(w.name_of(spec_.id)),
        received_at_(w.services_.kernel.now()) {}

  // slice_context
  const job_spec& job() const override { return spec_; }
  std::uint32_t attempt() const override { return attempt_; }
  std::int32_t checkpoint_step() const override { return checkpoint_; }
  std::string_view worker() const override { return worker_.name_; }
  std::string_view sha() const override { return worker_.sha_; }
  const discipline& rules() const override { return worker_.services_.config.rules; }
  store& db() override { return worker_.services_.db; }

  tool& tool_named(std::string_view name) override {
    const auto& tools = worker_.services_.tools;
    auto it = tools.find(name);
    TWICE_CHECK(it != tools.end());
    return *it->second;
  }

  std::string work_id() const override {
    if (rules().work_id == work_id_mode::message) return "message_" + std::to_string(message_.id);
    return spec_.id;
  }

  std::string key_for(std::size_t step, std::string_view tool) const override {
    const std::string stable = work_id() + ":step_" + std::to_string(step) + ":" + std::string(tool);
    switch (rules().key) {
      case key_mode::none:
        return {};
      case key_mode::per_attempt:
        return stable + ":attempt_" + std::to_string(attempt_);
      case key_mode::stable:
        return stable;
    }
    return {};
  }

  std::string claim_key(std::size_t step, std::string_view tool) const {
    return work_id() + ":step_" + std::to_string(step) + ":" + std::string(tool);
  }

  sim::task<bool> claim(std::size_t step, std::string_view tool) override {
    check_lease();
    check_deadline();
    std::string key = claim_key(step, tool);
    const std::string by = "attempt " + std::to_string(attempt_) + ", delivery " +
                           std::to_string(message_.receive_count) + ", " + worker_.name_;
    transaction tx = co_await db().begin(worker_.name_);
    bool won = false;
    if (co_await tx.insert_dedupe(key, by) == store_status::ok) {
      won = (co_await tx.commit()).ok();
    } else {
      tx.rollback();
    }
    if (won) co_return true;
    // Who holds it, as the store has it now (the simulator's view: the
    // slice itself only learned that the row exists).
    const dedupe_table& rows = db().dedupes();
    const auto holder = rows.find(key);
    const std::string holder_text =
        holder != rows.end() && !holder->second.by.empty() ? holder->second.by : std::string("an earlier slice");
    event_log& log = worker_.services_.events;
    log.emit(worker_.actor_, ev::claim_skipped{job_name_, attempt_, as_int(step), log.name(tool), log.name(key),
                                               log.name(holder_text)});
    co_return false;
  }

  sim::task<void> release_claim(std::size_t step, std::string_view tool) override {
    transaction release = co_await db().begin(worker_.name_);
    co_await release.delete_dedupe(claim_key(step, tool));
    co_await release.commit();
  }

  sim::task<tool_result> call(tool& t, tool_call request, std::size_t step) override {
    check_lease();
    check_deadline();
    runtime_services& rs = worker_.services_;
    const std::string key = request.idempotency_key.value_or("");
    // Spans name the tool as the job's step does ("refund"), which is also
    // the name inside keys; a call outside the steps uses the tool's own.
    const std::string tool_name =
        step >= 1 && step <= spec_.steps.size() ? spec_.steps[step - 1].tool : std::string(t.name());
    if (request.reference.empty()) request.reference = spec_.id + ":step_" + std::to_string(step) + ":" + tool_name;
    const sim::instant started = rs.kernel.now();
    event_log& log = rs.events;
    const ev::name_id job = job_name_, tool_id = log.name(tool_name), key_id = log.name(key), sha = worker_.sha_name_;
    log.emit(worker_.actor_, ev::tool_start{job, attempt_, as_int(step), tool_id, key_id, sha});
    // A raising execution timeout abandons the call at the limit (runtime/execution_timeout.hpp).
    const std::optional<sim::instant> give_up_at = in_handler_ ? deadline_ : std::nullopt;
    tool_result r = co_await worker_.call_tool(t, std::move(request), tool_name, tool_id, give_up_at);
    const bool new_write = t.writes() && r.ok() && !r.replayed;
    log.emit(worker_.actor_, ev::tool_call{job, attempt_, as_int(step), tool_id, key_id, sha, r.status,
                                           log.name(r.error_code), log.name(r.ref), r.replayed, new_write, started});
    check_lease();
    check_deadline();
    co_return r;
  }

  sim::task<void> point(std::string_view name, std::size_t step, std::string_view tool) override {
    check_lease();
    check_deadline();
    runtime_services& rs = worker_.services_;
    const point_event ev{worker_.name_, spec_.id, attempt_, name, step, tool};
    switch (rs.faults.at_point(ev)) {
      case point_action::proceed:
        break;
      case point_action::crash:
        rs.events.emit(worker_.actor_, ev::fault_crash{job_name_, attempt_, rs.events.name(name), as_int(step)});
        // A Celery task runs in a pool process: a crash inside the task
        // kills that process, and the worker's main process (which acks)
        // lives on. The ack is the main process's own.
        if (rs.config.celery && name != "before_ack" && name != "after_ack") {
          worker_.end_slice("pool process lost");
          throw twice::worker::child_lost{spec_.id, attempt_, message_.handle};
        }
        worker_.crash("fault at " + std::string(name));
        co_await sim::suspend_forever{};  // the kill takes effect here
        break;
      case point_action::error:
        rs.events.emit(worker_.actor_, ev::fault_error{job_name_, attempt_, rs.events.name(name), as_int(step)});
        throw slice_error("injected error at " + std::string(name));
    }
    co_return;
  }

  sim::task<void> checkpoint(std::size_t step) override {
    transaction tx = co_await db().begin(worker_.name_);
    co_await commit_step(tx, step);
  }

  // Writes `step` as the job's checkpoint into `tx` and commits, fencing on
  // the lease token when the discipline asks for it.
  sim::task<bool> commit_step(transaction& tx, std::size_t step) override {
    job_update change;
    change.checkpoint_step = static_cast<std::int32_t>(step);
    const bool committed = co_await update_and_commit(tx, std::move(change));
    if (committed) worker_.emit(ev::checkpoint{job_name_, attempt_, as_int(step)});
    co_return committed;
  }

  // Updates this slice's columns of the job row and commits. With fencing
  // the update only applies while the row still carries this slice's lease
  // token; a slice whose token was superseded has lost its lease to another
  // worker and must not write (lease_lost is thrown).
  sim::task<bool> update_and_commit(transaction& tx, job_update change) {
    if (rules().fencing) change.expect_lease_token = lease_token_;
    const store_status st = co_await tx.update_job(spec_.id, std::move(change));
    if (st == store_status::fenced) fenced();
    TWICE_CHECK(st == store_status::ok);
    const commit_result result = co_await tx.commit();
    if (result.status == store_status::fenced) fenced();
    co_return result.ok();
  }

  [[noreturn]] void fenced() const {
    worker_.emit(ev::fenced{job_name_, attempt_, lease_token_});
    throw lease_lost("fencing token superseded");
  }

  void check_lease() const {
    if (lease_lost_ && rules().stop_on_lost_lease) throw lease_lost("lease lost");
  }

  // A raising execution timeout (runtime/execution_timeout.hpp): past the
  // limit, the handler's next step raises, a retryable failure. Only inside
  // the handler: the runtime's own checkpoint and ack are outside the
  // timeout's block (Ruby's Timeout.timeout wraps the job's perform).
  void check_deadline() {
    if (!deadline_ || !in_handler_ || worker_.services_.kernel.now() < *deadline_) return;
    const sim::duration limit = *worker_.services_.config.execution_timeout;
    if (!deadline_raised_) {
      deadline_raised_ = true;
      worker_.emit(ev::execution_timeout{job_name_, attempt_, limit, worker_.name_of("raise")});
    }
    throw slice_error("execution timeout after " + sim::format_duration(limit));
  }

  twice::worker& worker_;
  queue* source_;  // the queue the message came from (its handle is that queue's); null: a Kafka record
  received_message message_;
  const job_spec spec_;  // the catalogue's answer, kept for the slice's life
  const ev::name_id job_name_;
  const sim::instant received_at_;  // the slice starts as its message is received
  std::uint32_t attempt_ = 0;
  std::uint32_t attempt_limit_ = 0;  // attempts the job may have in all, as of this slice's claim; 0: unlimited
  std::uint32_t take_back_ = 0;      // attempts the last failure gives back (runtime.uncount_unavailable)
  std::int32_t checkpoint_ = 0;
  std::uint64_t lease_token_ = 0;
  bool lease_lost_ = false;
  // A raising execution timeout: this attempt's limit, set as it starts.
  std::optional<sim::instant> deadline_;
  bool deadline_raised_ = false;
  bool in_handler_ = false;  // the handler runs (not the runtime's checkpoint or ack)
};

}  // namespace twice
