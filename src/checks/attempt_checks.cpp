// The invariants about attempts and retries, as the trace streams by:
// backoff_within_cap (the envelope settled once a job's slices close),
// no_retry_of_non_retryable, attempts_monotonic and attempts_within_limit.
// Each job's attempts are the shared per-job watch's (checks/job_watch.hpp).

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/evidence_log.hpp>
#include <twice/runtime/retry_policy.hpp>
#include <twice/sim/footprint.hpp>
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace check_text;

class backoff_within_cap final : public invariant {
 public:
  backoff_within_cap(const check_options& options, job_watch_table& jobs) : log_(options.evidence_max), jobs_(jobs) {}
  event_kinds wants() const override { return event_kinds::of<ev::backoff, ev::slice_end>(); }

  void on_event(const ev::event& e, const name_table& names) override {
    if (const auto* b = std::get_if<ev::backoff>(&e.body)) return on_backoff(e, *b, names);
    if (const auto* end = std::get_if<ev::slice_end>(&e.body)) {
      // The watch drops a job's slices once none is open.
      const std::uint32_t id = jobs_.job_id(end->job);
      if (jobs_.slices(jobs_[id]).empty()) settle(id, names);
    }
  }

  std::uint64_t footprint() const override {
    return sim::tree_footprint(envelopes_) + envelope_points_ * sizeof(envelope_point);
  }

  verdict finish(const world& w, const world_result&) override {
    // The jobs still open at the end, in name order, so the evidence reads
    // the same however they were first seen.
    const name_table& names = w.events().names();
    std::vector<std::uint32_t> with_envelopes;
    for (const auto& [id, points] : envelopes_)
      if (points.size() > 1) with_envelopes.push_back(id);
    std::sort(with_envelopes.begin(), with_envelopes.end(),
              [&](std::uint32_t a, std::uint32_t b) { return names.text(jobs_[a].name) < names.text(jobs_[b].name); });
    for (const std::uint32_t id : with_envelopes) settle(id, names);
    return log_.streaming_verdict(invariant_name::backoff_within_cap,
                                  "every backoff stayed under its cap and the envelope never fell",
                                  "a backoff broke its cap or its envelope fell");
  }

 private:
  struct envelope_point {
    std::uint64_t start_index;  // the attempt's place in the job's start order
    std::int64_t attempt;       // the number it carried (a counter reset repeats numbers)
    std::int64_t envelope_us;
    sim::instant at;
    ev::event backoff;  // described only if it is evidence
  };

  void on_backoff(const ev::event& e, const ev::backoff& b, const name_table& names) {
    const std::uint32_t id = jobs_.job_id(b.job);
    const job_watch_table::job_watch& jw = jobs_[id];
    const std::int64_t delay = b.delay.us();
    const std::int64_t cap = b.cap.us();
    const std::int64_t floor = b.retry_after.us();
    if (cap >= uncapped_ceiling.us())
      log_.note(e, names, "no maximum interval is configured: the delay grows without bound");
    else if (delay > std::max(cap, floor))
      log_.note(e, names, "the delay is above the cap");
    const std::int64_t attempt = b.attempt;
    const job_watch_table::start_places& places = jobs_.start_index(jw);
    const auto start = std::find_if(places.begin(), places.end(), [&](const auto& p) { return p.first == attempt; });
    if (start != places.end()) {
      envelopes_[id].push_back({start->second, attempt, b.envelope.us(), e.at, e});
      ++envelope_points_;
    }
  }

  // The envelope must not fall from one attempt to the next, in the order the
  // attempts started (overlapping slices may record their backoffs out of
  // order; a counter reset starts a later attempt from the bottom again).
  // Settled whenever none of the job's slices is open: every backoff of the
  // attempts started so far is then recorded, and any later attempt starts
  // later, so only the last point is kept to compare the next ones with.
  void settle(std::uint32_t id, const name_table& names) {
    const auto found = envelopes_.find(id);
    if (found == envelopes_.end()) return;
    std::vector<envelope_point>& points = found->second;
    std::stable_sort(points.begin(), points.end(),
                     [](const envelope_point& a, const envelope_point& b) { return a.start_index < b.start_index; });
    for (std::size_t i = 1; i < points.size(); ++i) {
      const envelope_point& before = points[i - 1];
      const envelope_point& now = points[i];
      if (now.envelope_us >= before.envelope_us) continue;
      log_.count(now.at);
      if (log_.worth_keeping(now.at))
        log_.keep(now.at,
                  describe(as_record(now.backoff, names)) +
                      fmt::format("  <- the envelope fell from {}us (the backoff after attempt {} at {}) to {}us",
                                  before.envelope_us, before.attempt, clock(before.at), now.envelope_us));
    }
    envelope_points_ -= points.size() - 1;
    points.erase(points.begin(), points.end() - 1);
  }

  evidence_log log_;
  job_watch_table& jobs_;
  std::map<std::uint32_t, std::vector<envelope_point>> envelopes_;  // by job id: the jobs that backed off
  std::uint64_t envelope_points_ = 0;                               // in all of envelopes_
};

// A retry is a decision: the slice that heard the 4xx schedules another
// attempt because of it. (A slice that crashed, or raised an error of its
// own, before the failure was recorded is redelivered or retried for that
// reason and asks again: that is at-least-once, not a retry of the 4xx.)
class no_retry_of_non_retryable final : public invariant {
 public:
  no_retry_of_non_retryable(const check_options& options, job_watch_table& jobs)
      : log_(options.evidence_max), jobs_(jobs) {}
  event_kinds wants() const override { return event_kinds::of<ev::tool_call, ev::attempt_start, ev::backoff>(); }

