// A per-attempt execution timeout (runtime.execution_timeout): what each
// flavour does at the limit is runtime/execution_timeout.hpp's.

#include "runtime/worker_slice.hpp"

#include "runtime/worker.hpp"

namespace twice {

execution_timeout_action worker::timeout_action() const {
  const queue_config& q = services_.jobs.config();
  return execution_timeout_action_for(services_.config.celery.has_value(), services_.config.kafka.has_value(),
                                      q.hold_until_ack, q.pubsub);
}

// Each attempt gets the whole limit from its start: Laravel arms
// pcntl_alarm for each job it runs, Celery times each task, Timeout.timeout
// wraps each perform.
void worker::arm_execution_timeout(slice& s) {
  const sim::duration limit = *services_.config.execution_timeout;
  s.deadline_raised_ = false;
  if (timeout_action() == execution_timeout_action::raise) {
    s.deadline_ = services_.kernel.now() + limit;
    return;
  }
  armed_timeout_ = ++timeout_serial_;
  services_.kernel.schedule_after(limit, execution_timeout_callback, this, armed_timeout_);
}

void worker::execution_timeout_callback(sim::kernel&, void* ctx, std::uint64_t serial) {
  auto* w = static_cast<worker*>(ctx);
  if (w->armed_timeout_ != serial || w->slice_ == nullptr || !w->running()) return;  // that attempt is over
  const slice& s = *w->slice_;
  const bool celery = w->timeout_action() == execution_timeout_action::kill_pool_process;
  w->emit(ev::execution_timeout{s.job_name_, s.attempt_, *w->services_.config.execution_timeout,
                                w->name_of(celery ? "time_limit" : "kill")});
  if (!celery) {
    // Laravel's alarm handler kills the worker process: the message stays
    // leased until its visibility timeout; a new process starts.
    w->crash("execution timeout");
    return;
  }
  // Celery: the pool process is killed mid-task and replaced; the main
  // process marks the task failed and acks it (Request.on_timeout).
  const child_lost lost{s.spec_.id, s.attempt_, s.message_.handle};
  w->end_slice("killed at its time limit");
  w->services_.kernel.kill(w->consumer_);
  w->in_call_ = false;  // the call in flight died with the pool process
  w->consumer_ = w->services_.kernel.spawn(w->after_time_limit(lost), w->name_);
}

// The replaced pool process: the task that ran out of time is failed, then
// the executor goes on with the next one.
sim::task<void> worker::after_time_limit(child_lost lost) {
  co_await fail_celery_task(lost, "TimeLimitExceeded");
  prefetch_room_->notify_one();
  co_await consume_celery();
}

}  // namespace twice
