#include "cli/explore_command.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

#include <twice/cli/exit_codes.hpp>
#include <twice/explore/explore.hpp>
#include <twice/explore/result_file.hpp>
#include "cli/exploration_report.hpp"
#include "cli/known_findings.hpp"
#include "cli/output_file.hpp"
#include "sim/count_text.hpp"

namespace twice::cli {
namespace {

// The shard files an argument names: the file itself, or a directory's
// shard-*-of-*.json in name order.
bool shard_paths(const std::string& argument, std::vector<std::string>& out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(argument, ec)) {
    out.push_back(argument);
    return true;
  }
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(argument, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("shard-") && name.ends_with(".json") && name.find("-of-") != std::string::npos)
      found.push_back(entry.path().string());
  }
  if (ec) {
    fmt::print(stderr, "twice merge: cannot read the directory {}: {}\n", argument, ec.message());
    return false;
  }
  if (found.empty()) {
    fmt::print(stderr, "twice merge: {} holds no shard files (shard-K-of-N.json, from `twice explore --shard`)\n",
               argument);
    return false;
  }
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
  return true;
}

}  // namespace

int merge_command(const merge_options& options) {
  const std::string out_dir = out_dir_of(options.out_dir);
  if (const std::string problem = output_dir_problem(out_dir); !problem.empty()) {
    fmt::print(stderr, "twice merge: cannot write --out {}: {}\n", out_dir, problem);
    return to_int(exit_code::bad_input);
  }
  if (const std::string problem = outputs_problem({{"--junit", &options.junit_path}}); !problem.empty()) {
    fmt::print(stderr, "twice merge: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  known_read known;
  if (const std::string problem = known_usage_problem(options.known_path, options.update_known, known);
      !problem.empty()) {
    fmt::print(stderr, "twice merge: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  std::vector<std::string> paths;
  for (const std::string& argument : options.inputs)
    if (!shard_paths(argument, paths)) return to_int(exit_code::bad_input);
  std::vector<explore::shard_file> shards;
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
      fmt::print(stderr, "twice merge: cannot read {}\n", path);
      return to_int(exit_code::bad_input);
    }
    explore::shard_read read = explore::read_shard_json(text.str(), path);
    if (!read.value) {
      fmt::print(stderr, "twice merge: {}\n", read.error);
      return to_int(exit_code::bad_input);
    }
    shards.push_back(std::move(*read.value));
  }
  if (const std::string problem = explore::merge_problem(shards); !problem.empty()) {
    fmt::print(stderr, "twice merge: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  const explore::explore_stamp& stamp = shards.front().stamp;
  if (stamp.version != version_text()) {
    fmt::print(stderr, "twice merge: the shards were explored by {}, this is {}: merge with the binary that ran them\n",
               stamp.version, version_text());
    return to_int(exit_code::bad_input);
  }
  if (stamp.guide != "none") {
    fmt::print(stderr, "twice merge: the shards say --guide {}, which has no shards\n", stamp.guide);
    return to_int(exit_code::bad_input);
  }
  if (!options.known_path.empty() && !stamp.all) {
    fmt::print(stderr, "twice merge: --known holds every violated invariant's repro: explore the shards with --all\n");
    return to_int(exit_code::bad_input);
  }
  const explore::prepared prepared = explore::prepare_text(shards.front().scenario_text, stamp.path);
  for (const scenario_error& e : prepared.errors) fmt::print(stderr, "{}\n", e.to_string());
  if (!prepared.input) return to_int(exit_code::bad_input);
  explore::explore_options run;
  run.runs = stamp.runs;
  run.root_seed = stamp.root_seed;
  run.all = stamp.all;
  run.shrink_runs = stamp.shrink_runs;
  std::vector<explore::run_record> runs;
  for (explore::shard_file& s : shards) std::move(s.runs.begin(), s.runs.end(), std::back_inserter(runs));
  const explore::explore_result result =
      explore::finish_exploration(*prepared.input, run, stamp.root_seed, stamp.runs, std::move(runs));
  if (!options.json) {
    fmt::print("twice merge {}\n", stamp.path);
    fmt::print("runs        {} of {} (root seed {}) from {}{}\n", result.runs_done, result.runs_asked, result.root_seed,
               sim::counted(shards.size(), "shard"),
               result.deadline_hit ? "; a shard stopped at its --time-limit" : "");
    print_setup(*prepared.input);
  }
  return report_exploration("merge", *prepared.input, result, stamp,
                            {out_dir, true, options.json, options.junit_path, options.known_path, options.update_known,
                             std::move(known.findings)});
}

}  // namespace twice::cli
