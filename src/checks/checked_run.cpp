#include <twice/checks/checked_run.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <twice/checks/invariant.hpp>

namespace twice {

checked_result run_with_checkers(world& w, const checked_run_options& options) {
  for (event_observer* observer : options.observers) w.events().add_observer(observer);
  invariant_checker checker(options.checks, w.config());
  w.events().add_observer(&checker);
  // A program's own invariants (checks/invariant.hpp), fresh for this run,
  // after the built-in ones in events and in verdicts.
  std::vector<std::pair<std::string_view, std::unique_ptr<invariant>>> own;
  for (const std::string_view name : registry::registered_invariant_names()) {
    own.emplace_back(name, registry::make_invariant(name, w.config()));
    if (own.back().second == nullptr)
      throw std::invalid_argument("the invariant \"" + std::string(name) + "\" made nothing to check with");
    w.events().add_observer(own.back().second.get());
  }
  if (options.progress) w.on_progress(options.progress_every, options.progress);
  checked_result out;
  out.result = w.run();
  out.verdicts = checker.finish(w, out.result);
  for (auto& [name, inv] : own) {
    out.verdicts.push_back(inv->finish(w, out.result));
    out.verdicts.back().name = std::string(name);
  }
  // The world counts its observers' memory (world::held_bytes()) and tells
  // them its events: it must not reach a checker that is gone.
  w.events().remove_observer(&checker);
  for (auto& [name, inv] : own) w.events().remove_observer(inv.get());
  return out;
}

checked_result run_with_checkers(world_config config, const checked_run_options& options) {
  world w(std::move(config));
  return run_with_checkers(w, options);
}

}  // namespace twice
