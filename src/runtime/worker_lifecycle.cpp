// A worker's life as a pod: it starts, crashes and restarts, drains, stops,
// and is watched by the kubelet's liveness probe (runtime/worker.hpp). The
// consumer loops are in worker.cpp, celery_consumer.cpp and kafka_consumer.cpp,
// a failed attempt's retry in worker_retry.cpp and worker_job_retry.cpp, the
// execution timeout in worker_execution_timeout.cpp.

#include "runtime/worker_slice.hpp"
#include <twice/sim/sleep.hpp>

#include "broker/consumer_group.hpp"
#include "runtime/worker.hpp"

namespace twice {

void worker::start() {
  TWICE_CHECK(!running());
  ++incarnation_;
  draining_ = false;
  drained_ = std::make_unique<sim::signal>(services_.kernel);
  sha_name_ = name_of(sha_);
  // A new process: its SDK client, and so its retry budget, starts full.
  if (services_.config.retry_budget) retry_budget_.emplace(*services_.config.retry_budget);
  if (services_.config.retry_breaker) retry_breaker_.emplace(*services_.config.retry_breaker);
  breakers_.clear();  // and its breakers start closed
  // A streaming pull client starts from 10 s (runtime/pubsub_ack_deadline.hpp).
  pubsub_deadline_.reset();
  if (services_.jobs.config().pubsub && services_.config.heartbeat_interval)
    pubsub_deadline_.emplace(services_.jobs.config().semantics == handle_semantics::strict);
  emit(ev::pod_start{sha_name_});
  // super_fetch: a starting process looks for dead processes' jobs, and
  // looks again every hour while it runs.
  if (services_.jobs.config().super_fetch) {
    recover_orphans();
    orphan_checker_ = services_.kernel.spawn(check_orphans_forever(), name_ + "/orphan_check");
  }
  if (services_.config.celery) {
    task_ready_ = std::make_unique<sim::condition>(services_.kernel);
    prefetch_room_ = std::make_unique<sim::condition>(services_.kernel);
    consumer_ = services_.kernel.spawn(consume_celery(), name_);
    fetcher_ = services_.kernel.spawn(fetch_celery(), name_ + "/fetcher");
  } else if (services_.config.kafka) {
    kafka_ = {};  // a new process: a new consumer, not yet a member
    kafka_.next_auto_commit = services_.kernel.now() + services_.config.kafka->auto_commit_interval;
    consumer_ = services_.kernel.spawn(consume_kafka(), name_);
    const kafka_config& k = *services_.config.kafka;
    if (k.enable_auto_commit && k.client == kafka_client::librdkafka)
      offset_committer_ = services_.kernel.spawn(kafka_commit_in_background(), name_ + "/auto_commit");
  } else {
    consumer_ = services_.kernel.spawn(consume(), name_);
  }
  if (services_.config.liveness_probe) prober_ = services_.kernel.spawn(probe_liveness(), name_ + "/liveness");
}

void worker::recover_orphans() {
  services_.jobs.recover_orphans();
  for (weighted_queue& q : services_.job_queues)
    if (q.source != &services_.jobs) q.source->recover_orphans();
}

// Sidekiq Pro checks for orphans at a process's start and then "as often as
// every hour" (Pro-Changes.md 3.4.1) while it runs; the queue keeps the
// fleet to one check an hour (queue::recover_orphans), so a pod restarted
// within the minute leaves its job orphaned until a running process's next
// look, not until another start.
sim::task<void> worker::check_orphans_forever() {
  while (true) {
    co_await sim::sleep_for(super_fetch_orphan_check);
    recover_orphans();
  }
}

void worker::kill_processes() {
  // The heartbeat first: it points at the slice in the consumer's frame.
  if (heartbeat_.valid()) services_.kernel.kill(heartbeat_);
  heartbeat_ = {};
  if (consumer_.valid()) services_.kernel.kill(consumer_);
  consumer_ = {};
  if (prober_.valid() && services_.kernel.alive(prober_)) services_.kernel.kill(prober_);
  prober_ = {};
  if (orphan_checker_.valid() && services_.kernel.alive(orphan_checker_)) services_.kernel.kill(orphan_checker_);
  orphan_checker_ = {};
  if (fetcher_.valid() && services_.kernel.alive(fetcher_)) services_.kernel.kill(fetcher_);
  fetcher_ = {};
  if (offset_committer_.valid() && services_.kernel.alive(offset_committer_)) services_.kernel.kill(offset_committer_);
  offset_committer_ = {};
  // What a Celery worker reserved dies with its memory; the broker keeps it
  // unacked until the visibility timeout restores it.
  reserved_.clear();
  eta_held_.clear();
  in_call_ = false;  // a call in flight died with the process
}

// A process that dies holds its message no more. On a lease the broker
// brings it back when the lease runs out; on a queue that holds it until the
// ack (Sidekiq's BasicFetch) it is lost, unless the runtime pushed it back
// first (Sidekiq's hard shutdown); with super_fetch it is orphaned, for a
// process that starts later to recover.
void worker::release_held(bool push_back) {
  if (slice_ == nullptr || slice_->source_ == nullptr || !slice_->source_->config().hold_until_ack) return;
  queue& source = *slice_->source_;
  const receipt_handle handle = slice_->message_.handle;
  // A slice that already nacked or acked holds nothing any more: answered invalid_handle.
  if (push_back)
    source.requeue_held(handle);
  else if (source.config().super_fetch)
    source.orphan_held(handle);
  else
    source.drop_held(handle);
}

// Sidekiq before PR #1805 (runtime/sidekiq_retry_config.hpp): the
// Sidekiq::Shutdown raised into a thread blocked in a call comes out of the
// client as another error, and JobRetry puts the job in the retry set as for
// any failure, after the hard shutdown already pushed it back: two copies.
// The retry count is the slice's (the killed thread writes no row).
void worker::retry_wrapped_shutdown() {
  if (!services_.config.sidekiq_retry.wrapped_shutdown_retried || !in_call_ || slice_ == nullptr) return;
  slice& s = *slice_;
  if (s.source_ == nullptr || !s.source_->config().hold_until_ack) return;
  slice_outcome wrapped;
  wrapped.error = "Sidekiq::Shutdown wrapped by the call's error";
  const sim::duration delay = backoff_.next_delay(s.attempt_);
  trace_backoff(s, wrapped, delay, retry_mode::nack);
  s.source_->schedule_retry(s.spec_.id, delay);
}

void worker::crash(std::string_view why, bool restart) {
  if (!running()) return;
  const bool in_flight = slice_ != nullptr;
  emit(ev::crash{name_of(why), sha_name_, in_flight, in_flight ? slice_->job_name_ : 0});
  release_held(false);
  kafka_heartbeats_stop();
  end_slice("crashed");
  kill_processes();
  if (draining_) {
    // A pod being terminated is not restarted: nothing is in flight any more.
    ++incarnation_;
    drained_->trigger();
    return;
  }
  if (restart) services_.kernel.schedule_after(services_.config.restart_delay, restart_callback, this, ++incarnation_);
}

void worker::restart_callback(sim::kernel&, void* ctx, std::uint64_t incarnation) {
  auto* w = static_cast<worker*>(ctx);
  if (w->incarnation_ != incarnation || w->running()) return;  // stopped or restarted since
  w->start();
}

void worker::begin_drain() {
  draining_ = true;
  emit(ev::drain{slice_ != nullptr});
  if (task_ready_) task_ready_->notify_all();  // an idle Celery executor starts its warm shutdown
  if (services_.group != nullptr) services_.group->changed().notify_all();  // a Kafka consumer in poll closes
  if (!running()) {
    ++incarnation_;  // a crashed pod waiting for its restart is simply gone
    drained_->trigger();
  }
}

void worker::stop(ev::stop_reason why) {
  const bool in_flight = slice_ != nullptr;
  emit(ev::stop{why, in_flight, in_flight ? slice_->job_name_ : 0});
  release_held(why == ev::stop_reason::shutdown_timeout);
  if (why == ev::stop_reason::shutdown_timeout) retry_wrapped_shutdown();
  // The story's end stops every pod at once: no member's session expires after it.
  if (why != ev::stop_reason::shutdown) kafka_heartbeats_stop();
  end_slice("killed");
  ++incarnation_;  // no pending restart brings this pod back
  kill_processes();
}

// The kubelet's prober (runtime/liveness_probe.hpp), as a process of the
// pod: it dies with the pod, and a restarted pod starts a new one.
sim::task<void> worker::probe_liveness() {
  const liveness_probe_config& cfg = *services_.config.liveness_probe;
  co_await sim::sleep_for(cfg.initial_delay);
  std::uint32_t failures = 0;
  while (true) {
    const sim::instant sent = services_.kernel.now();
    // The loop answers at once unless a call blocks it; then only if that
    // call returns within the timeout.
    bool failed = false;
    if (in_call_) {
      const std::uint64_t call = calls_started_;
      co_await sim::sleep_for(cfg.timeout);
      failed = in_call_ && calls_started_ == call;
    }
    if (!failed) {
      failures = 0;
    } else {
      ++failures;
      const bool restart = failures >= cfg.failure_threshold;
      const sim::instant kill_at = services_.kernel.now() + cfg.termination_grace;
      emit(ev::probe_failed{slice_ != nullptr ? slice_->job_name_ : 0, failures, cfg.failure_threshold, kill_at});
      if (restart) {
        // SIGTERM now, which the blocked loop cannot act on; SIGKILL after the grace period.
        services_.kernel.schedule_at(kill_at, liveness_kill_callback, this, incarnation_);
        co_return;
      }
    }
    sim::instant next = sent + cfg.period;
    while (next < services_.kernel.now()) next = next + cfg.period;  // a tick missed while waiting is skipped
    co_await sim::sleep_for(next - services_.kernel.now());
  }
}

void worker::liveness_kill_callback(sim::kernel&, void* ctx, std::uint64_t incarnation) {
  auto* w = static_cast<worker*>(ctx);
  if (w->incarnation_ != incarnation || !w->running()) return;  // stopped or restarted since
  w->crash("liveness probe failed");
}

}  // namespace twice
