#pragma once
// The `twice` command line as one CLI::App. main() parses with it, and the
// shell completions and the man page are generated from it
// (cli/shell_docs.hpp), so the three cannot drift apart.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <twice/cli/main.hpp>  // main_command: everything main() does

#include "cli/explore_command.hpp"
#include "cli/run_command.hpp"
#include "cli/sweep_command.hpp"

namespace twice::cli {

// Where the parsed values land, one member per subcommand option.
struct command_values {
  run_options run;
  std::vector<std::string> lint_files;
  explore_options explore;
  merge_options merge;
  sweep_options sweep;
  std::uint64_t demo_seed = 1;
  bool demo_quiet = false;
  bool incident_fixed = false;
  std::optional<std::uint64_t> incident_seed;
  bool incident_quiet = false;
  std::string help_topic;  // `twice help COMMAND`
};

// The app, its options bound to `values` (which must outlive it).
std::unique_ptr<CLI::App> make_app(command_values& values);

}  // namespace twice::cli
