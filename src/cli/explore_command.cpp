#include "cli/explore_command.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>

#include <twice/cli/exit_codes.hpp>
#include "cli/output_file.hpp"
#include "cli/scenario_input.hpp"
#include <twice/explore/explore.hpp>
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

std::string range_text(const explore_range& r) {
  return r.path + " in [" + explore::value_text(r.kind, r.lo) + ", " + explore::value_text(r.kind, r.hi) + "]";
}

// The scenario's name is free text: only name characters reach the file name.
std::string repro_path(const std::string& dir, const std::string& name, const std::string& invariant) {
  std::string stem = name;
  for (char& c : stem) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '-' || c == '.';
    if (!keep) c = '_';
  }
  if (stem.empty() || stem.front() == '.') stem.insert(0, "scenario");
  return (std::filesystem::path(dir) / (stem + "-" + invariant + ".toml")).string();
}

}  // namespace

int explore_command(const explore_options& options) {
  // Repro files go to --out when a run breaks an invariant: found out now, not after the runs.
  if (const std::string problem = output_dir_problem(options.out_dir); !problem.empty()) {
    fmt::print(stderr, "twice explore: cannot write --out {}: {}\n", options.out_dir, problem);
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
  run.all = options.all;
  const wall_clock::time_point start = wall_clock::now();
  if (!options.time_limit.empty()) {
    const sim::result<sim::duration> limit = sim::parse_duration(options.time_limit);
    if (!limit.ok()) {
      fmt::print(stderr, "twice explore: --time-limit: {}\n", limit.error());
      return to_int(exit_code::bad_input);
    }
    run.deadline = start + std::chrono::microseconds(limit.value().us());
  }
  // The progress line is for a person watching; a pipe or a file gets nothing.
  const bool terminal = isatty(fileno(stderr)) != 0;
  if (terminal) {
    run.on_progress = [start](const explore::explore_progress& p) {
      const double elapsed = seconds_since(start);
      fmt::print(stderr, "\r\033[Kexplore: {}/{} {}, {} runs/s, {} with violations, {:.1f}s", p.done, p.total,
                 sim::noun_for(p.total, "run"),
                 rate(p.done, elapsed), p.violating_runs, elapsed);
      std::fflush(stderr);
    };
  }
  const explore::explore_result result = explore::run_explore(input, run);
  const double run_seconds = std::chrono::duration<double>(result.runs_wall).count();
  if (terminal) fmt::print(stderr, "\r\033[K");

  if (result.bad_run) {
    fmt::print(stderr, "twice explore: run {} drew values the scenario cannot take:\n", *result.bad_run);
    for (const scenario_error& e : result.bad_run_errors) fmt::print(stderr, "  {}\n", e.to_string());
    return to_int(exit_code::bad_input);
  }

  fmt::print("twice explore {}\n", input.path);
  fmt::print("runs        {} of {} (root seed {}, {}) in {:.2f}s: {} runs/s{}\n", result.runs_done,
             result.runs_asked, result.root_seed, sim::counted(run.jobs, "thread"), run_seconds,
             rate(result.runs_done, run_seconds),
             result.deadline_hit ? "; --time-limit reached" : "");
  std::string kinds;
  for (const std::string& k : input.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  if (input.kinds.empty()) fmt::print("swarm       {}, no fault kinds in the file\n", input.spec.swarm ? "on" : "off");
  else if (input.spec.swarm) fmt::print("swarm       on, over {}\n", kinds);
  else fmt::print("swarm       off: every run keeps {}\n", kinds);
  for (const explore_range& r : input.spec.vary) fmt::print("varied      {}\n", range_text(r));
  if (result.violations.empty()) {
    fmt::print("violations  none\n");
    return to_int(exit_code::ok);
  }
  fmt::print("violations  in {} of {}\n", result.violating_runs, sim::counted(result.runs_done, "run"));
  for (const auto& [invariant, count] : result.violations)
    fmt::print("  {:<30} {}\n", invariant, sim::counted(count, "run"));

  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) {
    fmt::print(stderr, "twice explore: cannot create {}: {}\n", options.out_dir, ec.message());
    return to_int(exit_code::bad_input);
  }
  for (const explore::finding& f : result.findings) {
    const std::string path = repro_path(options.out_dir, input.name, f.invariant);
    if (input.path != scenario_stdin_name && same_path(path, input.path)) {
      fmt::print(stderr, "twice explore: the repro {} would overwrite the scenario itself; choose another --out\n",
                 path);
      return to_int(exit_code::bad_input);
    }
    const std::string error = write_file_atomically(path, f.repro_text);
    if (!error.empty()) {
      fmt::print(stderr, "twice explore: {}\n", error);
      return to_int(exit_code::bad_input);
    }
    fmt::print("repro       {} ({})\n", path, sim::counted(f.repro_text.size(), "byte"));
    fmt::print("            {}: run {} (world seed {}), {}; shrunk in {} ({}) to {}\n", f.invariant, f.run_index,
               f.world_seed, explore::describe(f.original_size), sim::counted(f.shrunk.steps.size(), "step"),
               sim::counted(f.shrunk.runs, "candidate"), explore::describe(f.shrunk_size));
    if (f.repro_checked) {
      fmt::print("            twice run {} exits 1 (trace digest {:016x})\n", path, f.repro_digest);
    } else {
      fmt::print(stderr, "twice explore: {} does not reproduce {} when read back; please report this\n", path,
                 f.invariant);
    }
  }
  return to_int(exit_code::expectations_failed);
}

}  // namespace twice::cli
