#include "cli/exploration_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <span>
#include <system_error>

#include <twice/checks/situations.hpp>
#include <twice/cli/exit_codes.hpp>
#include <twice/report/junit.hpp>
#include "cli/explore_command.hpp"
#include "cli/output_file.hpp"
#include "explore/variation.hpp"
#include "sim/count_text.hpp"

namespace twice::cli {
namespace {

std::string range_text(const explore_range& r) {
  return r.path + " in [" + explore::value_text(r.kind, r.lo) + ", " + explore::value_text(r.kind, r.hi) + "]";
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
          c.detail = fmt::format(
              "run {} (world seed {}), {}; shrunk to {}\nreproduce: twice run {} (exits 1, trace "
              "digest {:016x})\n",
              f.run_index, f.world_seed, explore::describe(f.original_size), explore::describe(f.shrunk_size), path,
              f.repro_digest);
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

}  // namespace

std::string out_dir_of(const std::string& given) { return given.empty() ? std::string(default_explore_out) : given; }

std::string version_text() { return std::string("twice ") + TWICE_VERSION; }

// What the file lets vary: the fault kinds swarm draws from, the ranges.
void print_setup(const explore::explore_input& input) {
  std::string kinds;
  for (const std::string& k : input.kinds) kinds += (kinds.empty() ? "" : ", ") + k;
  if (input.kinds.empty())
    fmt::print("swarm       {}, no fault kinds in the file\n", input.spec.swarm ? "on" : "off");
  else if (input.spec.swarm)
    fmt::print("swarm       on, over {}\n", kinds);
  else
    fmt::print("swarm       off: every run keeps {}\n", kinds);
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
bool make_out_dir(std::string_view command, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec) return true;
  fmt::print(stderr, "twice {}: cannot create {}: {}\n", command, dir, ec.message());
  return false;
}
int report_exploration(std::string_view command, const explore::explore_input& input,
                       const explore::explore_result& result, const explore::explore_stamp& stamp,
                       const exploration_outputs& out) {
  if (!out.json) {
    print_violations(result.violations, result.violating_runs, result.runs_done);
    print_coverage(result.reached, result.runs_done);
    for (const std::string& name : result.unreached_expected)
      fmt::print("expected    reach {}, but it never happened in {}: {}\n", name, sim::counted(result.runs_done, "run"),
                 situations()[*situation_index(name)].sentence);
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
      fmt::print(stderr, "twice {}: the repro {} would overwrite the scenario itself; choose another --out\n", command,
                 path);
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
        fmt::print("known       {} (digest {}) was not found this time: fixed? --update-known drops it\n", k.invariant,
                   k.repro_digest);
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
  const bool new_violation = std::any_of(result.violations.begin(), result.violations.end(), [&](const auto& v) {
    return std::find(known_invariants.begin(), known_invariants.end(), v.first) == known_invariants.end();
  });
  const bool failed = new_violation || !result.unreached_expected.empty();
  return to_int(failed ? exit_code::expectations_failed : exit_code::ok);
}

}  // namespace twice::cli
