#pragma once
// An orphan rescue: the sweeper job runners on a database table run (Oban's
// Lifeline plugin, Que, GoodJob) and teams bolt onto a broker with long
// leases. Every `interval` it looks for job rows that say running and were
// claimed more than `rescue_after` ago, takes them for orphans of a dead
// worker, and re-queues each: its row goes back to queued and a new message
// is sent for it. A row whose attempts are used up is ended instead
// (`exhausted = discard`) or granted one more attempt and re-queued
// (`exhausted = retry`).
//
// What it cannot know, and the hazards the catalogue shows: rescuing "is
// purely based on time" (Oban's docs), so a slice that is merely slow is
// rescued too and its job runs twice at once (hexpm/hexpm#1825: a nightly
// task of 9 to 47 minutes under a rescue_after of 6 ran two or three times a
// night); and a rescue that revives exhausted jobs runs a job that kills its
// worker forever (oban-bg/oban#137: a job that crashed the BEAM ran 32
// attempts with max_attempts 1).
//
// Each row is rescued in its own transaction, fenced on the lease token the
// query read (`UPDATE jobs SET status = 'queued' WHERE id = $1 AND
// lease_token = $2`): a slice that claimed or ended the job since keeps it.

#include <cstdint>
#include <functional>
#include <string_view>

#include <twice/events/event_log.hpp>
#include <twice/runtime/orphan_rescue_config.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>
#include <twice/store/rows.hpp>

namespace twice {

struct runtime_services;

class orphan_rescue {
 public:
  // Sends a new message for the job, to the queue its messages go to.
  using requeue_job = std::function<void(std::string_view job)>;

  orphan_rescue(runtime_services& services, orphan_rescue_config config, requeue_job requeue);
  orphan_rescue(const orphan_rescue&) = delete;
  orphan_rescue& operator=(const orphan_rescue&) = delete;
  ~orphan_rescue();

  void start();
  void stop();
  std::uint64_t rescued() const { return rescued_; }

 private:
  sim::task<void> sweep_forever();
  sim::task<void> rescue(job_row row);

  runtime_services& services_;
  orphan_rescue_config config_;
  requeue_job requeue_;
  ev::name_id actor_ = 0;
  std::uint64_t rescued_ = 0;
  sim::process_id process_;
};

}  // namespace twice
