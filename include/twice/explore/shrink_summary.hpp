#pragma once
// What a shrink did, without the scenario it ended at (the repro's text
// holds that): the steps it kept, the candidates it tried, and what stopped it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace twice::explore {

// What stopped a shrink before a whole pass changed nothing (when it did
// not, the result is as small as these candidates make it).
enum class shrink_stop : std::uint8_t {
  finished,    // a pass changed nothing
  candidates,  // max_runs candidates were tried
  deadline,    // the wall-clock deadline passed
  passes,      // every pass changed something, up to the pass limit
};

// Why, for output: "the time limit", "its budget of 400 candidates", "20 passes".
std::string stop_reason(shrink_stop stop, std::size_t max_runs);
// For --json: "", "candidates", "time_limit", "passes".
std::string_view stop_name(shrink_stop stop);

struct shrink_summary {
  std::vector<std::string> steps;  // each simplification kept, in order ("workers.count: 2 -> 1")
  std::size_t runs = 0;            // candidates tried
  bool cut_short = false;          // stopped before a pass changed nothing: stop says why
  shrink_stop stop = shrink_stop::finished;
};

}  // namespace twice::explore
