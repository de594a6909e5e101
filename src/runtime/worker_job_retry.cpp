// Sidekiq's JobRetry#process_retry where the job overrides the schedule:
// its `sidekiq_retry_in` block (runtime/sidekiq_retry_in.hpp) and its
// `retry_for` (retry_policy::retry_for). Source: sidekiq/sidekiq v8.1.7,
// lib/sidekiq/job_retry.rb (commit 1bb4aa06e5aa); line numbers below are
// that file's.

#include <fmt/core.h>

#include <algorithm>

#include "runtime/worker.hpp"
#include "runtime/worker_slice.hpp"
#include "sim/duration_text.hpp"
#include <twice/store/store.hpp>

namespace twice {

bool worker::job_retry_overridden(const slice& s) const {
  const runtime_config& cfg = services_.config;
  return s.source_ != nullptr && s.source_->config().hold_until_ack &&
         (cfg.retry.retry_for.has_value() || overrides_schedule(cfg.sidekiq_retry.retry_in));
}

sim::task<void> worker::sidekiq_process_retry(slice& s, const slice_outcome& outcome) {
  const runtime_config& cfg = services_.config;
  const sim::instant now = services_.kernel.now();
  const std::optional<job_row> row = services_.db.find_job(s.spec_.id);
  TWICE_CHECK(row.has_value());
  // failed_at is stamped at the first failure and kept (lines 162-168).
  const sim::instant failed_at = row->failed_at.value_or(now);

  // Exhaustion comes first, before the block is asked (lines 181-188):
  // with retry_for, only the time since failed_at counts (`(failed_at + rf)
  // < Time.now`), never the count; without it, the count.
  if (cfg.retry.retry_for) {
    if (failed_at + *cfg.retry.retry_for < now) {
      co_await dead_letter(s,
                           fmt::format("retry_for {} passed since the first failure: {}",
                                       sim::format_duration(*cfg.retry.retry_for), outcome.error),
                           /*failed=*/true);
      co_return;
    }
  } else if (s.take_back_ == 0 && out_of_attempts(attempts_after_failure(s), s.attempt_limit_)) {
    co_await dead_letter(s, outcome.error, /*failed=*/true);
    co_return;
  }

  // delay_for (lines 219-248): the block, asked with the exception. A
  // failure that is not a call's (an error in the runtime's own steps) is
  // none of the kinds a scenario names: the schedule.
  const bool from_call = outcome.timed_out || outcome.status != 0 || s.deadline_raised_;
  const sidekiq_failure kind = s.deadline_raised_ ? sidekiq_failure::timeout : sidekiq_failure_of(outcome.status);
  const retry_in_choice choice =
      from_call ? cfg.sidekiq_retry.retry_in[static_cast<std::size_t>(kind)] : retry_in_choice{};
  switch (choice.action) {
    case retry_in_action::discard:
      // "do nothing, job goes poof" (line 242): discarded_at, the death
      // handlers, and no dead set (lines 192-195).
      co_await dead_letter(s, fmt::format("sidekiq_retry_in returned :discard, DISCARDED: {}", outcome.error),
                           /*failed=*/true, /*discard=*/true);
      co_return;
    case retry_in_action::kill:
      // retries_exhausted (lines 196-197, 250-273): the dead set, or
      // discarded with no dead set (`dead: false`).
      co_await dead_letter(s, fmt::format("sidekiq_retry_in returned :kill: {}", outcome.error), /*failed=*/true);
      co_return;
    case retry_in_action::schedule:
    case retry_in_action::delay:
      break;
  }

  // The jitter rand(10 * (count + 1)) goes on whichever delay (lines
  // 202-203); the block's delay has no Retry-After floor and no cap.
  const bool own_delay = choice.action == retry_in_action::delay;
  const sim::duration delay = own_delay
                                  ? std::min(uncapped_retry_wait, choice.delay + backoff_.sidekiq_jitter(s.attempt_))
                                  : backoff_.next_delay(s.attempt_, outcome.retry_after);
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.status = job_status::queued;
  change.last_error = outcome.error;
  change.unless_ended = true;
  change.count_failure = attempts_per_failure();
  change.take_back = s.take_back_;
  change.first_failed_at = now;
  co_await tx.update_job(s.spec_.id, std::move(change));
  co_await tx.commit();
  if (own_delay) {
    // The block's own schedule: its delay and the jitter's most are the
    // envelope, above the schedule's bound if it is longer.
    const sim::duration envelope = std::min(uncapped_retry_wait, choice.delay + sidekiq_jitter_max(s.attempt_));
    emit(ev::backoff{s.job_name_, s.attempt_, name_of(outcome.error), delay, envelope,
                     std::max(envelope, effective_cap(cfg.retry)), outcome.retry_after, retry_mode::nack,
                     ev::retry_route::retry_set, false});
  } else {
    trace_backoff(s, outcome, delay, retry_mode::nack);
  }
  // ZADD to the retry set (lines 204-207).
  const queue_status st = s.source_->change_visibility(s.message_.handle, delay);
  emit(ev::nack{s.job_name_, s.attempt_, st});
}

}  // namespace twice
