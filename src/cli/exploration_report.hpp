#pragma once
// The end of an exploration, run whole (`twice explore`) or merged from
// shards (`twice merge`): what both print (the setup, the violations, the
// situations reached) and write (the repro files, explore.json, JUnit XML,
// the --known ratchet), so a merge's output is byte for byte an unsharded
// exploration's.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/known_findings.hpp"
#include <twice/explore/explore.hpp>
#include <twice/explore/result_file.hpp>

namespace twice::cli {

// "explore-out" when not given.
std::string out_dir_of(const std::string& given);
// What stamps an exploration's files: "twice <version>".
std::string version_text();
bool make_out_dir(std::string_view command, const std::string& dir);
// --known F [--update-known]: F read (it may be missing only when it is to
// be written), or why not.
std::string known_usage_problem(const std::string& path, bool update, known_read& out);

// What the file lets vary: the fault kinds swarm draws from, the ranges.
void print_setup(const explore::explore_input& input);
void print_violations(const std::vector<std::pair<std::string, std::size_t>>& violations, std::size_t violating_runs,
                      std::size_t runs);
// The situations the runs reached, and those never reached.
void print_coverage(const std::vector<std::size_t>& reached, std::size_t runs);

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

// The violations, the repro files and (when asked) explore.json, all in
// `out.out_dir`; the exit status (1 for a violation not known, or a
// situation [expect] reach lists that no run reached).
int report_exploration(std::string_view command, const explore::explore_input& input,
                       const explore::explore_result& result, const explore::explore_stamp& stamp,
                       const exploration_outputs& out);

}  // namespace twice::cli
