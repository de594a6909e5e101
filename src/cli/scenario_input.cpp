#include "cli/scenario_input.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include <fmt/core.h>

#include "cli/output_file.hpp"
#include "sim/fnv1a.hpp"

namespace twice::cli {
namespace {

struct stdin_text {
  std::string text;
  std::string problem;  // "" when read whole
};

// At most the loader's bound and one byte more, so a stream that never ends
// fails fast instead of filling memory.
stdin_text read_stdin() {
  stdin_text out;
  std::array<char, 65536> buffer{};
  while (out.text.size() <= scenario_file_size_max) {
    const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), stdin);
    out.text.append(buffer.data(), n);
    if (n < buffer.size()) break;
  }
  if (std::ferror(stdin))
    out.problem = "cannot read standard input: " + std::generic_category().message(errno);
  else if (out.text.size() > scenario_file_size_max)
    out.problem = "standard input is larger than 16 MiB";
  return out;
}

load_result failed(std::string message) {
  return {std::nullopt, {scenario_error{std::string(scenario_stdin_name), 0, 0, {}, std::move(message)}}};
}

}  // namespace

load_result load_scenario_argument(const std::string& argument, std::string* text_read) {
  if (argument != stdin_argument) return load_scenario_file(argument);
  const stdin_text in = read_stdin();
  if (!in.problem.empty()) return failed(in.problem);
  if (text_read != nullptr) *text_read = in.text;
  return load_scenario_text(in.text, std::string(scenario_stdin_name));
}

explore::prepared prepare_explore_argument(const std::string& argument) {
  if (argument != stdin_argument) return explore::prepare_file(argument);
  const stdin_text in = read_stdin();
  if (!in.problem.empty()) return {std::nullopt, failed(in.problem).errors};
  return explore::prepare_text(in.text, std::string(scenario_stdin_name));
}

std::string save_stdin_copy(std::string_view text, std::string& problem) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) {
    problem = "no temporary directory: " + ec.message();
    return {};
  }
  const std::string path = (dir / fmt::format("twice-stdin-{:016x}.toml", sim::fnv1a64(text))).string();
  problem = write_file_atomically(path, text);
  return problem.empty() ? path : std::string();
}

std::string stdin_usage_problem(const std::vector<std::string>& arguments) {
  if (std::count(arguments.begin(), arguments.end(), stdin_argument) > 1)
    return "- (standard input) is given more than once; it can be read only once";
  return {};
}

}  // namespace twice::cli
