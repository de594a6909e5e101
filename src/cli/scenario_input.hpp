#pragma once
// The scenario arguments of `twice run`, `lint` and `explore`: a path, or
// "-" for standard input, which is read once, whole, and named "<stdin>" in
// messages (the scenario's default name is then "stdin").

#include <string>
#include <string_view>
#include <vector>

#include "explore/explore.hpp"
#include "scenario/scenario.hpp"

namespace twice::cli {

inline constexpr std::string_view stdin_argument = "-";

load_result load_scenario_argument(const std::string& argument);
explore::prepared prepare_explore_argument(const std::string& argument);

// "" or why the arguments cannot all be read: "-" given more than once
// (standard input can be read only once).
std::string stdin_usage_problem(const std::vector<std::string>& arguments);

}  // namespace twice::cli
