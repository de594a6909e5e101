#include "cli/lint_command.hpp"

#include <fmt/core.h>

#include "cli/exit_codes.hpp"
#include "cli/scenario_input.hpp"
#include "lint/lint.hpp"
#include "scenario/scenario.hpp"

namespace twice::cli {

int lint_command(const std::vector<std::string>& files) {
  if (const std::string problem = stdin_usage_problem(files); !problem.empty()) {
    fmt::print(stderr, "twice lint: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  bool bad = false;
  std::size_t warnings = 0;
  for (const std::string& path : files) {
    const load_result loaded = load_scenario_argument(path);
    for (const scenario_error& e : loaded.errors) fmt::print(stderr, "{}\n", e.to_string());
    if (!loaded.ok()) {
      bad = true;
      continue;
    }
    const std::vector<lint_warning> found = lint(loaded.value->world);
    warnings += found.size();
    fmt::print("{}: {}\n", loaded.value->path, found.empty() ? "no warnings" : fmt::format("{} warning(s)", found.size()));
    for (const lint_warning& w : found) fmt::print("{}", format_warning(w));
  }
  if (bad) return to_int(exit_code::bad_input);
  return to_int(warnings == 0 ? exit_code::ok : exit_code::expectations_failed);
}

}  // namespace twice::cli
