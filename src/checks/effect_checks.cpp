// The invariants about write tools' effects at their far side:
// one_effect_per_step (streaming) and done_jobs_had_effects (final).

#include <algorithm>
#include <set>
#include <string>

#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include <twice/checks/invariants.hpp>
#include <twice/world/world.hpp>

namespace twice {

using namespace invariant_name;
using namespace check_text;

// A write tool's far side is the truth about its effects: a second email,
// upload or webhook for one job step (the reference names job, step and
// tool) is a duplicate the world sees, whoever caused it (a replayed slice,
// an overlapping worker, the outbox relay, a key the far side ignored or
// forgot). (The payment vendor's refunds have their own, money invariants.)
void invariant_checker::on_effect_done(const ev::event& e, const ev::effect_done& done) {
  const std::string_view reference = names_->text(done.reference);
  if (reference.empty()) return;  // not made on a job's behalf
  auto it = effects_.find(reference);
  if (it == effects_.end()) it = effects_.emplace(std::string(reference), effects_seen{0, e.at}).first;
  const std::uint32_t count = ++it->second.count;
  if (count > 1)
    note(one_effect_per_step, e, fmt::format("effect number {} for {} at {}", count, reference, names_->text(e.actor)));
}

// The other half of exactly once, for every write tool but the payment
// vendor (whose refunds done_jobs_paid_in_full weighs in cents): a job we
// record as done had each write step's effect at the far side, found by the
// step's reference, and had it by the time it was marked done. Catches the
// email lost to a claim made before a send that never happened (at most
// once), any step checkpointed before its effect, and a job marked done by a
// slice that skipped a step another slice had claimed but not yet made (the
// effect then lands after "done", or never). With the outbox the relay
// makes the effect after the job is done, by design: it only has to happen;
// and a call that timed out before the job was marked done may land after
// it (the price of at most once: the timeline shows the timeout).
// A step handed to the split queue runs under another job's id and is not
// looked for.
verdict invariant_checker::effects_of_done_jobs(const world& w) const {
  verdict v{std::string(done_jobs_had_effects), true,
            "every job that ended done had each write step's effect by then", {}, {}};
  const std::string& split_tool = w.config().runtime.rules.split_tool;
  const bool effects_follow = w.config().runtime.rules.checkpoint == checkpoint_mode::outbox;
  std::size_t missing_jobs = 0;
  // Only a far side the world models reports its effects (effect_done); a
  // tool of the program's own (world/registry.hpp, world::add_tool) is its
  // own invariants' to judge.
  std::set<std::string_view, std::less<>> modelled;
  for (const service_tool_config* c : service_tools(w.config())) modelled.insert(c->name);
  for_each_job(w.config(), [&](const job_spec& job) {
    if (w.jobs().end_of(job.id) != job_end::done) return;
    bool missing = false;
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
      const step_spec& step = job.steps[i];
      const tool* t = w.tool_named(step.tool);
      if (t == nullptr || !t->writes() || t->moves_money() || step.tool == split_tool || !modelled.contains(step.tool))
        continue;
      const std::string reference = job.id + ":step_" + std::to_string(i + 1) + ":" + step.tool;
      const auto effect = effects_.find(reference);
      const job_watch* watch = watch_of(job.id);
      const sim::instant done_at = watch != nullptr && watch->done_at ? *watch->done_at : sim::instant::max();
      const auto timeout = timed_out_.find(reference);
      const bool answered_by_timeout = timeout != timed_out_.end() && timeout->second <= done_at;
      const bool late =
          effect != effects_.end() && !effects_follow && !answered_by_timeout && effect->second.first > done_at;
      if (effect != effects_.end() && !late) continue;
      if (v.held)
        v.detail = late ? fmt::format("{} ended done at {}, before step {} ({} to {}) took effect at vendor/{} at {}",
                                      job.id, clock(done_at), i + 1, step.tool, step.target, step.tool,
                                      clock(effect->second.first))
                        : fmt::format("{} ended done but step {} ({} to {}) never took effect at vendor/{}", job.id,
                                      i + 1, step.tool, step.target, step.tool);
      v.held = false;
      missing = true;
      if (v.evidence.size() < options_.evidence_max)
        v.evidence.push_back(late ? fmt::format("{}: done at {}; the effect at vendor/{} for {} only at {}", job.id,
                                                clock(done_at), step.tool, reference, clock(effect->second.first))
                                  : fmt::format("{}: done; no effect at vendor/{} for {}", job.id, step.tool, reference));
    }
    if (missing) ++missing_jobs;
  });
  if (missing_jobs > 1) v.detail += and_more(missing_jobs - 1, "job", "jobs");
  return v;
}

}  // namespace twice
