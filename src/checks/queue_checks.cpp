// The invariants about the queue as the jobs and an on-call see it:
// every_job_ends (final), no_message_lost (streaming, then a final pass)
// and backlog_within_bound (streaming).

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/evidence_log.hpp>
#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"
#include "sim/duration_text.hpp"
#include "world/job_book.hpp"
#include <twice/sim/footprint.hpp>
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace check_text;

class every_job_ends final : public invariant {
 public:
  every_job_ends(const check_options& options, job_watch_table& jobs)
      : evidence_max_(options.evidence_max), jobs_(jobs) {}
  void on_event(const ev::event&, const name_table&) override {}
  event_kinds wants() const override { return {}; }

  verdict finish(const world& w, const world_result& result) override {
    verdict v{std::string(invariant_name::every_job_ends),
              result.all_jobs_ended,
              "every job ended: done, failed or dead-lettered",
              {},
              {}};
    if (v.held) return v;
    std::vector<std::string> open;  // in id order
    w.jobs().for_each_end([&open](std::string_view job, job_end end) {
      if (end == job_end::open) open.emplace_back(job);
    });
    std::sort(open.begin(), open.end());
    for (std::size_t i = 0; i < open.size() && i < evidence_max_; ++i) v.evidence.push_back(open_job_line(w, open[i]));
    v.detail = fmt::format("the run stopped ({}) at {} with {} still open", sim::to_string(result.reason),
                           clock(result.now), count_of(open.size(), "job", "jobs"));
    return v;
  }

 private:
  // An open job, as its row and the trace tell it. The row's counter is what
  // the runtime says; the attempts the trace saw start are what happened, and
  // a runtime that resets its counter makes the two differ.
  std::string open_job_line(const world& w, std::string_view job) const {
    const auto row = w.db().find_job(job);
    const job_watch_table::job_watch* watch = jobs_.watch_of(job, w.events().names());
    const std::uint64_t started = watch != nullptr ? watch->attempts_started : 0;
    std::string line = fmt::format("{} is {} after {}", job, row ? to_string(row->status) : "not yet enqueued",
                                   count_of(started, "attempt", "attempts"));
    if (row && row->attempts != started) line += fmt::format(" (its row's attempt counter says {})", row->attempts);
    if (row && !row->last_error.empty()) line += ", last error " + row->last_error;
    return line;
  }

  std::size_t evidence_max_;
  const job_watch_table& jobs_;
};

std::string_view budget_words(sim::stop_reason r) {
  switch (r) {
    case sim::stop_reason::time_limit:
      return "[budget] time_limit";
    case sim::stop_reason::event_budget:
      return "[budget] events";
    case sim::stop_reason::memory_budget:
      return "[budget] memory";
    default:
      return sim::to_string(r);
  }
}

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

class no_message_lost final : public invariant {
 public:
  no_message_lost(const check_options& options, job_watch_table& jobs) : log_(options.evidence_max), jobs_(jobs) {}

  event_kinds wants() const override {
    return event_kinds::of<ev::stop, ev::message_delete, ev::lost_with_process, ev::crash, ev::retention_expired>();
  }
  void on_event(const ev::event& e, const name_table& names) override {
    if (const auto* stop = std::get_if<ev::stop>(&e.body)) {
      if (stop->in_flight && stop->why != ev::stop_reason::shutdown) note_release(stop->job, e);
    } else if (const auto* deleted = std::get_if<ev::message_delete>(&e.body)) {
      if (deleted->applied) note_release(deleted->body, e);
    } else if (const auto* lost = std::get_if<ev::lost_with_process>(&e.body)) {
      note_release(lost->body, e);
    } else if (const auto* crash = std::get_if<ev::crash>(&e.body)) {
      if (crash->in_flight) note_release(crash->job, e);
    } else if (const auto* gone = std::get_if<ev::retention_expired>(&e.body)) {
      on_retention_expired(e, *gone, names);
    }
  }
  // Its job ended, or its message waits in the dead-letter queue (or nowhere, by design).
  void on_job_end(const ev::event&, ev::name_id job) override { releases_.erase(jobs_.job_id(job)); }

