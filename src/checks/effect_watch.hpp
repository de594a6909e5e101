#pragma once
// What the effect invariants (one_effect_per_step, done_jobs_had_effects)
// share of a run, kept once: every job step's effects at the far side of a
// write tool, by reference (job:step_N:tool), and its first call that timed
// out.

#include <cstdint>
#include <map>
#include <string>

#include <twice/checks/invariant.hpp>
#include <twice/events/event_log.hpp>

namespace twice {

class effect_watch final : public event_observer {
 public:
  struct effects_seen {
    std::uint32_t count = 0;
    sim::instant first;
  };

  void on_event(const ev::event& e, const name_table& names) override;
  // A step's reference is ~48 bytes of text.
  std::uint64_t footprint() const override;
  static event_kinds kinds() { return event_kinds::of<ev::effect_done, ev::tool_call>(); }

  // reference -> its effects at the far side
  const std::map<std::string, effects_seen, std::less<>>& effects() const { return effects_; }
  // reference -> its first call that timed out
  const std::map<std::string, sim::instant, std::less<>>& timed_out() const { return timed_out_; }
  // The effect_done just seen: its number among its step's effects (0: made on no job's behalf).
  std::uint32_t last_count() const { return last_count_; }

 private:
  std::map<std::string, effects_seen, std::less<>> effects_;
  std::map<std::string, sim::instant, std::less<>> timed_out_;
  std::uint32_t last_count_ = 0;
};

}  // namespace twice
