#include "runtime/dead_letter_redrive.hpp"

#include <algorithm>
#include <utility>

#include <twice/sim/sleep.hpp>
#include <twice/store/store.hpp>

namespace twice {

dead_letter_redrive::dead_letter_redrive(sim::kernel& k, event_log& events, store& db, queue& dead_letters,
                                         source_of_job source_of, dead_letter_redrive_config config)
    : kernel_(k),
      events_(events),
      db_(db),
      dead_letters_(dead_letters),
      source_of_(std::move(source_of)),
      config_(config),
      actor_(events.name("operator")),
      alarm_states_(config.alarm_states()) {}

dead_letter_redrive::~dead_letter_redrive() {
  if (process_.valid() && kernel_.alive(process_)) kernel_.kill(process_);
  for (const sim::process_id p : answers_)
    if (kernel_.alive(p)) kernel_.kill(p);
}

void dead_letter_redrive::note_arrival(std::string_view body) {
  if (alarm_states_) {
    arrivals_.push_back({kernel_.now(), std::string(body)});
    if (!depth_alarm_) evaluate_at_period_end(kernel_.now());
    arm_age_check();
    return;
  }
  if (alarm_ || runs_ >= config_.times) return;
  alarm_ = true;
  // Raised from an observer of the event log: emitted from its own event.
  kernel_.schedule_at(kernel_.now(), alarm_callback, this);
}

void dead_letter_redrive::note_departure() {
  if (alarm_states_ && (depth_alarm_ || age_alarm_)) evaluate_at_period_end(kernel_.now());
}

bool dead_letter_redrive::pending() const {
  if (alarm_states_) return evaluations_pending_ != 0 || answers_pending_ != 0;
  return alarm_ || (runs_ < config_.times && dead_letters_.size() != 0);
}

void dead_letter_redrive::alarm_callback(sim::kernel& k, void* ctx, std::uint64_t) {
  auto* self = static_cast<dead_letter_redrive*>(ctx);
  self->events_.emit(self->actor_, ev::dead_letter_alarm{static_cast<std::int64_t>(self->dead_letters_.size()),
                                                         k.now() + self->config_.after});
  self->process_ = k.spawn(self->redrive(), "operator/redrive");
}

sim::task<void> dead_letter_redrive::redrive() {
  co_await sim::sleep_for(config_.after);
  co_await runbook();
  alarm_ = false;
  // Dead letters that arrived while the runbook ran raise the alarm again.
  if (dead_letters_.size() != 0) note_arrival({});
}

sim::task<void> dead_letter_redrive::runbook() {
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
}

// ---- CloudWatch alarm states and the pager (alarm_states()) ----

namespace {
constexpr std::int64_t period_us = 60'000'000;  // SQS's 1-minute CloudWatch metrics
// The datapoint of the period holding `at` is evaluated when it closes.
sim::instant period_end(sim::instant at) { return sim::instant::from_us((at.us() / period_us + 1) * period_us); }
}  // namespace

void dead_letter_redrive::evaluate_at_period_end(sim::instant after) {
  const sim::instant at = period_end(after);
  ++evaluations_pending_;
  kernel_.schedule_at(at, evaluate_callback, this);
}

void dead_letter_redrive::evaluate_callback(sim::kernel&, void* ctx, std::uint64_t) {
  auto* self = static_cast<dead_letter_redrive*>(ctx);
  --self->evaluations_pending_;
  self->evaluate();
}

void dead_letter_redrive::evaluate() {
  // Forget the arrivals whose message is gone (expired, moved out).
  std::vector<std::string_view> held;
  dead_letters_.for_each_message([&](const queue::held_view& m) { held.push_back(m.body); });
  std::sort(held.begin(), held.end());
  std::erase_if(arrivals_, [&](const arrival& a) { return !std::binary_search(held.begin(), held.end(), a.body); });
  const auto messages = static_cast<std::int64_t>(dead_letters_.size());
  if ((messages > 0) != depth_alarm_) set_state(alarm::depth, messages > 0, messages);
  if (!config_.age_alarm) return;
  const sim::duration age = arrivals_.empty() ? sim::duration::zero() : kernel_.now() - arrivals_.front().at;
  const bool old = !arrivals_.empty() && *config_.age_alarm <= age;
  if (old != age_alarm_) set_state(alarm::age, old, age.us());
  arm_age_check();
}

// Not yet old enough: look again when the oldest held dead letter's age
// crosses the threshold (once per such instant).
void dead_letter_redrive::arm_age_check() {
  if (!config_.age_alarm || age_alarm_ || arrivals_.empty()) return;
  const sim::instant at = period_end(arrivals_.front().at + *config_.age_alarm);
  if (age_check_ == at) return;
  age_check_ = at;
  ++evaluations_pending_;
  kernel_.schedule_at(at, evaluate_callback, this);
}

void dead_letter_redrive::set_state(alarm which, bool in_alarm, std::int64_t value) {
  (which == alarm::depth ? depth_alarm_ : age_alarm_) = in_alarm;
  events_.emit(actor_, ev::alarm_state{events_.name(which == alarm::depth ? "depth" : "age"),
                                       events_.name(in_alarm ? "ALARM" : "OK"), value});
  if (in_alarm) {
    ++(which == alarm::depth ? depth_spells_ : age_spells_);
    open_incident(which);
    arm_renotify(which);
  } else {
    close_incidents(incident_state::alarm_ok, which);
  }
}

// The re-notification loop of one spell in ALARM: it keeps the story going
// (pending) as the evaluations do, and ends when the alarm returns to OK.
void dead_letter_redrive::arm_renotify(alarm which) {
  if (!config_.renotify_every) return;
  const std::uint64_t spell = which == alarm::depth ? depth_spells_ : age_spells_;
  ++evaluations_pending_;
  kernel_.schedule_at(kernel_.now() + *config_.renotify_every, renotify_callback, this,
                      (spell << 1) | (which == alarm::age ? 1U : 0U));
}

void dead_letter_redrive::renotify_callback(sim::kernel&, void* ctx, std::uint64_t alarm_and_spell) {
  auto* self = static_cast<dead_letter_redrive*>(ctx);
  --self->evaluations_pending_;
  const alarm which = (alarm_and_spell & 1U) != 0 ? alarm::age : alarm::depth;
  const bool in_alarm = which == alarm::depth ? self->depth_alarm_ : self->age_alarm_;
  const std::uint64_t spell = which == alarm::depth ? self->depth_spells_ : self->age_spells_;
  if (!in_alarm || spell != (alarm_and_spell >> 1)) return;  // back to OK since
  std::int64_t open = 0;
  for (std::size_t n = 0; n < self->incidents_.size(); ++n)
    if (self->incidents_[n].from == which && self->incidents_[n].state == incident_state::open)
      open = static_cast<std::int64_t>(n + 1);
  self->events_.emit(self->actor_, ev::renotify{self->events_.name(which == alarm::depth ? "depth" : "age"), open});
  if (open == 0) self->open_incident(which);
  self->arm_renotify(which);
}

void dead_letter_redrive::open_incident(alarm which) {
  const std::size_t n = incidents_.size();
  incidents_.push_back({which, incident_state::open});
  const sim::instant now = kernel_.now();
  events_.emit(actor_, ev::page{static_cast<std::int64_t>(n + 1), events_.name(which == alarm::depth ? "depth" : "age"),
                                static_cast<std::int64_t>(dead_letters_.size()), now + config_.after,
                                config_.auto_resolve ? (now + *config_.auto_resolve).us() : -1});
  if (config_.auto_resolve) kernel_.schedule_at(now + *config_.auto_resolve, auto_resolve_callback, this, n);
  ++answers_pending_;
  answers_.push_back(kernel_.spawn(answer(n), "operator/answer"));
}

void dead_letter_redrive::auto_resolve_callback(sim::kernel&, void* ctx, std::uint64_t n) {
  auto* self = static_cast<dead_letter_redrive*>(ctx);
  incident& i = self->incidents_[n];
  if (i.state != incident_state::open) return;
  i.state = incident_state::auto_resolved;
  self->events_.emit(self->actor_,
                     ev::page_resolved{static_cast<std::int64_t>(n + 1), self->events_.name("auto_resolve")});
}

void dead_letter_redrive::close_incidents(incident_state why, std::optional<alarm> of) {
  for (std::size_t n = 0; n < incidents_.size(); ++n) {
    incident& i = incidents_[n];
    if (i.state != incident_state::open || (of && i.from != *of)) continue;
    i.state = why;
    events_.emit(actor_, ev::page_resolved{static_cast<std::int64_t>(n + 1),
                                           events_.name(why == incident_state::redriven ? "redriven" : "alarm_ok")});
  }
}

bool dead_letter_redrive::any_open() const {
  return std::any_of(incidents_.begin(), incidents_.end(),
                     [](const incident& i) { return i.state == incident_state::open; });
}

// The on-call comes back to the page `after` it. What the pager shows
// decides: an open incident (this one or a later page's) gets the runbook;
// with none open, the page was closed for them and nothing is done.
sim::task<void> dead_letter_redrive::answer(std::size_t n) {
  co_await sim::sleep_for(config_.after);
  --answers_pending_;
  if (incidents_[n].state == incident_state::redriven || dead_letters_.size() == 0) co_return;
  if (!any_open()) {
    events_.emit(
        actor_, ev::page_unanswered{static_cast<std::int64_t>(n + 1), static_cast<std::int64_t>(dead_letters_.size())});
    co_return;
  }
  if (runs_ >= config_.times) co_return;
  ++answers_pending_;  // the story goes on until the runbook is done
  close_incidents(incident_state::redriven, std::nullopt);
  co_await runbook();
  --answers_pending_;
}

}  // namespace twice
