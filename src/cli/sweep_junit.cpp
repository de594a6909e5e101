#include "cli/sweep_junit.hpp"

#include <fmt/core.h>

#include "cli/shell_word.hpp"
#include "sim/count_text.hpp"

namespace twice::cli {

junit_suite sweep_junit(const explore::sweep_result& r, const std::string& path, const std::string& name,
                        const std::vector<std::pair<std::string, std::string>>& written) {
  junit_suite suite{"twice sweep " + name, path, {}};
  std::string outputs;
  for (const auto& [option, file] : written)
    outputs += fmt::format("{}{} ({})", outputs.empty() ? "" : ", ", file, option);
  for (const explore::sweep_cell& cell : r.cells) {
    std::string point;
    for (std::size_t a = 0; a < r.axes.size(); ++a)
      point += fmt::format("{}{}={}", point.empty() ? "" : ", ", r.axes[a].path, cell.values[a]);
    // Seed 0 of a sweep is its root seed: a one-seed sweep of this point alone.
    std::string command = "twice sweep " + shell_word(path);
    for (const std::string& v : cell.vary_arguments) command += " --vary " + shell_word(v);
    const auto reproduce = [&](std::uint32_t k) {
      return fmt::format("{} --seeds 1 --seed {}", command, r.world_seeds[k]);
    };
    for (const explore::sweep_check& check : cell.checks) {
      junit_case c{point.empty() ? check.name : point + ": " + check.name, name, std::nullopt, {}, std::nullopt};
      if (check.ignored) {
        c.skipped = "ignored by [expect]: " + *check.ignored;
      } else if (!check.failed.empty()) {
        const auto& [first, why] = check.failed.front();
        c.failure = fmt::format("{} (in {} of {}, first seed {}); reproduce: {}", why, check.failed.size(),
                                sim::counted(r.seeds, "seed"), first, reproduce(first));
        for (const auto& [k, reason] : check.failed)
          c.detail +=
              fmt::format("seed {} (world seed {}): {}\nreproduce: {}\n", k, r.world_seeds[k], reason, reproduce(k));
        if (!outputs.empty()) c.detail += "the sweep also wrote " + outputs + "\n";
      }
      suite.cases.push_back(std::move(c));
    }
  }
  return suite;
}

}  // namespace twice::cli
