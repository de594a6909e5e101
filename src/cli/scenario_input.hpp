#pragma once
// The scenario arguments of `twice run`, `lint` and `explore`: a path, or
// "-" for standard input, which is read once, whole, and named "<stdin>" in
// messages (the scenario's default name is then "stdin").

#include <string>
#include <string_view>
#include <vector>

#include <twice/explore/explore.hpp>
#include <twice/scenario/scenario.hpp>

namespace twice::cli {

inline constexpr std::string_view stdin_argument = "-";

// `text_read`, when given, receives what standard input held (for "-").
load_result load_scenario_argument(const std::string& argument, std::string* text_read = nullptr);
explore::prepared prepare_explore_argument(const std::string& argument);

// A scenario read from standard input, kept as a file a later command can
// name (a pipe cannot be read twice): in the temporary directory, named by
// its content's FNV-1a digest, so the same input is one file. Its path, or ""
// with `problem` set.
std::string save_stdin_copy(std::string_view text, std::string& problem);

// "" or why the arguments cannot all be read: "-" given more than once
// (standard input can be read only once).
std::string stdin_usage_problem(const std::vector<std::string>& arguments);

}  // namespace twice::cli
