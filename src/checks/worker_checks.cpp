// The invariants about workers and their slices: leases_exclusive_or_absorbed
// (two overlapping slices of a job both writing), drain_kills_nothing and
// database_not_stalled, all streaming.

#include <algorithm>
#include <string>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/evidence_log.hpp>
#include "sim/duration_text.hpp"
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace check_text;
using slice_span = job_watch_table::slice_span;

// A new write in a slice that overlaps another slice of the same job that
// wrote the same step: the lease was not exclusive, and no key absorbed it.
// The slices and their writes are the shared per-job watch's.
class leases_exclusive_or_absorbed final : public invariant {
 public:
  leases_exclusive_or_absorbed(const check_options& options, job_watch_table& jobs)
      : log_(options.evidence_max), jobs_(jobs) {}
  event_kinds wants() const override { return event_kinds::of<ev::tool_call>(); }

  void on_event(const ev::event& e, const name_table& names) override {
    const auto* call = std::get_if<ev::tool_call>(&e.body);
    if (call == nullptr || !call->new_write) return;
    job_watch_table::job_watch& jw = jobs_[jobs_.job_id(call->job)];
    // The slice this write belongs to: the open one of this actor for this job.
    const slice_span* mine = jobs_.open_slice(jw, e.actor);
    if (mine == nullptr) return;
    const std::int64_t step = call->step;
    for (const slice_span& other : jobs_.slices(jw)) {
      if (&other == mine) continue;
      const auto earlier = std::find_if(other.new_writes.begin(), other.new_writes.end(),
                                        [step](const job_watch_table::step_write& w) { return w.step == step; });
      if (earlier == other.new_writes.end()) continue;
      const bool overlapped = !other.end || *other.end > mine->start;
      if (!overlapped) continue;
      log_.note(e, names, overlap_why(step, other, earlier->at, mine->start));
      break;  // one line per write, however many slices it overlapped
    }
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(invariant_name::leases_exclusive_or_absorbed,
                                  "no two overlapping slices of a job both made a new write",
                                  "two slices of one job overlapped and both wrote");
  }

 private:
  // The other slice may have ended (acked, even) before this write: what the
  // two slices share is time, which is what the line says, never that the
  // other one still held the job.
  static std::string overlap_why(std::int64_t step, const slice_span& other, sim::instant other_wrote,
                                 sim::instant mine_started) {
    const sim::instant from = std::max(other.start, mine_started);
    const std::string overlap = other.end
                                    ? fmt::format("overlapped this one from {} to {}", clock(from), clock(*other.end))
                                    : fmt::format("still runs, overlapping this one since {}", clock(from));
    return fmt::format("a second new write for step {}: {} (attempt {}) wrote it at {} in a slice that {}", step,
                       other.actor, other.attempt, clock(other_wrote), overlap);
  }

  evidence_log log_;
  job_watch_table& jobs_;
};

// Whoever ends the drain, Kubernetes' SIGKILL at the grace period or the
// runtime's own shutdown timeout (Sidekiq's -t), the slice it finds running
// is killed mid-step.
class drain_kills_nothing final : public invariant {
 public:
  explicit drain_kills_nothing(const check_options& options) : log_(options.evidence_max) {}
  event_kinds wants() const override { return event_kinds::of<ev::stop>(); }
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* stop = std::get_if<ev::stop>(&e.body);
    if (stop == nullptr || !stop->in_flight) return;
    if (stop->why == ev::stop_reason::grace_period_expired)
      log_.note(e, names, "the grace period ended with a slice in flight");
    if (stop->why == ev::stop_reason::shutdown_timeout)
      log_.note(e, names, "the runtime's own shutdown timeout ended the drain with a slice in flight");
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(invariant_name::drain_kills_nothing, "no drain ended with a slice in flight",
                                  "a drain ended with a slice in flight, killed mid-step");
  }

 private:
  evidence_log log_;
};

class database_not_stalled final : public invariant {
 public:
  explicit database_not_stalled(const check_options& options)
      : log_(options.evidence_max), bound_(options.stall_bound) {}
  event_kinds wants() const override { return event_kinds::of<ev::pool_wait>(); }
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* wait = std::get_if<ev::pool_wait>(&e.body);
    if (wait != nullptr && wait->waited > bound_)
      log_.note(e, names,
                fmt::format("waited {} for a connection, longer than {}", sim::format_duration(wait->waited),
                            sim::format_duration(bound_)));
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(
        invariant_name::database_not_stalled,
        "no transaction waited longer than " + sim::format_duration(bound_) + " for a connection",
        "a transaction waited too long for a connection: the pool was exhausted");
  }

 private:
  evidence_log log_;
  sim::duration bound_;
};

}  // namespace

std::unique_ptr<invariant> make_leases_exclusive_or_absorbed(const world_config&, check_context& shared) {
  return std::make_unique<leases_exclusive_or_absorbed>(shared.options(), shared.jobs());
}
std::unique_ptr<invariant> make_drain_kills_nothing(const world_config&, check_context& shared) {
  return std::make_unique<drain_kills_nothing>(shared.options());
}
std::unique_ptr<invariant> make_database_not_stalled(const world_config&, check_context& shared) {
  return std::make_unique<database_not_stalled>(shared.options());
}

}  // namespace twice
