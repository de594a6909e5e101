#include "runtime/orphan_rescue.hpp"

#include <string>
#include <utility>
#include <vector>

#include <twice/sim/sleep.hpp>
#include <twice/store/store.hpp>

#include "runtime/worker.hpp"

namespace twice {

orphan_rescue::orphan_rescue(runtime_services& services, orphan_rescue_config config, requeue_job requeue)
    : services_(services), config_(config), requeue_(std::move(requeue)), actor_(services.events.name("lifeline")) {}

orphan_rescue::~orphan_rescue() { stop(); }

void orphan_rescue::start() {
  if (!process_.valid() || !services_.kernel.alive(process_))
    process_ = services_.kernel.spawn(sweep_forever(), "lifeline");
}

void orphan_rescue::stop() {
  if (process_.valid() && services_.kernel.alive(process_)) services_.kernel.kill(process_);
}

sim::task<void> orphan_rescue::sweep_forever() {
  while (true) {
    co_await sim::sleep_for(config_.interval);
    const sim::instant now = services_.kernel.now();
    if (now.us() < config_.rescue_after.us()) continue;  // nothing can have been claimed that long ago
    transaction query = co_await services_.db.begin("lifeline");
    const std::vector<job_row> stuck = co_await query.running_jobs_claimed_before(now - config_.rescue_after);
    query.rollback();  // a read: nothing to commit
    for (const job_row& row : stuck) co_await rescue(row);
  }
}

sim::task<void> orphan_rescue::rescue(job_row row) {
  const std::uint32_t max_attempts = services_.config.retry.maximum_attempts;
  // The worker's own limit (worker.cpp): redrives and earlier grants count.
  const std::uint32_t limit = max_attempts == 0 ? 0 : max_attempts * (row.redrives + 1) + row.attempts_granted;
  const bool exhausted = limit != 0 && row.attempts >= limit;
  const bool discard = exhausted && config_.exhausted == exhausted_orphans::discard;
  job_update change;
  change.expect_lease_token = row.lease_token;  // fenced: a slice that moved the row on since keeps it
  if (discard) {
    change.status = job_status::dead_lettered;
    change.last_error = "orphan rescue: attempts exhausted";
    change.lease_token = services_.next_lease_token++;  // ending a job revokes every lease, as finish() does
  } else {
    change.status = job_status::queued;
    change.grant_attempt = exhausted;
  }
  transaction tx = co_await services_.db.begin("lifeline");
  if (co_await tx.update_job(row.job_id, change) != store_status::ok) co_return;
  if (!(co_await tx.commit()).ok()) co_return;
  ++rescued_;
  const ev::name_id job = services_.events.name(row.job_id);
  const std::string_view outcome = discard ? "discarded" : exhausted ? "granted" : "queued";
  services_.events.emit(actor_, ev::orphan_rescued{job, row.attempts, row.attempted_at.value_or(sim::instant{}),
                                                   services_.events.name(outcome)});
  if (discard) {
    if (services_.dead_letters != nullptr) services_.dead_letters->send(row.job_id);
    services_.events.emit(actor_, ev::dead_letter{job, row.attempts, services_.events.name(*change.last_error)});
  } else {
    requeue_(row.job_id);
  }
}

}  // namespace twice
