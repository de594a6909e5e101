#include "broker/consumer_group.hpp"
#include "runtime/worker.hpp"
#include "runtime/worker_slice.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

#include <twice/sim/condition.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/store/store.hpp>

namespace twice {

using worker_detail::as_int;

slice_outcome slice_outcome::from(const tool_result& r) {
  slice_outcome out;
  out.result = r.retryable() ? kind::retryable : kind::fatal;
  out.error = r.timed_out() ? std::string("timeout") : std::to_string(r.status) + " " + r.error_code;
  out.retry_after = r.retry_after;
  out.timed_out = r.timed_out();
  out.status = r.status;
  return out;
}

worker::worker(runtime_services& services, std::uint32_t index, std::string sha, sim::random_stream backoff_rng,
               sim::random_stream fetch_rng)
    : services_(services),
      name_("worker/" + std::to_string(index)),
      actor_(services.events.name(name_)),
      sha_(std::move(sha)),
      backoff_(services.config.retry, backoff_rng),
      fetch_rng_(fetch_rng),
      drained_(std::make_unique<sim::signal>(services.kernel)) {}

worker::~worker() { kill_processes(); }

// A call as the pod makes it: through its circuit breaker for the tool
// (refused while open: 503 circuit_open, the far side never sees it), with
// the pod's loop blocked while it waits (what a liveness probe sees).
namespace {
// A call the slice may stop waiting for: the call runs in a process of its
// own and leaves its answer here.
struct abandonable_call {
  explicit abandonable_call(sim::kernel& k) : answered(k) {}
  std::optional<tool_result> result;
  sim::condition answered;
};

sim::task<void> run_abandonable(tool& t, tool_call request, std::shared_ptr<abandonable_call> box) {
  box->result = co_await t.call(std::move(request));
  box->answered.notify_all();
}
}  // namespace

sim::task<tool_result> worker::call_tool(tool& t, tool_call request, std::string_view tool_name, ev::name_id tool_id,
                                         std::optional<sim::instant> give_up_at) {
  sim::kernel& k = services_.kernel;
  circuit_breaker* breaker = breaker_for(tool_name);
  const circuit_breaker::verdict as = breaker != nullptr ? breaker->allow(k.now()) : circuit_breaker::verdict::go;
  if (as == circuit_breaker::verdict::refuse) {
    auto counted = services_.calls_refused_by_breaker.find(tool_name);
    if (counted == services_.calls_refused_by_breaker.end())
      counted = services_.calls_refused_by_breaker.emplace(std::string(tool_name), 0).first;
    ++counted->second;
    tool_result refused;
    refused.status = 503;
    refused.error_code = "circuit_open";
    co_return refused;
  }
  in_call_ = true;
  ++calls_started_;
  tool_result r;
  if (give_up_at) {
    auto box = std::make_shared<abandonable_call>(k);
    k.spawn(run_abandonable(t, std::move(request), box), name_ + "/call");
    while (!box->result)
      if (!co_await box->answered.wait_until(*give_up_at)) break;
    if (box->result) {
      r = std::move(*box->result);
    } else {
      // Abandoned at the execution timeout: no answer, as a client timeout.
      r.status = 0;
      r.error_code = "execution_timeout";
    }
  } else {
    r = co_await t.call(std::move(request));
  }
  in_call_ = false;
  const bool failed = r.timed_out() || r.status >= 500 || r.status == 429;
  if (breaker != nullptr && breaker->record(k.now(), as, failed)) {
    const bool open = breaker->state() == breaker_state::open;
    emit(ev::circuit_changed{tool_id, name_of(open ? "open" : "closed"), as_int(breaker->window_calls()),
                             as_int(breaker->window_failures())});
  }
  co_return r;
}

circuit_breaker* worker::breaker_for(std::string_view tool) {
  if (!services_.config.circuit_breaker) return nullptr;
  auto it = breakers_.find(tool);
  if (it == breakers_.end())
    it = breakers_.emplace(std::string(tool), circuit_breaker(*services_.config.circuit_breaker)).first;
  return &it->second;
}

void worker::begin_slice(slice* s) {
  TWICE_CHECK(slice_ == nullptr);
  slice_ = s;
  ++services_.slices_in_flight;
}

void worker::end_slice(std::string_view how) {
  armed_timeout_ = 0;
  if (slice_ == nullptr) return;
  stop_heartbeat();
  const slice& s = *slice_;
  slice_ = nullptr;
  TWICE_CHECK(services_.slices_in_flight > 0);
  --services_.slices_in_flight;
  emit(ev::slice_end{s.job_name_, s.attempt_, name_of(how)});
}

void worker::stop_heartbeat() {
  if (heartbeat_.valid()) services_.kernel.kill(heartbeat_);
  heartbeat_ = {};
}

sim::task<void> worker::consume() {
  const runtime_config& cfg = services_.config;
  while (!draining_) {
    receive_options options;
    options.wait = cfg.long_poll;
    options.visibility_timeout = cfg.visibility_timeout;
    // A streaming pull: the stream's deadline, then at once the client's
    // receipt modack to its own deadline (runtime/pubsub_ack_deadline.hpp),
    // both as the message is received; the subscription's ack deadline
    // does not apply.
    if (pubsub_deadline_) options.visibility_timeout = pubsub_deadline_->current();
    fetched got;
    if (services_.job_queues.empty()) {
      got.source = &services_.jobs;
      receive_result r = co_await services_.jobs.receive(options);
      TWICE_CHECK(r.status == queue_status::ok);  // the loader keeps long_poll and the timeout in range
      got.messages = std::move(r.messages);
    } else {
      got = co_await fetch_weighted(services_.kernel, services_.job_queues, *services_.any_job_visible, options,
                                    fetch_rng_);
    }
    for (received_message& m : got.messages) {
      if (draining_) {
        // Leased during the last poll of a draining pod: give it straight
        // back. Sidekiq RPUSHes it to the head of its queue (processor.rb,
        // a job fetched after quiet), where a visibility of 0 on a held
        // message would send it to the back.
        if (got.source->config().hold_until_ack)
          got.source->requeue_held(m.handle);
        else
          got.source->change_visibility(m.handle, sim::duration::zero());
        continue;
      }
      const std::string job = m.body;
      const receipt_handle handle = m.handle;
      const std::uint32_t deliveries = m.receive_count;
      try {
        co_await run_slice(got.source, std::move(m));
      } catch (const slice_error& e) {
        // An error in the runtime's own steps (checkpoint, ack) after the
        // handler: the consumer loop logs it and moves on. Nothing nacks the
        // message; its lease expiring brings it back.
        emit(ev::runtime_error{name_of(job), name_of(e.what())});
        // Without a lease (Sidekiq) nothing would: there every exception of
        // the job goes through job_retry to the retry set, its delay by the
        // retries so far (this delivery's count less one).
        if (got.source->config().hold_until_ack) {
          const queue_status st = got.source->change_visibility(handle, backoff_.next_delay(deliveries - 1));
          emit(ev::nack{name_of(job), deliveries - 1, st});
        }
      }
    }
  }
  drained_->trigger();
}

sim::task<void> worker::run_slice(queue* source, received_message message) {
  const runtime_config& cfg = services_.config;
  job_spec spec = services_.job_specs.spec_of(message.body);
  // The tenant's limiter, taken before anything runs and held for the
  // slice's life however it ends (a killed worker's frame is destroyed too).
  std::uint32_t* tenant_running = nullptr;
  if (cfg.tenant_limit && !spec.tenant.empty()) {
    tenant_running = &services_.running_by_tenant[spec.tenant];  // std::map: the address stays
    if (*tenant_running >= cfg.tenant_limit->concurrency) {
      const sim::duration delay = cfg.tenant_limit->over_limit_delay;
      const ev::name_id job = name_of(spec.id);  // names interned one at a time: the digest numbers them in order
      const ev::name_id tenant = name_of(spec.tenant);
      emit(ev::tenant_over_limit{job, tenant, *tenant_running, delay});
      TWICE_CHECK(source != nullptr);  // the loader keeps tenant limits off Kafka
      source->change_visibility(message.handle, delay);
      co_return;
    }
  }
  struct tenant_release {
    std::uint32_t* running;
    ~tenant_release() {
      if (running != nullptr) --*running;
    }
  } release{tenant_running};
  if (tenant_running != nullptr) ++*tenant_running;
  slice s(*this, source, std::move(message), std::move(spec));
  begin_slice(&s);
  // However the slice's frame ends. A crash or kill already ended the
  // slice, so when the frame is destroyed later this does nothing.
  struct end_on_exit {
    worker* w;
    ~end_on_exit() { w->end_slice("returned"); }
  } guard{this};

  const std::uint32_t max_attempts = cfg.retry.maximum_attempts;  // 0: unlimited
  // The bug reset_attempts_on_reenqueue models: a runtime that counts
  // attempts with the message or in its own memory, so the count starts
  // again whenever the message comes back, whatever brought it back (a nack,
  // a crash, a lease that ran out). Retries inside this slice still count.
  bool first_attempt_of_delivery = true;
  // What this worker's retry budget paid for the retry running now, when
  // it paid (an in-slice retry); a redelivered retry is refunded at the
  // plain retry cost.
  std::optional<std::uint32_t> paid_in_slice;
  const bool by_message = cfg.rules.work_id == work_id_mode::message;
  while (true) {
    // Start the attempt: the counter on the job row goes up before any tool
    // runs, in the same transaction that claims the lease token. Like
    // `UPDATE jobs SET attempts = attempts + 1 ... RETURNING`, it is atomic:
    // the write only commits if nobody claimed the row since we read it
    // (two overlapping deliveries each get their own attempt number).
    std::optional<job_row> row;
    bool claimed = false;
    for (int tries = 0; !claimed; ++tries) {
      TWICE_CHECK(tries < 1000);  // each retry means another slice claimed the row: bounded by deliveries
      transaction tx = co_await services_.db.begin(name_);
      row = co_await tx.get_job(s.spec_.id);
      TWICE_CHECK(row.has_value());
      // A consumer keyed on the message keeps the job row's counter, and its
      // own record of each message (AWS Lambda Powertools' idempotency
      // record per messageId): a message it ended is acked, and one it has
      // never started is new work from the first step, whatever the row says.
      bool ended = is_terminal(row->status);
      if (by_message && keeps_message_record(s)) {
        ended = co_await tx.has_dedupe(message_marker(s, "ended"));
        if (!ended && !co_await tx.has_dedupe(message_marker(s, "started"))) {
          co_await tx.insert_dedupe(message_marker(s, "started"));
          row->checkpoint_step = -1;
        }
      } else if (by_message) {
        // Off SQS the consumer keyed on the message keeps no record of it
        // and no job table: every delivery, and every attempt in it, is new
        // work from the first step (see keeps_message_record).
        ended = false;
        row->checkpoint_step = -1;
      }
      if (ended) {
        // A redelivery of a job that already ended (duplicate delivery, a lost
        // ack, a slice that ended without its ack): ack it, do nothing else.
        // No attempt starts; faults keyed on an attempt see the next number.
        tx.rollback();
        s.attempt_ = row->attempts;
        // (A message's own record keeps no status: the row's, if it ended.)
        emit(ev::already_ended{s.job_name_, is_terminal(row->status) ? row->status : job_status::done});
        // A split-out job done before a crash may not have resumed its
        // parent yet: resume it again (a parent that has moved on ignores it).
        if (s.spec_.then && row->status == job_status::done) after_parent_update(s, job_status::done, "redelivered");
        co_await ack(s);
        co_return;
      }
      if (cfg.rules.reset_attempts_on_reenqueue && first_attempt_of_delivery) row->attempts = 0;  // the bug
      // Each redrive from the dead-letter queue grants the attempts again,
      // and an orphan rescue that revives an exhausted job grants one more.
      s.attempt_limit_ = max_attempts == 0 ? 0 : max_attempts * (row->redrives + 1) + row->attempts_granted;
      if (out_of_attempts(row->attempts, s.attempt_limit_)) {
        tx.rollback();
        co_await dead_letter(s, "attempts exhausted");
        co_return;
      }
      const std::uint64_t seen_token = row->lease_token;
      const bool count_now = cfg.count_attempts == attempt_counting::at_start;
      if (count_now) row->attempts += 1;
      row->status = job_status::running;
      row->attempted_at = services_.kernel.now();
      row->lease_token = services_.next_lease_token++;
      if (co_await tx.put_job_fenced(*row, seen_token) != store_status::ok) continue;
      // The attempt's number: the starts counted before it, or the failures recorded.
      s.attempt_ = count_now ? row->attempts - 1 : row->attempts;
      s.checkpoint_ = row->checkpoint_step;
      s.lease_token_ = row->lease_token;
      co_await services_.job_handler.on_slice_start(s, tx);
      claimed = (co_await tx.commit()).ok();
    }
    first_attempt_of_delivery = false;
    if (s.attempt_ == 0) {
      if (retry_budget_) retry_budget_->on_first_try();
      if (retry_breaker_) retry_breaker_->on_first_try();
    }
    emit(ev::attempt_start{s.job_name_, s.attempt_, sha_name_, s.message_.id, s.message_.receive_count, s.checkpoint_});
    if (cfg.execution_timeout) arm_execution_timeout(s);
    if (cfg.heartbeat_interval && s.source_ != nullptr && !heartbeat_.valid())
      heartbeat_ = services_.kernel.spawn(heartbeat(*s.source_, s.message_.handle, &s), name_ + "/heartbeat");

    slice_outcome outcome;
    s.in_handler_ = true;
    try {
      outcome = co_await services_.job_handler.run(s);
      s.in_handler_ = false;
    } catch (const slice_error& e) {
      s.in_handler_ = false;
      outcome = {slice_outcome::kind::retryable, e.what(), sim::duration::zero(), 0, false, 0};
    } catch (const lease_lost& e) {
      // The lease belongs to someone else now: no checkpoint, no ack, no nack.
      emit(ev::abandoned{s.job_name_, s.attempt_, name_of(e.what())});
      co_return;
    }

    if (outcome.result == slice_outcome::kind::success) {
      if (retry_budget_)
        retry_budget_->on_success(s.attempt_ > 0, paid_in_slice.value_or(retry_budget_->config().retry_cost));
      stop_heartbeat();
      co_await finish(s, job_status::done, "");
      co_return;
    }
    if (outcome.result == slice_outcome::kind::handed_off) {
      stop_heartbeat();
      co_await hand_off(s, outcome.step);
      co_return;
    }
    const bool fatal = outcome.result == slice_outcome::kind::fatal;
    if (fatal && !cfg.rules.retry_non_retryable) {
      stop_heartbeat();
      co_await finish(s, job_status::failed, outcome.error);
      co_return;
    }
    // A dependency's 503 or 429 may give the attempt back (runtime.uncount_unavailable).
    s.take_back_ = attempts_taken_back(outcome);
    const bool attempts_left = s.take_back_ > 0 || !out_of_attempts(attempts_after_failure(s), s.attempt_limit_);
    // Every failed attempt counts against the breaker, the last one too.
    const bool breaker_allows = !retry_breaker_ || retry_breaker_->on_failure();
    if (attempts_left && !breaker_allows) {
      stop_heartbeat();
      co_await dead_letter(s, "retry breaker open: " + outcome.error, /*failed=*/true);
      co_return;
    }
    if (attempts_left && retry_budget_) {
      const retry_budget_config& budget = retry_budget_->config();
      if (!retry_budget_->try_retry(outcome.timed_out)) {
        ++services_.retries_refused_by_budget;
        // The SDK's answer to an empty bucket: no retry; the last error stands.
        stop_heartbeat();
        co_await dead_letter(s, "retry budget spent: " + outcome.error, /*failed=*/true);
        co_return;
      }
      paid_in_slice = outcome.timed_out ? budget.timeout_cost : budget.retry_cost;
    }
    if (cfg.rules.retry == retry_mode::nack || !attempts_left) {
      stop_heartbeat();
      co_await retry_later(s, outcome);
      co_return;
    }
    if (cfg.count_attempts == attempt_counting::at_failure || s.take_back_ > 0)
      co_await record_failure(s, outcome.error);
    // In-slice retry: sleep the backoff while the heartbeat keeps the lease,
    // then start the next attempt on the same message.
    const sim::duration delay = backoff_.next_delay(s.attempt_, outcome.retry_after);
    trace_backoff(s, outcome, delay, retry_mode::in_slice);
    co_await sim::sleep_for(delay);
    s.check_lease();
  }
}

sim::task<void> worker::finish(slice& s, job_status status, std::string_view error) {
  co_await s.point("before_checkpoint", 0, {});
  transaction tx = co_await services_.db.begin(name_);
  if (s.spec_.then) co_await update_parent(tx, *s.spec_.then, status, error);
  job_update change;
  change.status = status;
  change.last_error = std::string(error);
  // Like `UPDATE ... SET status = $1, lease_token = nextval() WHERE status
  // NOT IN (ended)`: an overlapping slice that ended the job first keeps
  // its end, and a slice still claiming the row on what it read before this
  // commit is fenced off instead of bringing the job back to life.
  change.unless_ended = true;
  change.lease_token = services_.next_lease_token++;
  // Tested here, not only inside: a coroutine's frame costs ~1,200
  // instructions, and most consumers keep no record of a message's end.
  if (services_.config.rules.work_id == work_id_mode::message && keeps_message_record(s))
    co_await note_message_ended(s, tx);
  try {
    co_await s.update_and_commit(tx, std::move(change));
  } catch (const lease_lost& e) {
    emit(ev::abandoned{s.job_name_, s.attempt_, name_of(e.what())});
    co_return;
  }
  if (status == job_status::done)
    emit(ev::job_done{s.job_name_, s.attempt_, name_of(error)});
  else
    emit(ev::job_failed{s.job_name_, s.attempt_, name_of(error)});
  if (s.spec_.then) after_parent_update(s, status, "ended");
  co_await s.point("after_checkpoint", 0, {});
  co_await ack(s);
}

// discipline.work_id = "message": the consumer's records of a message,
// "message_4/started" and "message_4/ended", in the dedupe table.
std::string worker::message_marker(const slice& s, std::string_view what) {
  return s.work_id() + "/" + std::string(what);
}

// Which consumer keyed on the message each flavour stands for. On SQS, one
// with AWS Lambda Powertools' idempotency record per messageId
// (IdempotencyConfig(event_key_jmespath="messageId")): a redelivery of a
// message it ended is acked. Elsewhere, the plain consumer with no job
// table and no record: a Pub/Sub callback that does the work and acks
// (python-pubsub's subscriber examples), a Kafka poll loop that processes
// each record it is handed, a Sidekiq `perform` or a Celery task with no
// "already done" check. The broker's redelivery is all it knows: a Pub/Sub
// message past its ack deadline, a record re-read after a rebalance or a
// crash, a Sidekiq job pushed back or retried, a message kombu restored
// runs its effects again.
bool worker::keeps_message_record(const slice& s) {
  if (s.source_ == nullptr) return false;  // a Kafka record
  const queue_config& q = s.source_->config();
  return !q.hold_until_ack && !q.redis_ack_emulation && !q.pubsub;
}

sim::task<void> worker::note_message_ended(const slice& s, transaction& tx) {
  if (services_.config.rules.work_id != work_id_mode::message || !keeps_message_record(s)) co_return;
  const std::string ended = message_marker(s, "ended");
  if (!co_await tx.has_dedupe(ended)) co_await tx.insert_dedupe(ended);
}

sim::task<void> worker::ack(slice& s) {
  co_await s.point("before_ack", 0, {});
  if (s.source_ == nullptr) {
    // A Kafka record: processed, committed now or later as the consumer commits.
    emit(ev::ack{s.job_name_, s.attempt_, s.message_.id, queue_status::ok});
    kafka_processed(s.message_);
    co_await s.point("after_ack", 0, {});
    co_return;
  }
  // Message.ack() feeds the client's histogram of ack times (message.py L277).
  if (pubsub_deadline_) pubsub_deadline_->record_ack(services_.kernel.now() - s.received_at_);
  const queue_status st = s.source_->delete_message(s.message_.handle);
  // The API answers OK to a delete with an old handle (SQS, Pub/Sub
  // without exactly-once, kombu's ack of a restored message) and deletes
  // nothing: the trace says so, not "ack (ok)".
  if (st == queue_status::ok && s.source_->given_out_since(s.message_.handle))
    emit(ev::ack_ignored{s.job_name_, s.attempt_, s.message_.id});
  else
    emit(ev::ack{s.job_name_, s.attempt_, s.message_.id, st});
  co_await s.point("after_ack", 0, {});
}

// A job the runtime gives up on with no dead-letter queue to take it is in
// none: it fails, in its broker's words (why in given_up_error). A Kafka
// record's give-up without a dead-letter topic (the recoverer's "logged and
// skipped") still counts as dead-lettered, as kafka_consumer.cpp's recoverer
// does.
sim::task<void> worker::dead_letter(slice& s, std::string_view reason, bool failed, bool discard) {
  const bool kept = !discard && (services_.dead_letters != nullptr || services_.config.kafka.has_value());
  const job_status end = kept ? job_status::dead_lettered : job_status::failed;
  const std::string error = kept || discard ? std::string(reason) : given_up_error(s, reason);
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.status = end;
  change.last_error = error;
  change.unless_ended = true;
  change.count_failure = failed ? attempts_per_failure() : 0;
  change.lease_token = services_.next_lease_token++;  // as in finish()
  if (s.spec_.then) co_await update_parent(tx, *s.spec_.then, end, error);
  // Tested here, not only inside: a coroutine's frame costs ~1,200
  // instructions, and most consumers keep no record of a message's end.
  if (services_.config.rules.work_id == work_id_mode::message && keeps_message_record(s))
    co_await note_message_ended(s, tx);
  co_await tx.update_job(s.spec_.id, std::move(change));
  co_await tx.commit();
  const std::optional<job_row> row = services_.db.find_job(s.spec_.id);
  TWICE_CHECK(row.has_value());
  if (kept) {
    if (services_.dead_letters != nullptr) services_.dead_letters->send(s.spec_.id);
    emit(ev::dead_letter{s.job_name_, row->attempts, name_of(reason)});
  } else if (row->status == job_status::failed && row->last_error == error) {
    // Its last attempt's number, as a parent's failure gives it (after_parent_update).
    emit(ev::job_failed{s.job_name_, std::int64_t{row->attempts} - 1, name_of(error)});
  }
  if (s.spec_.then) after_parent_update(s, end, "ended");
  co_await ack(s);
}

// Why a job out of attempts failed where no dead-letter queue takes it:
//  * Celery: Task.retry past max_retries raises (the task's exception, or
//    MaxRetriesExceededError) and the task ends in state FAILURE
//    (celery/celery@5dc781f0bd5f celery/app/task.py, `if max_retries is not
//    None and retries > max_retries`).
//  * Sidekiq with no dead set (`dead: false`, or `retry: false`, which never
//    retries): retries_exhausted discards the job (`msg["discarded_at"]`)
//    instead of send_to_morgue; `retry: false` runs only the death handlers
//    (sidekiq/sidekiq v8.1.7 lib/sidekiq/job_retry.rb, retries_exhausted and
//    global).
//  * any other runtime acks the message and drops it.
std::string worker::given_up_error(const slice& s, std::string_view reason) const {
  if (services_.config.celery) return fmt::format("max_retries exceeded, state FAILURE: {}", reason);
  if (s.source_ != nullptr && s.source_->config().hold_until_ack)
    return fmt::format("retries exhausted and DISCARDED (no dead set): {}", reason);
  return fmt::format("out of attempts and DISCARDED (no dead-letter queue): {}", reason);
}

// The slow step leaves this slice: its own job goes to the split queue,
// whose visibility timeout fits the call, and this message is acked. The
// parent's row keeps its checkpoint; the split-out job moves it on. A crash
// before the ack sends the step again on the redelivery: two split-out
// jobs' messages, whose slices are absorbed like any duplicate delivery.
sim::task<void> worker::hand_off(slice& s, std::size_t step) {
  TWICE_CHECK(services_.split_queue != nullptr);
  const std::string child = split_job(s.spec_, step).id;
  services_.split_queue->send(child);
  emit(ev::hand_off{s.job_name_, s.attempt_, as_int(step), name_of(child)});
  co_await ack(s);
}

sim::task<void> worker::update_parent(transaction& tx, const continuation& then, job_status status,
                                      std::string_view error) {
  job_update change;
  change.unless_ended = true;
  if (status == job_status::done) {
    change.raise_checkpoint_to = then.step;
  } else {
    // The parent cannot go on without the step: it fails with it.
    change.status = job_status::failed;
    change.last_error = fmt::format("step {} {}: {}", then.step, to_string(status), error);
  }
  co_await tx.update_job(then.job, std::move(change));
}

// After the transaction that wrote update_parent committed: a done step
// resumes the parent (a new message on its queue, which counts as the
// parent's next attempt); a failed one has ended it, which is traced so the
// world and the checkers see the parent's end.
void worker::after_parent_update(const slice& s, job_status status, std::string_view why) {
  const continuation& then = *s.spec_.then;
  if (status == job_status::done) {
    TWICE_CHECK(services_.parent_queue != nullptr);
    services_.parent_queue->send(then.job);
    emit(ev::resume{name_of(then.job), then.step, s.job_name_, name_of(why)});
    return;
  }
  const std::optional<job_row> parent = services_.db.find_job(then.job);
  TWICE_CHECK(parent.has_value());
  if (parent->status != job_status::failed) return;  // it had ended before
  emit(ev::job_failed{name_of(then.job), std::int64_t{parent->attempts} - 1, name_of(parent->last_error)});
}

sim::task<void> worker::heartbeat(queue& source, receipt_handle handle, slice* s) {
  const runtime_config& cfg = services_.config;
  TWICE_CHECK(cfg.heartbeat_interval.has_value());
  const sim::duration fixed_timeout = cfg.visibility_timeout.value_or(source.config().visibility_timeout);
  const sim::instant received = services_.kernel.now();  // the heartbeat starts with the slice's first attempt
  while (true) {
    co_await sim::sleep_for(*cfg.heartbeat_interval);
    // Pub/Sub's leaser extends by the client's deadline, updated from its
    // ack times on each loop (leaser.py L160), not by the subscription's.
    const sim::duration timeout = pubsub_deadline_ ? pubsub_deadline_->update() : fixed_timeout;
    const sim::duration held = services_.kernel.now() - received;
    if (cfg.max_lease_duration && held >= *cfg.max_lease_duration) {
      // The client drops the message from lease management; the slice runs on.
      emit(ev::lease_dropped{s->job_name_, s->attempt_, held});
      co_return;
    }
    // Counts from now. On SQS this answers OK even after the lease expired,
    // so the worker cannot learn it lost the lease; a strict broker says so.
    const queue_status st = source.change_visibility(handle, timeout);
    emit(ev::heartbeat{s->job_name_, s->attempt_, st});
    if (st != queue_status::ok) {
      s->lease_lost_ = true;
      emit(ev::lease_lost{s->job_name_, s->attempt_});
      co_return;
    }
  }
}

}  // namespace twice
