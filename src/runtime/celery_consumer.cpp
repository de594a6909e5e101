// A Celery worker over the Redis transport: the parts of worker that differ
// from the SQS consumer loop. Sources: celery/celery@5dc781f0bd5f
// (celery/worker/strategy.py, celery/worker/request.py, celery/app/task.py)
// and celery/kombu@9ee8595b835c (kombu/transport/redis.py).
//
//  * The fetcher (the worker's main process consuming from Redis) keeps up
//    to worker_prefetch_multiplier x concurrency messages reserved: taken
//    from the list, unacked, not yet running. With acks_late the running
//    task's message counts too (it is still unacked); an ETA task does not
//    (qos.increment_eventually raises the window by one for each).
//  * The executor (the pool process; concurrency 1 per worker here) runs a
//    due ETA task first, else the oldest reserved one.
//  * acks_late off (the default): the message is acked as the task is
//    accepted (Request.on_accepted), before it runs. On: after it returned
//    (on_success, on_failure, on_retry).
//  * A retry (Task.retry) publishes a new message with eta = now + countdown
//    and acks the one that ran (on_retry).
//  * A crash inside the task kills the pool process (WorkerLostError):
//    with acks_late and task_reject_on_worker_lost the message is rejected
//    with requeue (to the back of the list); otherwise it is acked and the
//    task marked failed (Request.on_failure).
//  * Warm shutdown (SIGTERM, a drain): consuming stops, the running task
//    finishes, and then the channel's close restores every message still
//    reserved or held for an ETA (QoS.restore_unacked_once, RPUSH in
//    delivery order: to the head, the last reserved read first). A pod
//    killed first restores nothing: its messages wait out the visibility
//    timeout.

#include <algorithm>

#include <twice/store/store.hpp>

#include "runtime/worker.hpp"

