#include "cli/explore_command.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <algorithm>
#include <span>

#include <twice/cli/exit_codes.hpp>
#include "cli/output_file.hpp"
#include "cli/scenario_input.hpp"
#include "cli/known_findings.hpp"
#include "cli/progress_line.hpp"
#include "cli/shard_argument.hpp"
#include <twice/explore/result_file.hpp>
#include <twice/checks/situations.hpp>
#include <twice/report/junit.hpp>
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

std::string out_dir_of(const std::string& given) { return given.empty() ? std::string(default_explore_out) : given; }

std::string version_text() { return std::string("twice ") + TWICE_VERSION; }

// What the file lets vary: the fault kinds swarm draws from, the ranges.
void print_setup(const explore::explore_input& input) {
  std::string kinds;
  for (const std::string& k : input.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  if (input.kinds.empty()) fmt::print("swarm       {}, no fault kinds in the file\n", input.spec.swarm ? "on" : "off");
  else if (input.spec.swarm) fmt::print("swarm       on, over {}\n", kinds);
  else fmt::print("swarm       off: every run keeps {}\n", kinds);
  for (const explore_range& r : input.spec.vary) fmt::print("varied      {}\n", range_text(r));
}

void print_violations(const std::vector<std::pair<std::string, std::size_t>>& violations, std::size_t violating_runs,
                      std::size_t runs) {
  if (violations.empty()) {
    fmt::print("violations  none\n");
    return;
  }
  fmt::print("violations  in {} of {}\n", violating_runs, sim::counted(runs, "run"));
  for (const auto& [invariant, count] : violations) fmt::print("  {:<30} {}\n", invariant, sim::counted(count, "run"));
}

// The situations the runs reached, and those never reached: a green
// exploration is worth only what it reached. The sentences are in --json and
// docs/explore.md; an [expect] reach that failed prints its own.
void print_coverage(const std::vector<std::size_t>& reached, std::size_t runs) {
  const std::span<const situation_info> all = situations();
  std::vector<std::string_view> never;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (reached[i] == 0) never.push_back(all[i].name);
  fmt::print("reached     {} of {} situations\n", all.size() - never.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    if (reached[i] > 0) fmt::print("  {:<30} {}\n", all[i].name, sim::counted(reached[i], "run"));
  if (never.empty()) return;
  fmt::print("never       in {}:", sim::counted(runs, "run"));
  std::size_t column = 100;  // start a line at the first name
  for (std::size_t i = 0; i < never.size(); ++i) {
    const std::string word = std::string(never[i]) + (i + 1 < never.size() ? "," : "");
    if (column + 1 + word.size() > 100) {
      fmt::print("\n           ");
      column = 11;
    }
    fmt::print(" {}", word);
    column += 1 + word.size();
  }
  fmt::print("\n");
}

// --known F [--update-known]: F read (it may be missing only when it is to
// be written), or why not.
std::string known_usage_problem(const std::string& path, bool update, known_read& out) {
  if (update && path.empty()) return "--update-known rewrites the file --known names: give --known F";
  if (path.empty()) return "";
  if (const std::string problem = output_path_problem(path); update && !problem.empty())
    return "cannot write --known " + path + ": " + problem;
  out = read_known_findings(path, update);
  return out.error;
}

// A case per invariant (failed when a run broke it unexpectedly, with the
// repro when it was shrunk) and per situation [expect] reach lists.
junit_suite explore_junit(std::string_view command, const explore::explore_input& input,
                          const explore::explore_result& result, const std::string& out_dir,
                          const std::vector<std::string>& known) {
  junit_suite suite{fmt::format("twice {} {}", command, input.name), input.path, {}};
  for (const std::string_view name : invariant_names()) {
    junit_case c{std::string(name), input.name, std::nullopt, {}, std::nullopt};
    const auto broke = std::find_if(result.violations.begin(), result.violations.end(),
                                    [&](const auto& v) { return v.first == name; });
    if (std::find(known.begin(), known.end(), name) != known.end()) {
      c.skipped = "a known finding (--known): its repro shrinks to the digest accepted";
    } else if (broke != result.violations.end()) {
      c.failure = fmt::format("violated in {} of {}", broke->second, sim::counted(result.runs_done, "run"));
      for (const explore::finding& f : result.findings)
        if (f.invariant == name) {
          const std::string path =
              (std::filesystem::path(out_dir) / explore::repro_file_name(input.name, f.invariant)).string();
          *c.failure += "; repro: twice run " + path;
          c.detail = fmt::format("run {} (world seed {}), {}; shrunk to {}\nreproduce: twice run {} (exits 1, trace "
                                 "digest {:016x})\n",
                                 f.run_index, f.world_seed, explore::describe(f.original_size),
                                 explore::describe(f.shrunk_size), path, f.repro_digest);
        }
    }
    suite.cases.push_back(std::move(c));
  }
  for (const std::string& name : input.expect.reach) {
    junit_case c{"reach " + name, input.name, std::nullopt, {}, std::nullopt};
    if (std::find(result.unreached_expected.begin(), result.unreached_expected.end(), name) !=
        result.unreached_expected.end())
      c.failure = fmt::format("never happened in {}: {}", sim::counted(result.runs_done, "run"),
                              situations()[*situation_index(name)].sentence);
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

bool make_out_dir(std::string_view command, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) return true;
  fmt::print(stderr, "twice {}: cannot create {}: {}\n", command, dir, ec.message());
  return false;
}

// The end of an exploration, run whole or merged from shards: the
// violations, the repro files and (when asked) explore.json, all in `out_dir`.
// Where an exploration's end goes, and what it is held against.
struct exploration_outputs {
  std::string out_dir;
  bool write_result = false;  // explore.json in out_dir
  bool json = false;
  std::string junit_path;
  std::string known_path;  // --known: findings accepted, by (scenario, invariant, digest)
  bool update_known = false;
  std::vector<known_finding> known;  // read from known_path
};

int report_exploration(std::string_view command, const explore::explore_input& input,
                       const explore::explore_result& result, const explore::explore_stamp& stamp,
                       const exploration_outputs& out) {
  if (!out.json) {
    print_violations(result.violations, result.violating_runs, result.runs_done);
    print_coverage(result.reached, result.runs_done);
    for (const std::string& name : result.unreached_expected)
      fmt::print("expected    reach {}, but it never happened in {}: {}\n", name,
                 sim::counted(result.runs_done, "run"), situations()[*situation_index(name)].sentence);
  }
  if ((out.write_result || !result.findings.empty()) && !make_out_dir(command, out.out_dir))
    return to_int(exit_code::bad_input);
  // This run's findings, as --known reads them; the invariants of those accepted.
  std::vector<known_finding> found;
  std::vector<std::string> known_invariants;
  for (const explore::finding& f : result.findings) {
    found.push_back({input.name, f.invariant, fmt::format("{:016x}", f.repro_digest)});
    if (!out.known_path.empty() && !out.update_known &&
        std::binary_search(out.known.begin(), out.known.end(), found.back()))
      known_invariants.push_back(f.invariant);
  }
  for (const explore::finding& f : result.findings) {
    const std::string path =
        (std::filesystem::path(out.out_dir) / explore::repro_file_name(input.name, f.invariant)).string();
    if (input.path != scenario_stdin_name && same_path(path, input.path)) {
      fmt::print(stderr, "twice {}: the repro {} would overwrite the scenario itself; choose another --out\n",
                 command, path);
      return to_int(exit_code::bad_input);
    }
    if (const std::string error = write_file_atomically(path, f.repro_text); !error.empty()) {
      fmt::print(stderr, "twice {}: {}\n", command, error);
      return to_int(exit_code::bad_input);
    }
    if (out.json) continue;
    const bool known =
        std::find(known_invariants.begin(), known_invariants.end(), f.invariant) != known_invariants.end();
    fmt::print("repro       {} ({}){}\n", path, sim::counted(f.repro_text.size(), "byte"),
               known ? fmt::format(", known: in {}", out.known_path) : "");
    fmt::print("            {}: run {} (world seed {}), {}; shrunk in {} ({}{}) to {}\n", f.invariant, f.run_index,
               f.world_seed, explore::describe(f.original_size), sim::counted(f.shrunk.steps.size(), "step"),
               sim::counted(f.shrunk.runs, "candidate"),
               f.shrunk.cut_short ? "; cut short by " + explore::stop_reason(f.shrunk.stop, stamp.shrink_runs) : "",
               explore::describe(f.shrunk_size));
    if (f.repro_checked) {
      fmt::print("            twice run {} exits 1 (trace digest {:016x})\n", path, f.repro_digest);
    } else {
      fmt::print(stderr, "twice {}: {} does not reproduce {} when read back; please report this\n", command, path,
                 f.invariant);
    }
  }
  // Accepted once, not found now: fixed, or found another way. Said, never failed on.
  std::sort(found.begin(), found.end());
  if (!out.known_path.empty() && !out.update_known && !out.json)
    for (const known_finding& k : out.known)
      if (k.scenario == input.name && !std::binary_search(found.begin(), found.end(), k))
        fmt::print("known       {} (digest {}) was not found this time: fixed? --update-known drops it\n",
                   k.invariant, k.repro_digest);
  const std::string text = explore::result_json(stamp, input, result);
  if (out.write_result) {
    const std::string path = (std::filesystem::path(out.out_dir) / explore::result_file_name).string();
    if (const std::string error = write_file_atomically(path, text); !error.empty()) {
      fmt::print(stderr, "twice {}: {}\n", command, error);
      return to_int(exit_code::bad_input);
    }
    if (!out.json) fmt::print("result      {} ({})\n", path, sim::counted(text.size(), "byte"));
  }
  if (out.update_known) {
    // Other scenarios' entries stay: one file serves a whole catalogue.
    std::vector<known_finding> updated = found;
    for (const known_finding& k : out.known)
      if (k.scenario != input.name) updated.push_back(k);
    if (const std::string error = write_file_atomically(out.known_path, known_findings_text(updated)); !error.empty()) {
      fmt::print(stderr, "twice {}: {}\n", command, error);
      return to_int(exit_code::bad_input);
    }
    for (const explore::finding& f : result.findings) known_invariants.push_back(f.invariant);
    if (!out.json)
      fmt::print("known       {} now accepts {} of {}\n", out.known_path, sim::counted(found.size(), "finding"),
                 input.name);
  }
  if (!out.junit_path.empty()) {
    const std::string xml = junit_xml(fmt::format("twice {}", command),
                                      {explore_junit(command, input, result, out.out_dir, known_invariants)});
    if (const std::string error = write_file_atomically(out.junit_path, xml); !error.empty()) {
      fmt::print(stderr, "twice {}: {}\n", command, error);
      return to_int(exit_code::bad_input);
    }
  }
  if (out.json) fmt::print("{}", text);
  // With --known every violated invariant was shrunk (--known implies --all):
  // a violation fails only when its finding is new.
  const bool new_violation =
      std::any_of(result.violations.begin(), result.violations.end(), [&](const auto& v) {
        return std::find(known_invariants.begin(), known_invariants.end(), v.first) == known_invariants.end();
      });
  const bool failed = new_violation || !result.unreached_expected.empty();
  return to_int(failed ? exit_code::expectations_failed : exit_code::ok);
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
    fmt::print(stderr, "twice explore: --guide coverage picks each generation of runs from the ones before: it cannot "
                       "be split into shards\n");
    return to_int(exit_code::bad_input);
  }
  if (!options.shard.empty() && (!options.junit_path.empty() || !options.known_path.empty())) {
    fmt::print(stderr, "twice explore: --junit and --known judge a whole exploration: give them to twice merge, not to "
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
    if (part) run.deadline = start + std::chrono::microseconds(limit.value().us());
    else explore::limit_time(run, start, limit.value());
  }
  // A line for a person watching a terminal, NDJSON for a machine (--progress json); the last
  // poll comes after every run ended, so finish() reports the final counts.
  progress_line progress(options.progress, options.json);
  if (progress.enabled()) {
    run.on_progress = [start, &progress](const explore::explore_progress& p) {
      const double elapsed = seconds_since(start);
      progress.show({fmt::format("explore: {}/{} {}, {} runs/s, {} with violations, {:.1f}s", p.done, p.total,
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
    fmt::print("runs        {} of {} (root seed {}, {}) in {:.2f}s: {} runs/s{}\n", result.runs_done,
               result.runs_asked, result.root_seed, sim::counted(run.jobs, "thread"), run_seconds,
               rate(result.runs_done, run_seconds), result.deadline_hit ? "; --time-limit reached" : "");
    if (run.time_limit)
      fmt::print("time limit  {}: runs until {}, {} kept for shrinking\n", sim::format_duration(run.time_limit->limit),
                 sim::format_duration(run.time_limit->runs), sim::format_duration(run.time_limit->shrink));
    if (run.guide == explore::guide_mode::coverage)
      fmt::print("guide       coverage: generations of {} runs, half of each a near variant of a run that reached the "
                 "rarest situation\n",
                 run.generation);
    print_setup(input);
  }
  return report_exploration("explore", input, result, stamp,
                            {out_dir, !options.out_dir.empty(), options.json, options.junit_path, options.known_path,
                             options.update_known, std::move(known.findings)});
}

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
  for (explore::shard_file& s : shards)
    std::move(s.runs.begin(), s.runs.end(), std::back_inserter(runs));
  const explore::explore_result result =
      explore::finish_exploration(*prepared.input, run, stamp.root_seed, stamp.runs, std::move(runs));
  if (!options.json) {
    fmt::print("twice merge {}\n", stamp.path);
    fmt::print("runs        {} of {} (root seed {}) from {}{}\n", result.runs_done, result.runs_asked,
               result.root_seed, sim::counted(shards.size(), "shard"),
               result.deadline_hit ? "; a shard stopped at its --time-limit" : "");
    print_setup(*prepared.input);
  }
  return report_exploration("merge", *prepared.input, result, stamp,
                            {out_dir, true, options.json, options.junit_path, options.known_path, options.update_known,
                             std::move(known.findings)});
}

}  // namespace twice::cli
