// The invariants about write tools' effects at their far side:
// one_effect_per_step (streaming) and done_jobs_had_effects (final), over
// the effects both read (checks/effect_watch.hpp).

#include <algorithm>
#include <set>
#include <string>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"
#include <twice/checks/evidence_log.hpp>
#include <twice/sim/footprint.hpp>
#include <twice/tools/tool.hpp>
#include <twice/world/world.hpp>

namespace twice {

void effect_watch::on_event(const ev::event& e, const name_table& names) {
  if (const auto* done = std::get_if<ev::effect_done>(&e.body)) {
    last_count_ = 0;
    const std::string_view reference = names.text(done->reference);
    if (reference.empty()) return;  // not made on a job's behalf
    auto it = effects_.find(reference);
    if (it == effects_.end()) it = effects_.emplace(std::string(reference), effects_seen{0, e.at}).first;
    last_count_ = ++it->second.count;
    return;
  }
  // A write that timed out may still take effect at the far side: a job
  // marked done after that is the known price of at most once, not a job
  // that skipped a call still running (done_jobs_had_effects).
  if (const auto* call = std::get_if<ev::tool_call>(&e.body); call != nullptr && call->status == 0) {
    const std::string reference =
        fmt::format("{}:step_{}:{}", names.text(call->job), call->step, names.text(call->tool));
    timed_out_.emplace(reference, e.at);  // the first timeout stays
  }
}

std::uint64_t effect_watch::footprint() const {
  return sim::tree_footprint(timed_out_) + timed_out_.size() * 48 + sim::tree_footprint(effects_) +
         effects_.size() * 48;
}

namespace {
using namespace check_text;

// A write tool's far side is the truth about its effects: a second email,
// upload or webhook for one job step (the reference names job, step and
// tool) is a duplicate the world sees, whoever caused it (a replayed slice,
// an overlapping worker, the outbox relay, a key the far side ignored or
// forgot). (The payment vendor's refunds have their own, money invariants.)
class one_effect_per_step final : public invariant {
 public:
  one_effect_per_step(const check_options& options, const effect_watch& effects)
      : log_(options.evidence_max), effects_(effects) {}
  event_kinds wants() const override { return event_kinds::of<ev::effect_done>(); }
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* done = std::get_if<ev::effect_done>(&e.body);
    const std::uint32_t count = effects_.last_count();
    if (done != nullptr && count > 1)
      log_.note(e, names,
                fmt::format("effect number {} for {} at {}", count, names.text(done->reference), names.text(e.actor)));
  }
  verdict finish(const world&, const world_result&) override {
    return log_.streaming_verdict(invariant_name::one_effect_per_step, "no job step had its write tool's effect twice",
                                  "a job step had its effect twice (an email sent twice, a file uploaded twice ...)");
  }

 private:
  evidence_log log_;
  const effect_watch& effects_;
};

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
class done_jobs_had_effects final : public invariant {
 public:
  done_jobs_had_effects(const check_options& options, const effect_watch& effects, const job_watch_table& jobs)
      : evidence_max_(options.evidence_max), effects_(effects), jobs_(jobs) {}
  event_kinds wants() const override { return {}; }
  void on_event(const ev::event&, const name_table&) override {}

  verdict finish(const world& w, const world_result&) override {
    verdict v{std::string(invariant_name::done_jobs_had_effects),
              true,
              "every job that ended done had each write step's effect by then",
              {},
              {}};
    const std::string& split_tool = w.config().runtime.rules.split_tool;
    const bool effects_follow = w.config().runtime.rules.checkpoint == checkpoint_mode::outbox;
    const auto& effects = effects_.effects();
    const auto& timed_out = effects_.timed_out();
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
        if (t == nullptr || !t->writes() || t->moves_money() || step.tool == split_tool ||
            !modelled.contains(step.tool))
          continue;
        const std::string reference = job.id + ":step_" + std::to_string(i + 1) + ":" + step.tool;
        const auto effect = effects.find(reference);
        const job_watch_table::job_watch* watch = jobs_.watch_of(job.id, w.events().names());
        const sim::instant done_at =
            watch != nullptr ? watch->done_at().value_or(sim::instant::max()) : sim::instant::max();
        const auto timeout = timed_out.find(reference);
        const bool answered_by_timeout = timeout != timed_out.end() && timeout->second <= done_at;
        const bool late =
            effect != effects.end() && !effects_follow && !answered_by_timeout && effect->second.first > done_at;
        if (effect != effects.end() && !late) continue;
        if (v.held)
          v.detail = late ? fmt::format("{} ended done at {}, before step {} ({} to {}) took effect at vendor/{} at {}",
                                        job.id, clock(done_at), i + 1, step.tool, step.target, step.tool,
                                        clock(effect->second.first))
                          : fmt::format("{} ended done but step {} ({} to {}) never took effect at vendor/{}", job.id,
                                        i + 1, step.tool, step.target, step.tool);
        v.held = false;
        missing = true;
        if (v.evidence.size() < evidence_max_)
          v.evidence.push_back(
              late ? fmt::format("{}: done at {}; the effect at vendor/{} for {} only at {}", job.id, clock(done_at),
                                 step.tool, reference, clock(effect->second.first))
                   : fmt::format("{}: done; no effect at vendor/{} for {}", job.id, step.tool, reference));
      }
      if (missing) ++missing_jobs;
    });
    if (missing_jobs > 1) v.detail += and_more(missing_jobs - 1, "job", "jobs");
    return v;
  }

 private:
  std::size_t evidence_max_;
  const effect_watch& effects_;
  const job_watch_table& jobs_;
};

}  // namespace

std::unique_ptr<invariant> make_one_effect_per_step(const world_config&, check_context& shared) {
  return std::make_unique<one_effect_per_step>(shared.options(), shared.effects());
}
std::unique_ptr<invariant> make_done_jobs_had_effects(const world_config&, check_context& shared) {
  return std::make_unique<done_jobs_had_effects>(shared.options(), shared.effects(), shared.jobs());
}

}  // namespace twice
