#pragma once
// Everything a report says about one run, gathered once: the figures, the
// attempts, the invariant verdicts and the expectation result. The text
// output, the JSON output and the Markdown reports all read this.

#include <cstdint>
#include <string>
#include <vector>

#include "checks/invariants.hpp"
#include "report/attempts.hpp"
#include "world/world.hpp"

namespace twice {

struct expectation_result {
  bool met = true;
  std::vector<std::string> failures;
};

struct run_summary {
  std::string scenario;  // its name
  std::string path;
  std::uint64_t seed = 0;
  world_result result;
  std::uint64_t jobs_total = 0, jobs_succeeded = 0, jobs_failed = 0, jobs_dead_lettered = 0;
  std::uint64_t ledger_rows = 0;
  std::int64_t ledger_total_cents = 0;
  std::uint64_t vendor_calls = 0, vendor_refunds = 0;
  std::int64_t vendor_total_cents = 0;
  std::uint64_t vendor_peak_per_100ms = 0;  // the tallest 100 ms bucket of requests: a stampede shows here
  std::uint64_t vendor_rejected_503 = 0;    // outages, shedding above capacity, random 503s
  std::vector<attempt_summary> attempts;
  std::vector<verdict> verdicts;
  expectation_result expectations;
};

// Fills the figures from the world after its run.
run_summary summarize(world& w, const world_result& result, std::vector<attempt_summary> attempts,
                      std::vector<verdict> verdicts);

}  // namespace twice
