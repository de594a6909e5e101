// The invariants about the queue as the jobs and an on-call see it:
// no_message_lost, backlog_within_bound (streaming) and no_tenant_starved
// (final, over each tenant's queue waits).

#include <algorithm>
#include <set>
#include <string>

#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/invariants.hpp>
#include "sim/duration_text.hpp"
#include <twice/world/tenant_waits.hpp>
#include <twice/world/world.hpp>

namespace twice {

using namespace invariant_name;
using namespace check_text;

// Noisy neighbours: a tenant that sent no more than an equal share of the
// tenants' jobs must not wait behind one that sent more. Its jobs' 99th
// percentile queue wait (to the first delivery) stays within the bound; the
// tenant above its share is not held to it (its backlog is its own).
verdict invariant_checker::tenants_served(const world& w, const world_result& result) const {
  const sim::duration bound = w.config().tenant_wait_bound;
  const std::vector<tenant_wait> tenants = tenant_waits(w, result.story_end);
  verdict v{std::string(no_tenant_starved), true,
            tenants.empty() ? std::string("no job names a tenant")
                            : fmt::format("every tenant within its share of the jobs waited p99 {} or less in the queue",
                                          sim::format_duration(bound)),
            {}, {}};
  std::size_t starved = 0;
  for (const tenant_wait& t : tenants) {
    if (t.above_share || t.p99 <= bound) continue;
    if (v.held)
      v.detail = fmt::format("tenant {} ({} of the jobs, no more than its share) waited p99 {} in the queue, above {}",
                             t.tenant, t.jobs, sim::format_duration(sim::duration::from_ms(t.p99.us() / 1000)),
                             sim::format_duration(bound));
    v.held = false;
    ++starved;
  }
  if (!v.held) {
    for (const tenant_wait& t : tenants)
      if (v.evidence.size() < options_.evidence_max)
        v.evidence.push_back(fmt::format("{}{}: {}", t.tenant, t.above_share ? " (above its share)" : "", t.describe()));
    if (starved > 1) v.detail += and_more(starved - 1, "tenant", "tenants");
  }
  return v;
}

// A message retention deleted before its job ended (done or failed) was
// never processed: from the job queue (a backlog older than the retention)
// or from the dead-letter queue nobody read (whose retention counts from the
// original enqueue). A copy of a job that did end (a duplicate, a lost ack)
// expiring loses nothing.
void invariant_checker::on_retention_expired(const ev::event& e, const ev::retention_expired& gone) {
  const std::uint32_t id = job_id(gone.body);
  if (jobs_[id].ended) return;
  expired_.insert(id);
  note(no_message_lost, e,
       fmt::format("deleted by retention {} after it was sent; its job never ended done or failed",
                   sim::format_duration(gone.age)));
}

namespace {
std::string_view budget_words(sim::stop_reason r) {
  switch (r) {
    case sim::stop_reason::time_limit: return "[budget] time_limit";
    case sim::stop_reason::event_budget: return "[budget] events";
    case sim::stop_reason::memory_budget: return "[budget] memory";
    default: return sim::to_string(r);
  }
}
}  // namespace

void invariant_checker::on_job_ended(ev::name_id job, std::optional<sim::instant> done_at) {
  const std::uint32_t id = job_id(job);
  jobs_[id].ended = true;
  if (done_at && !jobs_[id].done_at) jobs_[id].done_at = done_at;
  releases_.erase(id);
}

void invariant_checker::note_release(ev::name_id job, const ev::event& e) {
  const std::uint32_t id = job_id(job);
  if (jobs_[id].ended) return;
  std::vector<ev::event>& last = releases_[id];
  if (last.size() == 2) last.erase(last.begin());
  last.push_back(e);
}

namespace {
// Where a lost job's message was, when no event released it: on Kafka, its
// record below the group's committed offset (skipped by auto.offset.reset,
// or committed past without being processed).
std::string record_passed(const world& w, std::string_view job) {
  const kafka_topic* topic = w.topic();
  if (topic != nullptr)
    for (std::uint32_t p = 0; p < topic->partitions(); ++p)
      for (std::int64_t o = 0; o < topic->end_offset(p); ++o)
        if (topic->at(p, o).body == job)
          return fmt::format("its record at partition {} offset {} lies below the group's committed offset {}", p, o,
                             w.group()->committed(p).value_or(0));
  return "sent, never processed";
}
}  // namespace

// Losses by the broker's own semantics (a job fetched by a Sidekiq process
// that died with it, a Celery task acked before it ran on a pod that was
// killed, a Kafka offset committed past a record whose job never ran, a
// Pub/Sub message acked unprocessed) leave no message to expire: they show
// at the end as a job that never ended and that nothing holds any more.
// A job the run's own end stopped in mid-slice is not judged lost.
std::optional<std::string> invariant_checker::lost_messages(const world& w, const world_result& result) {
  if (names_ == nullptr) return std::nullopt;  // nothing happened
  const name_table& names = *names_;
  const bool split = !w.config().runtime.rules.split_tool.empty();
  std::set<std::string, std::less<>> held;
  std::uint64_t waiting = 0, dead_letters = 0;
  std::optional<sim::instant> first_deletion;
  w.for_each_held_message([&](const world::held_message& m) {
    held.emplace(m.body);
    // A held split-out job holds the job it resumes.
    if (split)
      if (const std::optional<continuation> then = w.jobs().spec_of(m.body).then) held.emplace(then->job);
    const job_watch* jw = watch_of(m.body);
    if (!m.retention_ends || (jw != nullptr && jw->ended)) return;
    ++(m.dead_letter ? dead_letters : waiting);
    if (!first_deletion || *m.retention_ends < *first_deletion) first_deletion = m.retention_ends;
  });

  violation_log& log = log_of(no_message_lost);
  for (std::uint32_t id = 0; id < jobs_.size(); ++id) {
    const job_watch& jw = jobs_[id];
    if (!jw.sent || jw.ended || jw.cut || expired_.count(id) != 0) continue;
    const std::string_view job = names.text(jw.name);
    if (held.count(job) != 0 || w.jobs().end_of(job) != job_end::open) continue;
    const auto released = releases_.find(id);
    const sim::instant at = released != releases_.end() ? released->second.back().at : result.now;
    count_violation(log, at);
    if (!worth_keeping(log, at)) continue;
    const std::string why =
        fmt::format("{} never ended, and no queue, retry set, topic or producer holds a message of it any more", job);
    if (released == releases_.end()) {
      keep(log, at, fmt::format("{} {}: {}  <- {}", clock(at), job, record_passed(w, job), why));
      continue;
    }
    const std::vector<ev::event>& events = released->second;
    for (std::size_t i = 0; i < events.size(); ++i)
      keep(log, events[i].at, describe(events[i]) + (i + 1 == events.size() ? "  <- " + why : ""));
  }

  // The story may have ended (every job done, failed or dead-lettered) and
  // the run gone on settling until a budget stopped it.
  const sim::stop_reason stop = result.reason == sim::stop_reason::stopped ? result.settle_reason : result.reason;
  if (log.count != 0 || !sim::is_budget(stop) || (waiting == 0 && dead_letters == 0)) return std::nullopt;
  std::string held_text;
  if (dead_letters != 0) held_text = count_of(dead_letters, "dead letter", "dead letters");
  if (waiting != 0)
    held_text += (held_text.empty() ? "" : " and ") +
                 count_of(waiting, "message of a job not yet processed", "messages of jobs not yet processed");
  return fmt::format("not judged: {} still held when the run stopped ({}) at {}; retention deletes the first at {} "
                     "unless it is processed first",
                     held_text, budget_words(stop), clock(result.now), clock(*first_deletion));
}

// The job queue's alarms, at every sample: an on-call is paged the moment
// one goes off, however briefly.
void invariant_checker::on_queue_sample(const ev::event& e, const ev::queue_sample& q) {
  if (alarms_.oldest_message_age && *alarms_.oldest_message_age < q.oldest_age)
    note(backlog_within_bound, e,
         fmt::format("the oldest message is {} old, above alarms.oldest_message_age = {}",
                     sim::format_duration(sim::duration::from_ms(q.oldest_age.us() / 1000)),
                     sim::format_duration(*alarms_.oldest_message_age)));
  if (alarms_.backlog && static_cast<std::uint64_t>(q.visible) > *alarms_.backlog)
    note(backlog_within_bound, e,
         fmt::format("{} messages visible, above alarms.backlog = {}", q.visible, *alarms_.backlog));
}

}  // namespace twice
