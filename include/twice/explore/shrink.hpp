#pragma once
// Shrinking a failing scenario: greedy delta debugging over the concrete
// (resolved) scenario document. Each candidate is one simplification (one
// fault rule, crash, deploy, broker fault, window or job fewer; a generated
// workload with fewer jobs, a shorter arrival window, fewer job types or
// tenants, fewer random draws; fewer workers or connections; a fault time
// earlier; a latency made fixed; an error rate made zero, a rule's
// probability certain); it is kept when the SAME invariant still fails with
// the same seed. Passes repeat until one changes nothing. Every candidate is
// written to text and loaded back before it runs, so what the shrinker ran
// is exactly what the repro file holds.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/explore/probe.hpp>
#include <twice/scenario/document.hpp>

namespace twice::explore {

struct shrink_options {
  std::size_t max_runs = 400;  // candidates tried, at most
  std::optional<std::chrono::steady_clock::time_point> deadline;  // wall clock: only bounds the effort
};

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

struct shrink_outcome {
  scenario_detail::doc_node doc;   // the smallest scenario found that still fails
  std::vector<std::string> steps;  // each simplification kept, in order ("workers.count: 2 -> 1")
  std::size_t runs = 0;            // candidates tried
  bool cut_short = false;          // stopped before a pass changed nothing: stop says why
  shrink_stop stop = shrink_stop::finished;
};

shrink_outcome shrink(const scenario_detail::doc_node& failing, const std::string& invariant,
                      const std::string& path_for_messages, const shrink_options& options = {});

}  // namespace twice::explore