  std::uint64_t footprint() const override {
    return sim::tree_footprint(releases_) + releases_.size() * 2 * sizeof(ev::event) + sim::tree_footprint(expired_);
  }

  verdict finish(const world& w, const world_result& result) override {
    const std::optional<std::string> unjudged = lost_messages(w, result);
    verdict v = log_.streaming_verdict(invariant_name::no_message_lost,
                                       "no message was lost before its job was processed (deleted by retention, lost "
                                       "with the process that held it, or acked before it ran)",
                                       "a message was lost before its job was processed");
    if (unjudged) {
      v.judged = false;
      v.detail = *unjudged;
    }
    return v;
  }

 private:
  // An event that may have taken the last thing holding a job's work (an
  // ack before the job ended, a message lost with its process, a slice
  // killed or crashed): kept while the job is open, as evidence should
  // nothing hold the job at the end.
  void note_release(ev::name_id job, const ev::event& e) {
    const std::uint32_t id = jobs_.job_id(job);
    if (jobs_[id].ended) return;
    std::vector<ev::event>& last = releases_[id];
    if (last.size() == 2) last.erase(last.begin());
    last.push_back(e);
  }

  // A message retention deleted before its job ended (done or failed) was
  // never processed: from the job queue (a backlog older than the retention)
  // or from the dead-letter queue nobody read (whose retention counts from the
  // original enqueue). A copy of a job that did end (a duplicate, a lost ack)
  // expiring loses nothing.
  void on_retention_expired(const ev::event& e, const ev::retention_expired& gone, const name_table& names) {
    const std::uint32_t id = jobs_.job_id(gone.body);
    if (jobs_[id].ended) return;
    expired_.insert(id);
    log_.note(e, names,
              fmt::format("deleted by retention {} after it was sent; its job never ended done or failed",
                          sim::format_duration(gone.age)));
  }

  // Losses by the broker's own semantics (a job fetched by a Sidekiq process
  // that died with it, a Celery task acked before it ran on a pod that was
  // killed, a Kafka offset committed past a record whose job never ran, a
  // Pub/Sub message acked unprocessed) leave no message to expire: they show
  // at the end as a job that never ended and that nothing holds any more (no
  // queue, retry set, topic or pending resend). A job the run's own end
  // stopped in mid-slice is not judged lost; one the run stopped with
  // messages still held cannot be judged yet. Returns why the verdict could
  // not be judged, or nothing.
  std::optional<std::string> lost_messages(const world& w, const world_result& result) {
    if (w.events().size() == 0) return std::nullopt;  // nothing happened
    const name_table& names = w.events().names();
    const bool split = !w.config().runtime.rules.split_tool.empty();
    std::set<std::string, std::less<>> held;
    std::uint64_t waiting = 0, dead_letters = 0;
    std::optional<sim::instant> first_deletion;
    w.for_each_held_message([&](const world::held_message& m) {
      held.emplace(m.body);
      // A held split-out job holds the job it resumes.
      if (split)
        if (const std::optional<continuation> then = w.jobs().spec_of(m.body).then) held.emplace(then->job);
      const job_watch_table::job_watch* jw = jobs_.watch_of(m.body, names);
      if (!m.retention_ends || (jw != nullptr && jw->ended)) return;
      ++(m.dead_letter ? dead_letters : waiting);
      if (!first_deletion || *m.retention_ends < *first_deletion) first_deletion = m.retention_ends;
    });

    for (std::uint32_t id = 0; id < jobs_.size(); ++id) {
      const job_watch_table::job_watch& jw = jobs_[id];
      if (!jw.sent || jw.ended || jw.cut || expired_.count(id) != 0) continue;
      const std::string_view job = names.text(jw.name);
      if (held.count(job) != 0 || w.jobs().end_of(job) != job_end::open) continue;
      const auto released = releases_.find(id);
      const sim::instant at = released != releases_.end() ? released->second.back().at : result.now;
      log_.count(at);
      if (!log_.worth_keeping(at)) continue;
      const std::string why =
          fmt::format("{} never ended, and no queue, retry set, topic or producer holds a message of it any more", job);
      if (released == releases_.end()) {
        log_.keep(at, fmt::format("{} {}: {}  <- {}", clock(at), job, record_passed(w, job), why));
        continue;
      }
      const std::vector<ev::event>& events = released->second;
      for (std::size_t i = 0; i < events.size(); ++i)
        log_.keep(events[i].at, describe(as_record(events[i], names)) + (i + 1 == events.size() ? "  <- " + why : ""));
    }

    // The story may have ended (every job done, failed or dead-lettered) and
    // the run gone on settling until a budget stopped it.
    const sim::stop_reason stop = result.reason == sim::stop_reason::stopped ? result.settle_reason : result.reason;
    if (log_.violations() != 0 || !sim::is_budget(stop) || (waiting == 0 && dead_letters == 0)) return std::nullopt;
    std::string held_text;
    if (dead_letters != 0) held_text = count_of(dead_letters, "dead letter", "dead letters");
    if (waiting != 0)
      held_text += (held_text.empty() ? "" : " and ") +
                   count_of(waiting, "message of a job not yet processed", "messages of jobs not yet processed");
    return fmt::format(
        "not judged: {} still held when the run stopped ({}) at {}; retention deletes the first at {} "
        "unless it is processed first",
        held_text, budget_words(stop), clock(result.now), clock(*first_deletion));
  }

