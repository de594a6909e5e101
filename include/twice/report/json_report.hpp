#pragma once
// The JSON form of one run (`twice run --json`). Field names are stable and
// documented in docs/json-output.md; add fields, never rename them.

#include <string>

#include <twice/report/run_summary.hpp>

namespace twice {

// One line of compact JSON.
std::string to_json_line(const run_summary& s);

}  // namespace twice
