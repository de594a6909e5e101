#pragma once
// Whether a run met its scenario's [expect] section: every invariant holds
// except those it expects violated (a scenario may demonstrate a bug) or
// ignores with a reason, and the figures it names are what the run shows.

#include <twice/report/run_summary.hpp>

namespace twice {

struct expectations;

expectation_result evaluate(const expectations& expect, const run_summary& summary);

// "every_job_ends ignored (violated): <the scenario's reason>", as every
// report writes it.
std::string describe(const ignored_verdict& v);

}  // namespace twice
