#pragma once
// A world run to its end with the invariant checkers watching, and their
// verdicts: the one place that attaches the checkers, runs the world and
// collects what they found. `twice run`, explore's probes, the benchmarks
// and the tests all run worlds this way.

#include <vector>

#include "checks/invariants.hpp"
#include "world/world.hpp"

namespace twice {

struct checked_result {
  world_result result;
  std::vector<verdict> verdicts;  // every invariant, in invariant_names() order
};

// Runs `w` (built, not yet run) with a fresh invariant_checker observing its
// trace from the first record. Observers the caller attached before see each
// record before the checker does. The world stays the caller's to read (its
// trace, store and ledgers); the checker is gone when this returns, so the
// world must make no more records (destroying it records none: it detaches
// its observers first).
checked_result run_with_checkers(world& w, const check_options& options = {});

// The same for a world built from `config` and gone after its run, for
// callers that need only the result and the verdicts.
checked_result run_with_checkers(world_config config, const check_options& options = {});

}  // namespace twice
