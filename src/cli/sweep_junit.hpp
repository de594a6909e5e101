#pragma once
// `twice sweep --junit F.xml`: the sweep as JUnit XML (report/junit.hpp),
// one suite for the sweep and a case per point of the grid and invariant,
// named by the point's values ("retry.jitter=full, workers.count=10:
// no_double_payment"). A case fails when some seed's verdict is not what
// the scenario's [expect] asks (checks/verdict_failure.hpp), and its failure
// gives, for each such seed, the `twice sweep` command that runs that point
// under that seed alone; a case [expect] ignores is skipped.

#include <string>
#include <utility>
#include <vector>

#include <twice/report/junit.hpp>
#include "explore/sweep.hpp"

namespace twice::cli {

// `path` and `name` are the swept file's; `written` the sweep's other
// outputs ("--report", "sweep.html"), named in each failure's detail.
junit_suite sweep_junit(const explore::sweep_result& r, const std::string& path, const std::string& name,
                        const std::vector<std::pair<std::string, std::string>>& written);

}  // namespace twice::cli
