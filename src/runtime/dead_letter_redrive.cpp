#include "runtime/dead_letter_redrive.hpp"

#include <algorithm>
#include <utility>

#include "sim/sleep.hpp"
#include "store/store.hpp"

namespace twice {

dead_letter_redrive::dead_letter_redrive(sim::kernel& k, event_log& events, store& db, queue& dead_letters,
                                         source_of_job source_of, dead_letter_redrive_config config)
    : kernel_(k),
      events_(events),
      db_(db),
      dead_letters_(dead_letters),
      source_of_(std::move(source_of)),
      config_(config),
      actor_(events.name("operator")) {}

dead_letter_redrive::~dead_letter_redrive() {
  if (process_.valid() && kernel_.alive(process_)) kernel_.kill(process_);
}

void dead_letter_redrive::note_arrival() {
  if (alarm_ || runs_ >= config_.times) return;
  alarm_ = true;
  // Raised from an observer of the event log: emitted from its own event.
  kernel_.schedule_at(kernel_.now(), alarm_callback, this);
}

bool dead_letter_redrive::pending() const { return alarm_ || (runs_ < config_.times && dead_letters_.size() != 0); }

void dead_letter_redrive::alarm_callback(sim::kernel& k, void* ctx, std::uint64_t) {
  auto* self = static_cast<dead_letter_redrive*>(ctx);
  self->events_.emit(self->actor_, ev::dead_letter_alarm{static_cast<std::int64_t>(self->dead_letters_.size()),
                                                         k.now() + self->config_.after});
  self->process_ = k.spawn(self->redrive(), "operator/redrive");
}

sim::task<void> dead_letter_redrive::redrive() {
  co_await sim::sleep_for(config_.after);
  std::vector<std::string> jobs = dead_letters_.visible_bodies();
  transaction tx = co_await db_.begin("operator");
  for (const std::string& job : jobs) {
    job_update change;
    change.requeue_redriven = true;
    const store_status st = co_await tx.update_job(job, std::move(change));
    TWICE_CHECK(st == store_status::ok);  // every message's job has a row
  }
  // Nothing fences this update: it commits.
  TWICE_CHECK((co_await tx.commit()).ok());
  // One move task per source queue, each moving only the rows step 1 saw.
  std::vector<queue*> sources;
  for (const std::string& job : jobs) {
    queue* q = &source_of_(job);
    if (std::find(sources.begin(), sources.end(), q) == sources.end()) sources.push_back(q);
  }
  std::sort(jobs.begin(), jobs.end());
  for (queue* target : sources)
    dead_letters_.move_visible_to(*target, [&](std::string_view body) {
      return std::binary_search(jobs.begin(), jobs.end(), body) && &source_of_(body) == target;
    });
  ++runs_;
  alarm_ = false;
  // Dead letters that arrived while the runbook ran raise the alarm again.
  if (dead_letters_.size() != 0) note_arrival();
}

}  // namespace twice
