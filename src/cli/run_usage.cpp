#include "cli/run_usage.hpp"

#include <string_view>
#include <utility>
#include <vector>

#include "cli/output_file.hpp"
#include "cli/scenario_input.hpp"

namespace twice::cli {

std::string run_usage_problem(const run_options& options) {
  if (std::string problem = stdin_usage_problem(options.files); !problem.empty()) return problem;
  const std::vector<std::pair<std::string_view, const std::string*>> outputs{{"--trace", &options.trace_path},
                                                                             {"--markdown", &options.markdown_path},
                                                                             {"--perfetto", &options.perfetto_path},
                                                                             {"--report", &options.report_path}};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [flag, path] = outputs[i];
    if (path->empty()) continue;
    if (options.files.size() != 1) return std::string(flag) + " writes one file; give exactly one scenario";
    const std::string& scenario = options.files.front();
    if (scenario != stdin_argument && same_path(*path, scenario))
      return std::string(flag) + " " + *path + " would overwrite the scenario itself";
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [other_flag, other_path] = outputs[j];
      if (!other_path->empty() && same_path(*path, *other_path))
        return std::string(flag) + " " + *path + " and " + std::string(other_flag) + " " + *other_path +
               " name the same file; give each output its own";
    }
  }
  return {};
}

}  // namespace twice::cli
