#pragma once
// A world run to its end with the invariant checkers watching, and their
// verdicts: the one place that attaches the checkers, runs the world and
// collects what they found. `twice run`, explore's probes, the benchmarks
// and the tests all run worlds this way.

#include <cstdint>
#include <utility>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/world/world.hpp>

namespace twice {

struct checked_result {
  world_result result;
  std::vector<verdict> verdicts;  // every invariant, in invariant_names() order
};

// What a checked run does beside checking. Whether the world keeps every
// event is its config's (world_config::trace_retention), set before it is
// built.
struct checked_run_options {
  check_options checks;
  // Observers that see every event before the invariants do, in this order:
  // `twice run`'s attempt collector (report/attempts.hpp, a layer above this
  // one, so its caller builds it with its detail cap). Not owned; they must
  // outlive the run, and stay attached to the world after it.
  std::vector<event_observer*> observers;
  // When set, called every `progress_every` events (world::on_progress); it
  // cannot change the run.
  world_progress_hook progress;
  std::uint64_t progress_every = 0;
};

// Runs `w` (built, not yet run) with every invariant fresh, observing its
// events from the first (the registry's: the built-in ones, then a
// program's own). Observers the caller attached before see each event
// before `options.observers` and the invariants do. The world stays the
// caller's to read (its events, store and ledgers); the invariants are
// detached from it and gone when this returns.
checked_result run_with_checkers(world& w, const checked_run_options& options = {});

// The same for a world built from `config` and gone after its run, for
// callers that need only the result and the verdicts.
checked_result run_with_checkers(world_config config, const checked_run_options& options = {});

// The checkers' options alone.
inline checked_result run_with_checkers(world& w, const check_options& checks) {
  checked_run_options options;
  options.checks = checks;
  return run_with_checkers(w, options);
}
inline checked_result run_with_checkers(world_config config, const check_options& checks) {
  checked_run_options options;
  options.checks = checks;
  return run_with_checkers(std::move(config), options);
}

}  // namespace twice
