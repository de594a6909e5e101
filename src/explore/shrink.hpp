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

#include "explore/probe.hpp"
#include <twice/explore/shrink_summary.hpp>
#include "scenario/document.hpp"

namespace twice::explore {

struct shrink_options {
  std::size_t max_runs = 400;                                     // candidates tried, at most
  std::optional<std::chrono::steady_clock::time_point> deadline;  // wall clock: only bounds the effort
};

// The summary, and the smallest scenario found that still fails.
struct shrink_outcome : shrink_summary {
  scenario_detail::doc_node doc;
};

shrink_outcome shrink(const scenario_detail::doc_node& failing, const std::string& invariant,
                      const std::string& path_for_messages, const shrink_options& options = {});

}  // namespace twice::explore
