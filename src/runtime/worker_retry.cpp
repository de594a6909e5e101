// A failed attempt's accounting and its retry: how many attempts a failure
// counts (runtime.count_attempts, count_failures, uncount_unavailable),
// when a job is out of them (runtime.attempts_left), the nack with its
// backoff (or a Pub/Sub subscription's RetryPolicy), and the backoff's trace.
// Sidekiq's sidekiq_retry_in and retry_for are worker_job_retry.cpp's.

#include "runtime/worker_slice.hpp"

#include <algorithm>

#include <twice/store/store.hpp>

#include "runtime/worker.hpp"

namespace twice {

std::uint32_t worker::attempts_per_failure() const {
  // A failed attempt adds 1 in all, or 2 with count_failures = "twice":
  // counted at the start, the failure adds what is left of that.
  const runtime_config& cfg = services_.config;
  const std::uint32_t in_all = cfg.count_failures == failure_counting::twice ? 2 : 1;
  return cfg.count_attempts == attempt_counting::at_start ? in_all - 1 : in_all;
}

std::uint32_t worker::attempts_after_failure(const slice& s) const {
  // Counted at the start, the attempt that failed is already one of them.
  return s.attempt_ + (services_.config.count_attempts == attempt_counting::at_start ? 1 : 0) + attempts_per_failure();
}

bool worker::out_of_attempts(std::uint32_t attempts, std::uint32_t limit) const {
  if (limit == 0) return false;  // unlimited
  return services_.config.attempts_left == attempts_left_check::not_at_limit ? attempts == limit : attempts >= limit;
}

std::uint32_t worker::attempts_taken_back(const slice_outcome& outcome) const {
  const runtime_config& cfg = services_.config;
  if (cfg.count_attempts != attempt_counting::at_start || (outcome.status != 503 && outcome.status != 429)) return 0;
  switch (cfg.uncount_unavailable) {
    case attempt_take_back::never:
      return 0;
    case attempt_take_back::once:
      return 1;
    case attempt_take_back::twice:
      return 2;  // the bug
  }
  return 0;
}

sim::task<void> worker::retry_later(slice& s, const slice_outcome& outcome) {
  if (job_retry_overridden(s)) {
    co_await sidekiq_process_retry(s, outcome);
    co_return;
  }
  if (s.take_back_ == 0 && out_of_attempts(attempts_after_failure(s), s.attempt_limit_)) {
    co_await dead_letter(s, outcome.error, /*failed=*/true);
    co_return;
  }
  // A Pub/Sub client nacks: Message.nack() is a modifyAckDeadline of 0
  // (python-pubsub message.py), and the subscription's RetryPolicy, if it
  // has one, holds the message for its backoff (broker/pubsub_retry_policy.hpp).
  // A server's Retry-After above that is honoured with a modack to it
  // (Message.modify_ack_deadline), at most 600 s.
  const pubsub_nack nack = pubsub_nack_of(s, outcome);
  const sim::duration delay = nack.pubsub ? nack.delay : backoff_.next_delay(s.attempt_, outcome.retry_after);
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.status = job_status::queued;
  change.last_error = outcome.error;
  change.unless_ended = true;  // another slice may have finished the job meanwhile
  change.count_failure = attempts_per_failure();
  change.take_back = s.take_back_;
  co_await tx.update_job(s.spec_.id, std::move(change));
  co_await tx.commit();
  trace_backoff(s, outcome, delay, retry_mode::nack, nack.pubsub ? &nack : nullptr);
  // The nack: the message becomes visible again once the backoff passed
  // (on Celery: a new message with that countdown).
  TWICE_CHECK(s.source_ != nullptr);  // a Kafka consumer retries in place (the loader refuses retry = "nack")
  const queue_status st = services_.config.celery ? republish(s.spec_.id, s.message_.handle, delay)
                          : nack.pubsub           ? s.source_->change_visibility(s.message_.handle, nack.modack)
                                                  : s.source_->change_visibility(s.message_.handle, delay);
  emit(ev::nack{s.job_name_, s.attempt_, st});
}

// The failure of an attempt retried in the slice, recorded on the row before
// the backoff: counted (runtime.count_attempts = at_failure), or its count
// given back (runtime.uncount_unavailable).
sim::task<void> worker::record_failure(slice& s, std::string_view error) {
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.last_error = std::string(error);
  change.unless_ended = true;
  change.count_failure = attempts_per_failure();
  change.take_back = s.take_back_;
  co_await tx.update_job(s.spec_.id, std::move(change));
  co_await tx.commit();
}

worker::pubsub_nack worker::pubsub_nack_of(const slice& s, const slice_outcome& outcome) const {
  pubsub_nack out;
  // With discipline.retry = "in_slice" the application paces its own
  // retries ([retry]), and the give-back after them (an attempt given back
  // by runtime.uncount_unavailable) is a modack to its own backoff, as before.
  if (s.source_ == nullptr || !s.source_->config().pubsub || services_.config.rules.retry != retry_mode::nack)
    return out;
  out.pubsub = true;
  const std::optional<pubsub_retry_policy>& policy = s.source_->config().retry_policy;
  out.backoff = policy ? pubsub_retry_delay(*policy, s.message_.receive_count) : sim::duration::zero();
  out.cap = policy ? policy->maximum_backoff : sim::duration::zero();
  out.modack =
      outcome.retry_after > out.backoff ? std::min(outcome.retry_after, max_ack_deadline) : sim::duration::zero();
  out.delay = std::max(out.backoff, out.modack);
  return out;
}

void worker::trace_backoff(const slice& s, const slice_outcome& outcome, sim::duration delay, retry_mode mode,
                           const pubsub_nack* subscription) {
  const retry_policy& policy = services_.config.retry;
  // A nack on Sidekiq is the retry set, on Celery a republish with a
  // countdown; Sidekiq's schedule's only bound is its last retry.
  const ev::retry_route route = mode != retry_mode::nack  ? ev::retry_route::visibility
                                : services_.config.celery ? ev::retry_route::republish
                                : s.source_ != nullptr && s.source_->config().hold_until_ack
                                    ? ev::retry_route::retry_set
                                    : ev::retry_route::visibility;
  const bool schedule_bound =
      policy.jitter == jitter_kind::sidekiq && !policy.maximum_interval && effective_cap(policy) < uncapped_ceiling;
  // A Pub/Sub nack's wait is the subscription's, with no jitter: its own envelope and cap.
  emit(ev::backoff{s.job_name_, s.attempt_, name_of(outcome.error), delay,
                   subscription != nullptr ? subscription->backoff : backoff_envelope(policy, s.attempt_),
                   subscription != nullptr ? subscription->cap : effective_cap(policy), outcome.retry_after, mode,
                   route, schedule_bound});
}

}  // namespace twice
