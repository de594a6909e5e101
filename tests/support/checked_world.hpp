#pragma once
// A world run to its end with the invariant checker watching, kept alive so
// a test can hold the verdicts up against the trace they came from.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <twice/checks/checked_run.hpp>
#include <twice/world/world.hpp>

namespace twice::test_worlds {

struct checked_world {
  std::unique_ptr<world> w;
  world_result result;
  std::map<std::string, verdict> verdicts;

  const verdict& at(std::string_view name) const { return verdicts.at(std::string(name)); }

  // The trace's records of one kind, optionally only one actor's.
  std::vector<const sim::trace_record*> records(std::string_view kind, std::string_view actor = "") const {
    std::vector<const sim::trace_record*> out;
    for (const sim::trace_record& r : w->events().records())
      if (r.kind == kind && (actor.empty() || r.actor == actor)) out.push_back(&r);
    return out;
  }
};

inline checked_world run_checked_world(const world_config& c, check_options options = {}) {
  checked_world out;
  out.w = std::make_unique<world>(c);
  checked_result checked = run_with_checkers(*out.w, options);
  out.result = checked.result;
  for (verdict& v : checked.verdicts) out.verdicts.emplace(v.name, std::move(v));
  return out;
}

}  // namespace twice::test_worlds
