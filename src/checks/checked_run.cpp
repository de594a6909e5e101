#include <twice/checks/checked_run.hpp>

#include <utility>

#include "checks/invariant_set.hpp"

namespace twice {

checked_result run_with_checkers(world& w, const checked_run_options& options) {
  for (event_observer* observer : options.observers) w.events().add_observer(observer);
  // Every registered invariant, the built-in ones and a program's own, fresh
  // for this run (checks/invariant_set.hpp).
  invariant_set invariants(options.checks, w.config());
  w.events().add_observer(&invariants);
  if (options.progress) w.on_progress(options.progress_every, options.progress);
  checked_result out;
  out.result = w.run();
  out.verdicts = invariants.finish(w, out.result);
  // The world counts its observers' memory (world::held_bytes()) and tells
  // them its events: it must not reach a checker that is gone.
  w.events().remove_observer(&invariants);
  return out;
}

checked_result run_with_checkers(world_config config, const checked_run_options& options) {
  world w(std::move(config));
  return run_with_checkers(w, options);
}

}  // namespace twice
