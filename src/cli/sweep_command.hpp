#pragma once
// `twice sweep FILE [--vary KEY=V1,V2,...]... [--seeds N] [--seed S] [--jobs J] [--json] [--csv F] [--markdown F]
// [--report F.html]`:
// the scenario run for every combination of the varied keys' values, each
// under the same N seeds, compared cell by cell. Without --vary, the file's
// [sweep] table is the grid; with neither, --seeds N runs the file as written
// (one cell). See docs/sweep.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/progress_mode.hpp"

namespace twice::cli {

struct sweep_options {
  std::string file;
  std::vector<std::string> vary;       // "KEY=V1,V2,..."
  std::optional<std::uint32_t> seeds;  // unset: the file's [sweep] seeds (1 without)
  std::optional<std::uint64_t> seed;   // the root seed; unset: the file's
  unsigned jobs = 0;                   // 0: the core count
  bool json = false;
  std::string csv_path;
  std::string markdown_path;
  std::string report_path;                            // the page of charts (cli/sweep_page.hpp)
  std::string junit_path;                             // JUnit XML, a case per point and invariant (cli/sweep_junit.hpp)
  progress_mode progress = progress_mode::automatic;  // --progress
};

// Exit status: 0 the sweep ran, 2 bad input.
int sweep_command(const sweep_options& options);

}  // namespace twice::cli
