#pragma once
// `twice sweep` as a library: run a scenario for every combination of the
// values of some of its keys (a grid), each cell under the same N seeds, and
// gather per cell what a platform engineer compares settings by: how long
// the story and its jobs took, the calls each job cost, retries, dead
// letters, and how many seeds broke each invariant.
//
//   sweep_prepared p = prepare_sweep_file("scenarios/retry_storm.toml", {}, std::nullopt);
//   sweep_result r = run_sweep(*p.input, 2);
//
// Seed 0 of every cell is the root seed, by default the file's own (so a
// one-seed cell is what `twice run` gives with those values); seed k is
// drawn from the named stream "sweep.seed.<k>" of the root seed. Every cell runs the same seeds.
// Runs share nothing and results are gathered by index: any number of
// threads gives the same result, byte for byte.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenario/document.hpp"
#include <twice/scenario/scenario.hpp>

namespace twice::explore {

struct sweep_input {
  std::string path;  // the swept file, as given
  std::string name;
  std::uint64_t root_seed = 1;
  scenario_detail::doc_node base;  // the file's document without [sweep] and [explore]
  sweep_spec grid;                 // the file's [sweep], or the command line's axes and seeds
};

struct sweep_prepared {
  std::optional<sweep_input> input;  // set exactly when errors is empty
  std::vector<scenario_error> errors;
};

// "KEY=V1,V2,...": each value as a TOML scalar would be read (10, 0.25,
// true, "quoted"), and otherwise as a string (30s, full). nullopt with
// `problem` set when the text is not of that form.
std::optional<sweep_axis> parse_vary_argument(std::string_view text, std::string& problem);

// Loads a file for sweeping. The grid is `axes` when any is given (the
// command line's --vary), else the file's [sweep] table; the seeds are
// `seeds` when set, else the file's. Each value is checked by loading the
// scenario with it (the other keys as written); a value the scenario cannot
// take is reported where it is written, with the loader's reason.
sweep_prepared prepare_sweep_text(std::string_view text, const std::string& path, std::vector<sweep_axis> axes,
                                  std::optional<std::uint32_t> seeds, std::optional<std::uint64_t> root_seed = {});
sweep_prepared prepare_sweep_file(const std::string& path, std::vector<sweep_axis> axes,
                                  std::optional<std::uint32_t> seeds, std::optional<std::uint64_t> root_seed = {});

// Mean, percentiles and a 95% confidence interval of the mean (Student's t;
// zero when there is one value) of some integers.
struct sweep_stat {
  std::size_t n = 0;
  double mean = 0;
  double ci95 = 0;  // half-width
  std::int64_t p50 = 0, p99 = 0, max = 0;
};
sweep_stat stat_of(std::vector<std::int64_t> values);

// One invariant at one cell, each seed's verdict held against the cell's
// [expect] (checks/verdict_failure.hpp): what `--junit` reports a point by.
struct sweep_check {
  std::string name;
  std::optional<std::string> ignored;  // [expect] ignores it: its reason
  // Each seed whose verdict was not what [expect] asked: its k and why
  // ("violated: ..."), in seed order.
  std::vector<std::pair<std::uint32_t, std::string>> failed;
};

struct sweep_cell {
  std::vector<std::string> values;  // per axis, as written
  // The command line's --vary arguments that give this cell alone, each
  // "KEY=VALUE" as parse_vary_argument reads it back (a case as the keys it
  // sets): with --seeds 1 --seed W, the cell's run under world seed W.
  std::vector<std::string> vary_arguments;
  std::size_t runs = 0;
  std::size_t runs_all_ended = 0;  // runs whose every job ended before a budget ran out
  sweep_stat makespan_us;          // per run: when the story ended
  sweep_stat job_time_us;          // per job of every run: from its send to its end (jobs that ended)
  sweep_stat calls_per_job_milli;  // per run: tool calls over story jobs, in thousandths
  std::vector<std::pair<std::string, double>> calls_per_job_by_tool;  // mean over runs, tools in world order
  double retries = 0;                                         // mean per run: attempts started beyond each job's first
  double dead_letters = 0;                                    // mean per run
  std::vector<std::pair<std::string, std::size_t>> violated;  // invariant -> runs that broke it (only those broken)
  // invariant -> runs that could not judge it (UNJUDGED: held only because
  // what it needs to see was lost), only those; never counted as held.
  std::vector<std::pair<std::string, std::size_t>> unjudged;
  std::vector<sweep_check> checks;  // every invariant, in report order
};

// A cell's verdicts in one line: "none", or the invariants broken with their
// runs ("no_double_payment 2/3"), then those left unjudged
// ("unjudged: every_job_ends 1/3").
std::string verdicts_text(const sweep_cell& c);

struct sweep_result {
  std::vector<sweep_axis> axes;
  std::uint32_t seeds = 1;
  std::uint64_t root_seed = 1;
  std::vector<std::uint64_t> world_seeds;  // seed k of every cell
  std::vector<sweep_cell> cells;           // the grid, the last axis varying fastest
  std::optional<std::size_t> bad_cell;     // a cell whose combination of values does not load
  std::vector<scenario_error> bad_cell_errors;
  std::chrono::steady_clock::duration wall{};
};

// The number of cells of a grid.
std::size_t cell_count(const std::vector<sweep_axis>& axes);
// A value as the scenario file writes it, without quotes: "full", "10", "0.25", "true".
std::string value_text(const scenario_detail::doc_node& v);

struct sweep_progress {
  std::size_t done = 0;   // runs finished
  std::size_t total = 0;  // cells times seeds
};

// `on_progress`, when set, is called on the calling thread about ten times a
// second while runs go on, and once when they have ended; it sees no result.
sweep_result run_sweep(const sweep_input& in, unsigned jobs,
                       const std::function<void(const sweep_progress&)>& on_progress = {});

}  // namespace twice::explore
