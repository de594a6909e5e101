#include "cli/explore_command.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <twice/checks/invariants.hpp>
#include <twice/checks/situations.hpp>
#include <twice/cli/exit_codes.hpp>
#include <twice/explore/explore.hpp>
#include <twice/explore/result_file.hpp>
#include "cli/exploration_report.hpp"
#include "cli/known_findings.hpp"
#include "cli/output_file.hpp"
#include "cli/progress_line.hpp"
#include "cli/scenario_input.hpp"
#include "cli/shard_argument.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"

namespace twice::cli {
namespace {

using wall_clock = std::chrono::steady_clock;

double seconds_since(wall_clock::time_point start) {
  return std::chrono::duration<double>(wall_clock::now() - start).count();
}

std::string rate(std::size_t runs, double seconds) {
  return seconds > 0 ? fmt::format("{:.0f}", static_cast<double>(runs) / seconds) : std::string("-");
}
}  // namespace

int explore_command(const explore_options& options) {
  const std::string out_dir = out_dir_of(options.out_dir);
  // Repro files go to --out when a run breaks an invariant: found out now, not after the runs.
  if (const std::string problem = output_dir_problem(out_dir); !problem.empty()) {
    fmt::print(stderr, "twice explore: cannot write --out {}: {}\n", out_dir, problem);
    return to_int(exit_code::bad_input);
  }
  if (const std::string problem = outputs_problem({{"--junit", &options.junit_path}}); !problem.empty()) {
    fmt::print(stderr, "twice explore: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  if (!options.shard.empty() && options.guide != "none") {
    fmt::print(stderr,
               "twice explore: --guide coverage picks each generation of runs from the ones before: it cannot "
               "be split into shards\n");
    return to_int(exit_code::bad_input);
  }
  if (!options.shard.empty() && (!options.junit_path.empty() || !options.known_path.empty())) {
    fmt::print(stderr,
               "twice explore: --junit and --known judge a whole exploration: give them to twice merge, not to "
               "a shard\n");
    return to_int(exit_code::bad_input);
  }
  known_read known;
  if (const std::string problem = known_usage_problem(options.known_path, options.update_known, known);
      !problem.empty()) {
    fmt::print(stderr, "twice explore: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  std::optional<explore::shard> part;
  if (!options.shard.empty()) {
    const shard_choice choice = parse_shard_argument(options.shard, options.shards, [](const char* name) {
      return std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read once, before any thread starts
    });
    if (!choice.part) {
      fmt::print(stderr, "twice explore: {}\n", choice.error);
      return to_int(exit_code::bad_input);
    }
    part = choice.part;
  } else if (options.shards != 0) {
    fmt::print(stderr, "twice explore: --shards N goes with --shard auto\n");
    return to_int(exit_code::bad_input);
  }
  const explore::prepared prepared = prepare_explore_argument(options.file);
  for (const scenario_error& e : prepared.errors) fmt::print(stderr, "{}\n", e.to_string());
  if (!prepared.input) return to_int(exit_code::bad_input);
  const explore::explore_input& input = *prepared.input;

  explore::explore_options run;
  run.runs = options.runs;
  run.root_seed = options.seed;
  run.jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  run.all = options.all || !options.known_path.empty();  // every violated invariant has a digest to hold
  run.part = part.value_or(explore::shard{});
  run.guide = options.guide == "coverage" ? explore::guide_mode::coverage : explore::guide_mode::none;
  run.shrink_runs = options.shrink_runs;
  const wall_clock::time_point start = wall_clock::now();
  if (!options.time_limit.empty()) {
    const sim::result<sim::duration> limit = sim::parse_duration(options.time_limit);
    if (!limit.ok()) {
      fmt::print(stderr, "twice explore: --time-limit: {}\n", limit.error());
      return to_int(exit_code::bad_input);
    }
    // A shard only runs (the merge shrinks): its runs take the whole limit.
    if (part)
      run.deadline = start + std::chrono::microseconds(limit.value().us());
    else
      explore::limit_time(run, start, limit.value());
  }
  // A line for a person watching a terminal, NDJSON for a machine (--progress json); the last
  // poll comes after every run ended, so finish() reports the final counts.
  progress_line progress(options.progress, options.json);
  if (progress.enabled()) {
    run.on_progress = [start, &progress](const explore::explore_progress& p) {
      const double elapsed = seconds_since(start);
      progress.show(
          {fmt::format("explore: {}/{} {}, {} runs/s, {} with violations, {:.1f}s", p.done, p.total,
                       sim::noun_for(p.total, "run"), rate(p.done, elapsed), p.violating_runs, elapsed),
           {{"command", "explore"}, {"done", p.done}, {"total", p.total}, {"violating_runs", p.violating_runs}}});
    };
  }
  auto bad_run = [](std::size_t index, const std::vector<scenario_error>& errors) {
    fmt::print(stderr, "twice explore: run {} drew values the scenario cannot take:\n", index);
    for (const scenario_error& e : errors) fmt::print(stderr, "  {}\n", e.to_string());
    return to_int(exit_code::bad_input);
  };
  const std::uint64_t root_seed = run.root_seed.value_or(input.file_seed);
  const explore::explore_stamp stamp = explore::stamp_of(input, run, root_seed, version_text());

  if (part) {
    const explore::run_set shard = explore::collect_runs(input, run);
    progress.finish();
    if (shard.bad_run) return bad_run(*shard.bad_run, shard.bad_run_errors);
    const std::string text = explore::shard_json(stamp, input, shard);
    const std::string path = (std::filesystem::path(out_dir) / explore::shard_file_name(*part)).string();
    if (!make_out_dir("explore", out_dir)) return to_int(exit_code::bad_input);
    if (const std::string error = write_file_atomically(path, text); !error.empty()) {
      fmt::print(stderr, "twice explore: {}\n", error);
      return to_int(exit_code::bad_input);
    }
    if (options.json) {
      fmt::print("{}", text);
      return to_int(exit_code::ok);
    }
    const double seconds = std::chrono::duration<double>(shard.runs_wall).count();
    std::vector<std::pair<std::string, std::size_t>> violations;
    for (const std::string_view name : invariant_names()) {
      std::size_t count = 0;
      for (const explore::run_record& r : shard.runs)
        count += static_cast<std::size_t>(std::count(r.violated.begin(), r.violated.end(), name));
      if (count != 0) violations.emplace_back(std::string(name), count);
    }
    fmt::print("twice explore {}\n", input.path);
    fmt::print("shard       {} of {}: {} of the {} (root seed {}, {}) in {:.2f}s: {} runs/s{}\n", part->index,
               part->count, shard.runs.size(), sim::counted(shard.runs_asked, "run"), shard.root_seed,
               sim::counted(run.jobs, "thread"), seconds, rate(shard.runs.size(), seconds),
               shard.deadline_hit ? "; --time-limit reached" : "");
    print_setup(input);
    print_violations(violations, shard.violating_runs, shard.runs.size());
    std::vector<std::size_t> reached(situations().size(), 0);
    for (const explore::run_record& r : shard.runs)
      for (std::size_t i = 0; i < reached.size(); ++i) reached[i] += (r.reached >> i) & 1U;
    print_coverage(reached, shard.runs.size());
    fmt::print("shard file  {} ({}): `twice merge {}` makes one result of every shard\n", path,
               sim::counted(text.size(), "byte"), out_dir);
    return to_int(exit_code::ok);
  }

  const explore::explore_result result = explore::run_explore(input, run);
  const double run_seconds = std::chrono::duration<double>(result.runs_wall).count();
  progress.finish();
  if (result.bad_run) return bad_run(*result.bad_run, result.bad_run_errors);
  if (!options.json) {
    fmt::print("twice explore {}\n", input.path);
    fmt::print("runs        {} of {} (root seed {}, {}) in {:.2f}s: {} runs/s{}\n", result.runs_done, result.runs_asked,
               result.root_seed, sim::counted(run.jobs, "thread"), run_seconds, rate(result.runs_done, run_seconds),
               result.deadline_hit ? "; --time-limit reached" : "");
    if (run.time_limit)
      fmt::print("time limit  {}: runs until {}, {} kept for shrinking\n", sim::format_duration(run.time_limit->limit),
                 sim::format_duration(run.time_limit->runs), sim::format_duration(run.time_limit->shrink));
    if (run.guide == explore::guide_mode::coverage)
      fmt::print(
          "guide       coverage: generations of {} runs, half of each a near variant of a run that reached the "
          "rarest situation\n",
          run.generation);
    print_setup(input);
  }
  return report_exploration("explore", input, result, stamp,
                            {out_dir, !options.out_dir.empty(), options.json, options.junit_path, options.known_path,
                             options.update_known, std::move(known.findings)});
}

}  // namespace twice::cli
