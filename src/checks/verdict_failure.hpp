#pragma once
// Whether one verdict is what the scenario's [expect] asked of it, in the
// words every judged output uses: `twice run --junit` fails an invariant's
// case on it, and `twice sweep --junit` a point's, run by run.

#include <optional>
#include <string>

#include <twice/checks/invariants.hpp>

namespace twice {

// The failure, or nullopt when the verdict is as expected: held, or
// violated when [expect] lists it under `violated`. A verdict not judged
// never passes (it held only because what it needs to see was lost).
inline std::optional<std::string> verdict_failure(const verdict& v, bool expected_violated) {
  if (!v.judged) return "not judged: " + v.detail;
  if (!v.held && !expected_violated) return "violated: " + v.detail;
  if (v.held && expected_violated) return "expected to be violated, but held: " + v.detail;
  return std::nullopt;
}

}  // namespace twice
