#pragma once
// How Sidekiq's JobRetry treats an exception (sidekiq/sidekiq v8.1.7,
// lib/sidekiq/job_retry.rb), where versions or a job's own options differ
// from the flavour's defaults. Only with queue.flavour = "sidekiq".

#include <twice/runtime/sidekiq_retry_in.hpp>

namespace twice {

struct sidekiq_retry_config {
  // Sidekiq's hard shutdown pushes its unfinished jobs back (bulk_requeue),
  // then raises Sidekiq::Shutdown in each busy thread. A thread blocked in
  // I/O (Net::HTTP, an ActiveRecord query) may see it wrapped into another
  // exception, which JobRetry took for a failure: the job was pushed back
  // AND put in the retry set, so it ran twice (sidekiq/sidekiq#1805,
  // "Prevent exceptions caused by Sidekiq::Shutdown from causing jobs to be
  // retried", merged 2014-06-27; #897). Since then `local` re-raises
  // Sidekiq::Shutdown when `exception_caused_by_shutdown?` finds it in the
  // cause chain, and nothing goes to the retry set. true: the behaviour
  // before #1805.
  bool wrapped_shutdown_retried = false;
  // The job's `sidekiq_retry_in` block (runtime/sidekiq_retry_in.hpp); all
  // `schedule` when the job has none.
  sidekiq_retry_in retry_in{};
  friend bool operator==(const sidekiq_retry_config&, const sidekiq_retry_config&) = default;
};

}  // namespace twice
