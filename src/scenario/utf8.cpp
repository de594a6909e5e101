#include "scenario/utf8.hpp"

#include "sim/utf8.hpp"

namespace twice::scenario_detail {

std::optional<utf8_problem> first_invalid_utf8(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  source_pos pos{1, 1};
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = 1;
    if (static_cast<unsigned char>(text[i]) >= 0x80) {
      std::string problem = sim::utf8_sequence_problem(text.substr(i), length);
      if (!problem.empty()) return utf8_problem{pos, "invalid UTF-8: " + std::move(problem)};
    }
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace twice::scenario_detail
