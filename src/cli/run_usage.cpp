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
                                                                             {"--otlp", &options.otlp_path},
                                                                             {"--report", &options.report_path}};
  for (const auto& [flag, path] : outputs)
    if (!path->empty() && options.files.size() != 1)
      return std::string(flag) + " writes one file; give exactly one scenario";
  // --junit writes one file for every scenario.
  std::vector<std::pair<std::string_view, const std::string*>> all = outputs;
  all.emplace_back("--junit", &options.junit_path);
  return outputs_clash(all, options.files.empty() ? std::string() : options.files.front());
}

}  // namespace twice::cli
