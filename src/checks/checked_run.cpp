#include <twice/checks/checked_run.hpp>

#include <utility>

namespace twice {

checked_result run_with_checkers(world& w, const checked_run_options& options) {
  for (event_observer* observer : options.observers) w.events().add_observer(observer);
  invariant_checker checker(options.checks, w.config());
  w.events().add_observer(&checker);
  if (options.progress) w.on_progress(options.progress_every, options.progress);
  checked_result out;
  out.result = w.run();
  out.verdicts = checker.finish(w, out.result);
  // The world counts its observers' memory (world::held_bytes()) and tells
  // them its events: it must not reach a checker that is gone.
  w.events().remove_observer(&checker);
  return out;
}

checked_result run_with_checkers(world_config config, const checked_run_options& options) {
  world w(std::move(config));
  return run_with_checkers(w, options);
}

}  // namespace twice
