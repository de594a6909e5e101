#pragma once
// Whether a run met its scenario's [expect] section: the invariants that
// must hold, those that must be violated (a scenario may demonstrate a
// bug), and the figures it names.

#include "report/run_summary.hpp"

namespace twice {

struct expectations;

expectation_result evaluate(const expectations& expect, const run_summary& summary);

}  // namespace twice
