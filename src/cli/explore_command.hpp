#pragma once
// `twice explore FILE [--runs N] [--seed S] [--jobs J] [--time-limit T] [--out DIR] [--all]`:
// many runs of one scenario under derived seeds and the variations its
// [explore] table allows; the first unexpected invariant violation (or the
// first of each, with --all) shrunk to a standalone scenario file in DIR.
// See docs/explore.md.

#include <cstdint>
#include <optional>
#include <string>

namespace twice::cli {

struct explore_options {
  std::string file;
  std::size_t runs = 100;
  std::optional<std::uint64_t> seed;  // the root seed; unset: the file's
  unsigned jobs = 0;                  // 0: the core count
  std::string time_limit;             // a duration ("10m"): wall-clock budget; empty: none
  std::string out_dir = "explore-out";
  bool all = false;
};

// Exit status: 0 no violation, 1 violations found (repro files written), 2 bad input.
int explore_command(const explore_options& options);

}  // namespace twice::cli