  evidence_log log_;
  job_watch_table& jobs_;
  std::map<std::uint32_t, std::vector<ev::event>> releases_;  // by job id, open jobs only: the last two releases
  std::set<std::uint32_t> expired_;  // by job id: the jobs a retention delete was noted for already
};

// The job queue's alarms, at every sample: an on-call is paged the moment
// one goes off, however briefly.
class backlog_within_bound final : public invariant {
 public:
  backlog_within_bound(const check_options& options, const world_config& config)
      : log_(options.evidence_max), alarms_(config.alarms) {}
  event_kinds wants() const override { return event_kinds::of<ev::queue_sample>(); }
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* q = std::get_if<ev::queue_sample>(&e.body);
    if (q == nullptr) return;
    if (alarms_.oldest_message_age && *alarms_.oldest_message_age < q->oldest_age)
      log_.note(e, names,
                fmt::format("the oldest message is {} old, above alarms.oldest_message_age = {}",
                            sim::format_duration(sim::duration::from_ms(q->oldest_age.us() / 1000)),
                            sim::format_duration(*alarms_.oldest_message_age)));
    if (alarms_.backlog && static_cast<std::uint64_t>(q->visible) > *alarms_.backlog)
      log_.note(e, names, fmt::format("{} messages visible, above alarms.backlog = {}", q->visible, *alarms_.backlog));
  }
  verdict finish(const world&, const world_result&) override {
    std::string bounds;
    if (alarms_.oldest_message_age)
      bounds = "its oldest message younger than " + sim::format_duration(*alarms_.oldest_message_age);
    if (alarms_.backlog)
      bounds += fmt::format("{}at most {} messages visible", bounds.empty() ? "" : " and ", *alarms_.backlog);
    return log_.streaming_verdict(invariant_name::backlog_within_bound,
                                  bounds.empty() ? std::string("no alarm set on the job queue ([alarms])")
                                                 : "every sample of the job queue found " + bounds,
                                  "a sample of the job queue set off an alarm");
  }

 private:
  evidence_log log_;
  queue_alarms alarms_;
};

}  // namespace

std::unique_ptr<invariant> make_every_job_ends(const world_config&, check_context& shared) {
  return std::make_unique<every_job_ends>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_no_message_lost(const world_config&, check_context& shared) {
  return std::make_unique<no_message_lost>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_backlog_within_bound(const world_config& config, check_context& shared) {
  return std::make_unique<backlog_within_bound>(shared.options(), config);
}

}  // namespace twice
