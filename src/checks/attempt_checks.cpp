// The invariants about attempts and retries, as the trace streams by:
// attempts_monotonic, attempts_within_limit, no_retry_of_non_retryable
// and backoff_within_cap (the envelope settled once a job's slices close).

#include <algorithm>
#include <string>

#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/invariants.hpp>
#include <twice/runtime/retry_policy.hpp>
#include "sim/duration_text.hpp"

namespace twice {

using namespace invariant_name;
using namespace check_text;

void invariant_checker::on_attempt_start(const ev::event& e, const ev::attempt_start& start_event) {
  const std::uint32_t id = job_id(start_event.job);
  job_watch& jw = jobs_[id];
  const std::int64_t attempt = start_event.attempt;
  // Counting failures, a job the broker gave back runs again under its number
  // (Sidekiq's retry_test.rb: "shuts down without retrying work-in-progress").
  const bool free_rerun = counts_failures_ && jw.rerun_owed;
  jw.rerun_owed = false;
  if (free_rerun) ++jw.free_starts;
  if (jw.attempts_started > 0 && (free_rerun ? attempt < jw.last_attempt : attempt <= jw.last_attempt))
    note(attempts_monotonic, e, fmt::format("attempt {} after attempt {}", attempt, jw.last_attempt));
  jw.last_attempt = attempt;
  ++jw.attempts_started;
  if (attempt_limit_ != 0) {
    // Whatever the counter says: a runtime that forgets a crash, a rescue
    // that grants more, a reset. Each redrive grants the attempts once more.
    const auto redrives = redriven_.find(id);
    const std::uint64_t times = redrives == redriven_.end() ? 1 : std::uint64_t{redrives->second} + 1;
    const std::uint64_t spent = jw.attempts_started - jw.free_starts;
    if (spent > attempt_limit_ * times)
      note(attempts_within_limit, e,
           fmt::format("attempt {} to start, above retry.maximum_attempts = {}{}", spent, attempt_limit_,
                       times == 1 ? std::string() : fmt::format(" x {} (redrives)", times)));
  }
  auto start = std::find_if(jw.start_index.begin(), jw.start_index.end(), [&](const auto& p) { return p.first == attempt; });
  if (start == jw.start_index.end())
    jw.start_index.emplace_back(attempt, starts_++);
  else
    start->second = starts_++;
  // This slice has heard nothing yet.
  if (const auto answers = heard_.find(id); answers != heard_.end()) {
    std::erase_if(answers->second, [&](const heard_answer& h) { return h.actor == e.actor; });
    if (answers->second.empty()) heard_.erase(answers);
  }
  jw.slices.push_back(slice_span{std::string(names_->text(e.actor)), e.actor, attempt, e.at, std::nullopt, {}});
}

void invariant_checker::on_slice_end(const ev::event& e, const ev::slice_end& end) {
  const std::uint32_t id = job_id(end.job);
  job_watch& jw = jobs_[id];
  auto& spans = jw.slices;
  for (auto it = spans.rbegin(); it != spans.rend(); ++it)
    if (it->actor_name == e.actor && !it->end) {
      it->end = e.at;
      break;
    }
  // With no slice of this job open, every span so far ended at or before
  // now, and any later slice starts at or after now: none can overlap it
  // (overlap is end > start). Nor will a closed slice record another
  // backoff, so the attempts' places go too. A finished job then keeps only
  // its last attempt, not a span per delivery for the rest of the run.
  const bool any_open = std::any_of(spans.begin(), spans.end(), [](const slice_span& s) { return !s.end; });
  if (any_open) return;
  settle_envelopes(id);
  std::vector<slice_span>().swap(spans);
  std::vector<std::pair<std::int64_t, std::uint64_t>>().swap(jw.start_index);
}

void invariant_checker::on_backoff(const ev::event& e, const ev::backoff& b) {
  const std::uint32_t id = job_id(b.job);
  const job_watch& jw = jobs_[id];
  // A retry is a decision: the slice that heard the 4xx schedules another
  // attempt because of it. (A slice that crashed, or raised an error of its
  // own, before the failure was recorded is redelivered or retried for that
  // reason and asks again: that is at-least-once, not a retry of the 4xx.)
  if (const auto answers = heard_.find(id); answers != heard_.end()) {
    const auto heard = std::find_if(answers->second.begin(), answers->second.end(),
                                    [&](const heard_answer& h) { return h.actor == e.actor; });
    if (heard != answers->second.end() && names_->text(b.error) == heard->error)
      note(no_retry_of_non_retryable, e, "a retry scheduled after a non-retryable answer: " + heard->record);
  }
  const std::int64_t delay = b.delay.us();
  const std::int64_t cap = b.cap.us();
  const std::int64_t floor = b.retry_after.us();
  const std::int64_t envelope = b.envelope.us();
  if (cap >= uncapped_ceiling.us())
    note(backoff_within_cap, e, "no maximum interval is configured: the delay grows without bound");
  else if (delay > std::max(cap, floor))
    note(backoff_within_cap, e, "the delay is above the cap");
  const std::int64_t attempt = b.attempt;
  const auto start = std::find_if(jw.start_index.begin(), jw.start_index.end(), [&](const auto& p) { return p.first == attempt; });
  if (start != jw.start_index.end()) {
    envelopes_[id].push_back({start->second, attempt, envelope, e.at, e});
    ++envelope_points_;
  }
}

// The envelope must not fall from one attempt to the next, in the order the
// attempts started (overlapping slices may record their backoffs out of
// order; a counter reset starts a later attempt from the bottom again).
// Settled whenever none of the job's slices is open: every backoff of the
// attempts started so far is then recorded, and any later attempt starts
// later, so only the last point is kept to compare the next ones with.
void invariant_checker::settle_envelopes(std::uint32_t id) {
  const auto found = envelopes_.find(id);
  if (found == envelopes_.end()) return;
  std::vector<envelope_point>& points = found->second;
  std::stable_sort(points.begin(), points.end(),
                   [](const envelope_point& a, const envelope_point& b) { return a.start_index < b.start_index; });
  for (std::size_t i = 1; i < points.size(); ++i) {
    const envelope_point& before = points[i - 1];
    const envelope_point& now = points[i];
    if (now.envelope_us >= before.envelope_us) continue;
    violation_log& log = log_of(backoff_within_cap);
    count_violation(log, now.at);
    if (worth_keeping(log, now.at))
      keep(log, now.at,
           describe(now.backoff) + fmt::format("  <- the envelope fell from {}us (the backoff after attempt {} at {}) to {}us",
                                               before.envelope_us, before.attempt, clock(before.at), now.envelope_us));
  }
  envelope_points_ -= points.size() - 1;
  points.erase(points.begin(), points.end() - 1);
}

// The jobs still open at the end, in name order, so the evidence reads the
// same however they were first seen.
void invariant_checker::check_envelopes() {
  std::vector<std::uint32_t> with_envelopes;
  for (const auto& [id, points] : envelopes_)
    if (points.size() > 1) with_envelopes.push_back(id);
  std::sort(with_envelopes.begin(), with_envelopes.end(), [this](std::uint32_t a, std::uint32_t b) {
    return names_->text(jobs_[a].name) < names_->text(jobs_[b].name);
  });
  for (const std::uint32_t id : with_envelopes) settle_envelopes(id);
}

}  // namespace twice
