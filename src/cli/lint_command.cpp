#include "cli/lint_command.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <twice/cli/exit_codes.hpp>
#include "cli/scenario_input.hpp"
#include <twice/lint/lint.hpp>
#include <twice/scenario/scenario.hpp>
#include "sim/count_text.hpp"

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
    // A warning the file allows ([lint] allow) is printed with its reason
    // and does not count; an allowance that matched nothing is pointed out,
    // so a stale one does not hide the next regression unnoticed.
    const std::vector<lint_allowance>& allowed = loaded.value->lint_allow;
    std::vector<lint_warning> found;
    std::vector<std::pair<lint_warning, const lint_allowance*>> kept;
    for (lint_warning& w : lint(loaded.value->world)) {
      const auto a =
          std::find_if(allowed.begin(), allowed.end(), [&](const lint_allowance& x) { return x.rule == w.rule; });
      if (a == allowed.end()) {
        found.push_back(std::move(w));
      } else {
        kept.emplace_back(std::move(w), &*a);
      }
    }
    warnings += found.size();
    fmt::print("{}: {}\n", loaded.value->path, found.empty() ? "no warnings" : sim::counted(found.size(), "warning"));
    for (const lint_warning& w : found) fmt::print("{}", format_warning(w));
    for (const auto& [w, a] : kept) fmt::print("allowed[{}] {}: {}\n", w.rule, w.setting, a->reason);
    for (const lint_allowance& a : allowed)
      if (std::none_of(kept.begin(), kept.end(), [&](const auto& k) { return k.second == &a; }))
        fmt::print("note: [lint] allows {}, but it does not fire on this file\n", a.rule);
  }
  if (bad) return to_int(exit_code::bad_input);
  return to_int(warnings == 0 ? exit_code::ok : exit_code::expectations_failed);
}

}  // namespace twice::cli
