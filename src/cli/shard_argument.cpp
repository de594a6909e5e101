#include "cli/shard_argument.hpp"

#include <fmt/core.h>

#include <charconv>

namespace twice::cli {
namespace {

std::optional<std::size_t> whole_number(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

shard_choice checked(std::size_t index, std::size_t count, std::string_view source) {
  if (count == 0) return {std::nullopt, fmt::format("--shard {}: the shard count must be at least 1", source)};
  if (index >= count)
    return {std::nullopt, fmt::format("--shard {}: the shard index {} must be below the count {} (shards are "
                                      "numbered from 0)",
                                      source, index, count)};
  return {explore::shard{index, count}, {}};
}

}  // namespace

shard_choice parse_shard_argument(std::string_view text, std::size_t shards,
                                  const std::function<const char*(const char*)>& getenv) {
  if (text != "auto") {
    if (shards != 0) return {std::nullopt, "--shards N goes with --shard auto only; --shard K/N says N itself"};
    const std::size_t slash = text.find('/');
    const auto index = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(0, slash));
    const auto count = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
    if (!index || !count)
      return {std::nullopt, fmt::format("--shard: expected K/N (shard K of N, from 0) or auto, found \"{}\"", text)};
    return checked(*index, *count, text);
  }
  // A variable set but not a number is the engine's mistake or ours: say which.
  auto number = [&](const char* name, std::optional<std::size_t>& out) -> std::string {
    const char* value = getenv(name);
    if (value == nullptr) return {};
    out = whole_number(value);
    return out ? std::string() : fmt::format("--shard auto: {}=\"{}\" is not a whole number", name, value);
  };
  std::optional<std::size_t> id, count, min, step, index, node, total;
  for (const auto& [name, out] : {std::pair{"SLURM_ARRAY_TASK_ID", &id}, std::pair{"SLURM_ARRAY_TASK_COUNT", &count},
                                  std::pair{"SLURM_ARRAY_TASK_MIN", &min}, std::pair{"SLURM_ARRAY_TASK_STEP", &step},
                                  std::pair{"JOB_COMPLETION_INDEX", &index}, std::pair{"CI_NODE_INDEX", &node},
                                  std::pair{"CI_NODE_TOTAL", &total}})
    if (std::string problem = number(name, *out); !problem.empty()) return {std::nullopt, problem};

  if (id) {
    if (!count) return {std::nullopt, "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"};
    if (shards != 0) return {std::nullopt, "--shard auto: under a Slurm array the count is the array's; drop --shards"};
    // `--array=0-7:2` leaves holes; task ids must be min .. min+count-1.
    if (step.value_or(1) != 1)
      return {std::nullopt,
              "--shard auto: a Slurm array with a step (--array=A-B:S) numbers its tasks with holes; "
              "submit --array=0-N-1"};
    const std::size_t first = min.value_or(0);
    if (*id < first) return {std::nullopt, "--shard auto: SLURM_ARRAY_TASK_ID is below SLURM_ARRAY_TASK_MIN"};
    return checked(*id - first, *count, fmt::format("auto (Slurm array task {} of {})", *id, *count));
  }
  if (index) {
    if (shards == 0)
      return {std::nullopt,
              "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job); give the Job's "
              "completions as --shards N"};
    return checked(*index, shards, fmt::format("auto (Kubernetes completion index {} of {})", *index, shards));
  }
  if (node) {
    if (!total) return {std::nullopt, "--shard auto: CI_NODE_INDEX is set but CI_NODE_TOTAL is not"};
    if (*node == 0) return {std::nullopt, "--shard auto: CI_NODE_INDEX counts from 1 and is 0"};
    return checked(*node - 1, *total, fmt::format("auto (GitLab node {} of {})", *node, *total));
  }
  return {std::nullopt,
          "--shard auto: none of SLURM_ARRAY_TASK_ID (a Slurm job array), JOB_COMPLETION_INDEX (a "
          "Kubernetes Indexed Job) or CI_NODE_INDEX (GitLab's parallel:) is set; give --shard K/N"};
}

}  // namespace twice::cli
