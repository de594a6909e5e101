#pragma once
// `twice explore FILE [--runs N] [--seed S] [--jobs J] [--time-limit T] [--out DIR] [--all]
//   [--shard K/N|auto [--shards N]] [--json]`:
// many runs of one scenario under derived seeds and the variations its
// [explore] table allows; the first unexpected invariant violation (or the
// first of each, with --all) shrunk to a standalone scenario file in DIR.
// With --shard, only that shard's runs, written to DIR/shard-K-of-N.json for
// `twice merge` (explore/result_file.hpp). See docs/explore.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/progress_mode.hpp"

namespace twice::cli {

struct explore_options {
  std::string file;
  std::size_t runs = 100;
  std::optional<std::uint64_t> seed;  // the root seed; unset: the file's
  unsigned jobs = 0;                  // 0: the core count
  std::string time_limit;             // a duration ("10m"): wall-clock budget; empty: none
  // Repro files (and, when given, explore.json) go here; a shard's file
  // always does. Empty: not given, "explore-out".
  std::string out_dir;
  bool all = false;
  std::string shard;       // "K/N" or "auto"; empty: every run
  std::size_t shards = 0;  // --shards N, with --shard auto under a Kubernetes Indexed Job
  bool json = false;       // print the result (or the shard's) as JSON
  std::string junit_path;  // JUnit XML of the result (not of a shard)
  std::string known_path;  // --known: accepted findings (cli/known_findings.hpp); implies --all
  bool update_known = false;
  std::string guide = "none";                         // --guide none|coverage
  std::size_t shrink_runs = 400;                      // --shrink-runs: candidates each shrink may try
  progress_mode progress = progress_mode::automatic;  // --progress
};
inline constexpr std::string_view default_explore_out = "explore-out";

// Exit status: 0 no violation, 1 violations found (repro files written), 2 bad
// input. A shard exits 0 once its file is written: `twice merge` judges.
int explore_command(const explore_options& options);

struct merge_options {
  std::vector<std::string> inputs;  // shard files, or directories holding shard-*-of-*.json
  std::string out_dir;              // empty: "explore-out"
  bool json = false;
  std::string junit_path;
  std::string known_path;
  bool update_known = false;
};

// `twice merge DIR... [--out DIR] [--json]`: the shards' runs as one
// exploration, shrunk and written as `twice explore FILE --out DIR` would.
// Exit status as explore's.
int merge_command(const merge_options& options);

}  // namespace twice::cli
