#pragma once
// `twice run FILE... [--seed N] [--json] [--trace F.jsonl] [--perfetto F.json] [--report F.html]
// [--markdown F.md] [--quiet] [--check-determinism]`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/html_report.hpp"
#include "report/run_summary.hpp"
#include "report/timeline.hpp"

namespace twice {
struct scenario;
}

namespace twice::cli {

struct run_options {
  std::vector<std::string> files;
  std::optional<std::uint64_t> seed;
  bool json = false;
  std::string trace_path;
  std::string markdown_path;
  std::string perfetto_path;
  std::string report_path;
  bool quiet = false;
  bool check_determinism = false;  // run each scenario twice; exit 3 naming the first differing record
};

struct run_outcome {
  run_summary summary;
  std::vector<timeline_line> timeline;
  std::vector<sim::trace_record> records;
  final_ledgers ledgers;  // kept with the records
};

// Runs one loaded scenario with the checkers attached; `progress`, when
// set, is called every progress_every_events events (cli/progress_line.hpp)
// and cannot change the run.
run_outcome run_one(const scenario& sc, bool keep_records, const world_progress_hook& progress = {});
int run_command(const run_options& options);

}  // namespace twice::cli
