#pragma once
// `twice run FILE... [--seed N] [--memory-limit SIZE] [--json] [--trace F.jsonl] [--perfetto F.json] [--otlp F.json]
// [--report F.html]
// [--markdown F.md] [--junit F.xml] [--quiet] [--check-determinism]
// [--progress auto|json|none]`.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <twice/report/html_report.hpp>
#include <twice/report/run_summary.hpp>
#include <twice/report/timeline.hpp>
#include "cli/progress_mode.hpp"

namespace twice {
struct scenario;
}

namespace twice::cli {

struct run_options {
  std::vector<std::string> files;
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> memory_limit;  // bytes; overrides each file's [budget] memory
  bool json = false;
  std::string trace_path;
  std::string markdown_path;
  std::string perfetto_path;
  std::string otlp_path;  // OpenTelemetry OTLP/JSON traces (report/otlp_trace.hpp)
  std::string report_path;
  std::string junit_path;  // JUnit XML, one suite per scenario
  bool quiet = false;
  bool check_determinism = false;  // run each scenario twice; exit 3 naming the first differing record
  progress_mode progress = progress_mode::automatic;  // --progress (cli/progress_mode.hpp)
};

struct run_outcome {
  run_summary summary;
  std::vector<timeline_line> timeline;
  // Set when `timeline` is only the first lines (run_keeps::story): all of them.
  std::optional<std::size_t> timeline_total;
  std::vector<sim::trace_record> records;
  run_spans spans;         // when run_keeps::spans
  run_spans report_spans;  // when run_keeps::report_spans
  final_ledgers ledgers;   // kept with the records
};

// Runs one loaded scenario with the checkers attached; `progress`, when
// set, is called every progress_every_events events (cli/progress_line.hpp)
// and cannot change the run.
// What a run keeps beyond its verdicts and figures: every event (for the
// outputs that print or write them), and a summary of each attempt (for
// those and --json).
struct run_keeps {
  bool records = false;
  bool spans = false;  // the events as intervals, built as they happen, for the drawn outputs
  // The same, bounded past span_bound's jobs, for the HTML report: every
  // span of a small world, a sample of the jobs of a large one.
  bool report_spans = false;
  bool attempts = false;
  // Without the records: the timeline's first lines built as the run goes,
  // all counted (the HTML report's story), and the final ledgers.
  bool story = false;
  // Sees every event as it happens (a streamed trace); not owned.
  event_observer* stream = nullptr;
};
// Which attempts are summarised (report/attempts.hpp); all are counted. Every
// one of the first 10,000, then only the retries, crashes, duplicates and
// unfinished ones, at most 20,000 held at once: --json's line and the memory
// behind it stop growing with the jobs (~200 bytes of JSON each).
inline constexpr attempt_detail run_attempt_detail{.every_first = 10'000, .listed_max = 20'000};
run_outcome run_one(const scenario& sc, run_keeps keeps, const world_progress_hook& progress = {});
// keep_records: keep everything (records, spans, attempts) or nothing.
inline run_outcome run_one(const scenario& sc, bool keep_records, const world_progress_hook& progress = {}) {
  return run_one(sc, run_keeps{.records = keep_records, .spans = keep_records, .attempts = keep_records}, progress);
}
int run_command(const run_options& options);

}  // namespace twice::cli