namespace twice {

sim::task<void> worker::fetch_celery() {
  const runtime_config& cfg = services_.config;
  const std::uint32_t window = cfg.celery->prefetch_multiplier;  // x concurrency 1
  queue& jobs = services_.jobs;
  while (!draining_) {
    // With acks_late the message of the task running is unacked and fills a slot.
    const std::size_t unacked = reserved_.size() + (busy() && cfg.celery->acks_late ? 1 : 0);
    if (unacked >= window) {
      co_await prefetch_room_->wait();
      continue;
    }
    receive_options options;
    options.wait = cfg.long_poll;
    options.max_messages =
        static_cast<std::uint32_t>(std::min<std::size_t>(window - unacked, max_messages_per_receive));
    receive_result r = co_await jobs.receive(options);
    TWICE_CHECK(r.status == queue_status::ok);
    const sim::instant now = services_.kernel.now();
    for (received_message& m : r.messages) {
      if (m.eta && *m.eta > now) {
        emit(ev::eta_held{name_of(m.body), m.id, *m.eta});
        // Soonest first; among equal ETAs, in arrival order.
        const auto at =
            std::upper_bound(eta_held_.begin(), eta_held_.end(), *m.eta,
                             [](sim::instant eta, const received_message& held) { return eta < *held.eta; });
        eta_held_.insert(at, std::move(m));
      } else {
        reserved_.push_back(std::move(m));
      }
    }
    if (!r.messages.empty()) task_ready_->notify_one();
  }
}

std::optional<received_message> worker::next_celery_task() {
  std::optional<received_message> next;
  if (!eta_held_.empty() && *eta_held_.front().eta <= services_.kernel.now()) {
    next = std::move(eta_held_.front());
    eta_held_.erase(eta_held_.begin());
  } else if (!reserved_.empty()) {
    next = std::move(reserved_.front());
    reserved_.pop_front();
  }
  return next;
}

sim::task<void> worker::consume_celery() {
  while (!draining_) {
    std::optional<received_message> next = next_celery_task();
    if (!next) {
      const sim::instant wake = eta_held_.empty() ? sim::instant::max() : *eta_held_.front().eta;
      co_await task_ready_->wait_until(wake);
      continue;
    }
    co_await run_celery_task(std::move(*next));
    prefetch_room_->notify_one();
  }
  // Warm shutdown: the task that ran has finished; the channel closes.
  if (fetcher_.valid() && services_.kernel.alive(fetcher_)) services_.kernel.kill(fetcher_);
  fetcher_ = {};
  restore_reserved();
  drained_->trigger();
}

sim::task<void> worker::run_celery_task(received_message message) {
  queue& jobs = services_.jobs;
  const std::string job = message.body;
  const receipt_handle handle = message.handle;
  if (!services_.config.celery->acks_late) jobs.delete_message(handle);  // on_accepted
  prefetch_room_->notify_one();  // its slot is free (acked, or counted as the running one)
  std::optional<child_lost> lost;
  std::string runtime_error;
  try {
    co_await run_slice(&jobs, std::move(message));
  } catch (const child_lost& e) {
    lost = e;
  } catch (const slice_error& e) {
    runtime_error = e.what();
  }
  if (lost) {
    co_await on_worker_lost(*lost);
  } else if (!runtime_error.empty()) {
    // An error in the task after its handler (its checkpoint): Celery's
    // autoretry treats it as any exception of the task, a retry after the
    // backoff for the retries so far.
    emit(ev::runtime_error{name_of(job), name_of(runtime_error)});
    const std::optional<job_row> row = services_.db.find_job(job);
    TWICE_CHECK(row.has_value());
    const std::uint32_t retries = row->attempts > 0 ? row->attempts - 1 : 0;
    const queue_status st = republish(job, handle, backoff_.next_delay(retries));
    emit(ev::nack{name_of(job), retries, st});
  }
}

sim::task<void> worker::on_worker_lost(const child_lost& lost) {
  const celery_config& celery = *services_.config.celery;
  queue& jobs = services_.jobs;
  const bool requeue = celery.acks_late && celery.reject_on_worker_lost;
  emit(ev::worker_lost{name_of(lost.job), lost.attempt, requeue});
  if (requeue) {
    jobs.reject_requeue(lost.handle);
    co_return;
  }
  // Acked (again, harmlessly, without acks_late) and marked failed:
  // "WorkerLostError: Worker exited prematurely".
  co_await fail_celery_task(lost, "WorkerLostError");
}

// A hard time limit ends the same way whatever task_reject_on_worker_lost
// says: Request.on_timeout marks the task FAILURE (TimeLimitExceeded) and,
// with acks_late, acks it, task_acks_on_failure_or_timeout being True by
// default (celery/worker/request.py).
sim::task<void> worker::fail_celery_task(const child_lost& lost, const std::string& error) {
  services_.jobs.delete_message(lost.handle);
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.status = job_status::failed;
  change.last_error = error;
  change.unless_ended = true;
  change.lease_token = services_.next_lease_token++;
  co_await tx.update_job(lost.job, std::move(change));
  co_await tx.commit();
  const std::optional<job_row> row = services_.db.find_job(lost.job);
  TWICE_CHECK(row.has_value());
  if (row->status == job_status::failed && row->last_error == error)
    emit(ev::job_failed{name_of(lost.job), lost.attempt, name_of(error)});
}

queue_status worker::republish(const std::string& job, receipt_handle handle, sim::duration delay) {
  queue& jobs = services_.jobs;
  send_request retry;
  retry.body = job;
  retry.eta = services_.kernel.now() + delay;
  const send_result sent = jobs.send_message(std::move(retry));
  jobs.delete_message(handle);  // on_retry's ack; without acks_late the message is gone already
  return sent.status;
}

// QoS.restore_unacked (kombu/transport/redis.py, celery/kombu@9ee8595b835c):
// `for tag in self._delivered` (virtual/base.py's OrderedDict, in delivery
// order) restore_by_tag RPUSHes each back to the end BRPOP reads, so the last
// reserved is read first, ahead of what waited (queue::requeue_held).
void worker::restore_reserved() {
  std::vector<received_message> held(std::make_move_iterator(reserved_.begin()),
                                     std::make_move_iterator(reserved_.end()));
  held.insert(held.end(), std::make_move_iterator(eta_held_.begin()), std::make_move_iterator(eta_held_.end()));
  reserved_.clear();
  eta_held_.clear();
  std::sort(held.begin(), held.end(),
            [](const received_message& a, const received_message& b) { return a.handle < b.handle; });
  for (const received_message& m : held) services_.jobs.requeue_held(m.handle);
}

}  // namespace twice