  void on_event(const ev::event& e, const name_table& names) override {
    if (const auto* call = std::get_if<ev::tool_call>(&e.body)) {
      if (!non_retryable_status(call->status)) return;
      std::vector<heard_answer>& answers = heard_[jobs_.job_id(call->job)];
      auto heard =
          std::find_if(answers.begin(), answers.end(), [&](const heard_answer& h) { return h.actor == e.actor; });
      if (heard == answers.end()) heard = answers.insert(answers.end(), heard_answer{e.actor, {}, {}});
      heard->error = fmt::format("{} {}", call->status, names.text(call->error));
      heard->record = describe(as_record(e, names));
    } else if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) {
      // This slice has heard nothing yet.
      if (const auto answers = heard_.find(jobs_.job_id(start->job)); answers != heard_.end()) {
        std::erase_if(answers->second, [&](const heard_answer& h) { return h.actor == e.actor; });
        if (answers->second.empty()) heard_.erase(answers);
      }
    } else if (const auto* b = std::get_if<ev::backoff>(&e.body)) {
      const auto answers = heard_.find(jobs_.job_id(b->job));
      if (answers == heard_.end()) return;
      const auto heard = std::find_if(answers->second.begin(), answers->second.end(),
                                      [&](const heard_answer& h) { return h.actor == e.actor; });
      if (heard != answers->second.end() && names.text(b->error) == heard->error)
        log_.note(e, names, "a retry scheduled after a non-retryable answer: " + heard->record);
    }
  }
  std::uint64_t footprint() const override { return sim::tree_footprint(heard_); }

  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(invariant_name::no_retry_of_non_retryable,
                                  "no job was retried after a non-retryable (4xx) answer",
                                  "a job was retried after a non-retryable answer");
  }

 private:
  // The non-retryable answer a slice heard (cleared when its actor starts an attempt).
  struct heard_answer {
    ev::name_id actor = 0;
    std::string error;   // as a retry would name it: "400 invoice_not_found"
    std::string record;  // the tool call, described
  };
  evidence_log log_;
  job_watch_table& jobs_;
  std::map<std::uint32_t, std::vector<heard_answer>> heard_;  // by job id: the jobs that heard a 4xx
};

class attempts_monotonic final : public invariant {
 public:
  attempts_monotonic(const check_options& options, job_watch_table& jobs) : log_(options.evidence_max), jobs_(jobs) {}
  event_kinds wants() const override { return event_kinds::of<ev::attempt_start>(); }

  // A re-run the broker owed (counting failures) may repeat its number.
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* start = std::get_if<ev::attempt_start>(&e.body);
    if (start == nullptr) return;
    const job_watch_table::start_seen& seen = jobs_.last_start();
    const std::int64_t before = seen.previous_attempt;
    if (seen.after_another && (seen.free_rerun ? start->attempt < before : start->attempt <= before))
      log_.note(e, names, fmt::format("attempt {} after attempt {}", start->attempt, before));
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(invariant_name::attempts_monotonic, "each job's attempt numbers only went up",
                                  "a job's attempt counter repeated or went backwards");
  }

 private:
  evidence_log log_;
  const job_watch_table& jobs_;
};

// Whatever the counter says: a runtime that forgets a crash, a rescue that
// grants more, a reset. Each redrive grants the attempts once more.
class attempts_within_limit final : public invariant {
 public:
  attempts_within_limit(const check_options& options, const world_config& config, job_watch_table& jobs)
      : log_(options.evidence_max), jobs_(jobs), limit_(config.runtime.retry.maximum_attempts) {}
  event_kinds wants() const override { return event_kinds::of<ev::attempt_start, ev::moved_out>(); }

  void on_event(const ev::event& e, const name_table& names) override {
    // The redrive runbook moves each dead letter back once per redrive, after
    // granting its job the attempts again.
    if (const auto* moved = std::get_if<ev::moved_out>(&e.body)) {
      ++redriven_[jobs_.job_id(moved->body)];
      return;
    }
    const auto* start = std::get_if<ev::attempt_start>(&e.body);
    if (start == nullptr || limit_ == 0) return;
    const std::uint32_t id = jobs_.job_id(start->job);
    const job_watch_table::job_watch& jw = jobs_[id];
    const auto redrives = redriven_.find(id);
    const std::uint64_t times = redrives == redriven_.end() ? 1 : std::uint64_t{redrives->second} + 1;
    const std::uint64_t spent = jw.attempts_started - jw.free_starts;
    if (spent > limit_ * times)
      log_.note(e, names,
                fmt::format("attempt {} to start, above retry.maximum_attempts = {}{}", spent, limit_,
                            times == 1 ? std::string() : fmt::format(" x {} (redrives)", times)));
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(
        invariant_name::attempts_within_limit,
        limit_ == 0 ? std::string("retry.maximum_attempts is unlimited")
                    : fmt::format("no job started more attempts than retry.maximum_attempts = {}", limit_),
        "a job started more attempts than retry.maximum_attempts allows");
  }

 private:
  evidence_log log_;
  job_watch_table& jobs_;
  std::uint32_t limit_ = 0;  // 0: unlimited
  std::map<std::uint32_t, std::uint32_t>
      redriven_;  // by job id: the jobs redriven from the dead-letter queue, how often
};

}  // namespace

std::unique_ptr<invariant> make_backoff_within_cap(const world_config&, check_context& shared) {
  return std::make_unique<backoff_within_cap>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_no_retry_of_non_retryable(const world_config&, check_context& shared) {
  return std::make_unique<no_retry_of_non_retryable>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_attempts_monotonic(const world_config&, check_context& shared) {
  return std::make_unique<attempts_monotonic>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_attempts_within_limit(const world_config& config, check_context& shared) {
  return std::make_unique<attempts_within_limit>(shared.options(), config, shared.jobs());
}

}  // namespace twice
