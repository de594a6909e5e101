#pragma once
// The incident write-up form of a run (`twice run --markdown FILE`): the
// story, the settings that matter, the timeline as a table, the verdicts
// with their evidence, the figures. The committed reports/ are these files;
// CI regenerates them and fails on any byte of difference.

#include <cstddef>
#include <string>
#include <vector>

#include <twice/report/run_summary.hpp>
#include <twice/report/timeline.hpp>

namespace twice {

struct scenario;

// A write-up is read by people: past these, the tables stop with a line
// saying how many rows were left out and which command prints them all.
inline constexpr std::size_t markdown_attempts_max = 500;
inline constexpr std::size_t markdown_timeline_max = 1500;

std::string markdown_report(const scenario& sc, const run_summary& s, const std::vector<timeline_line>& timeline);

}  // namespace twice
