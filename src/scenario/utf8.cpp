#include "scenario/utf8.hpp"

#include <cstdint>

#include <fmt/core.h>

namespace twice::scenario_detail {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// How many continuation bytes a first byte announces; nothing when it cannot start a character.
std::optional<std::size_t> continuation_count(unsigned char lead) {
  if (lead < 0x80) return 0;
  if (lead >= 0xC0 && lead <= 0xDF) return 1;
  if (lead >= 0xE0 && lead <= 0xEF) return 2;
  if (lead >= 0xF0 && lead <= 0xF4) return 3;
  return std::nullopt;  // a continuation byte, or 0xF5..0xFF (never in UTF-8)
}

// Why the sequence at the start of `rest` is not one character, or "" when it is.
std::string sequence_problem(std::string_view rest, std::size_t& length) {
  const auto lead = static_cast<unsigned char>(rest[0]);
  const std::optional<std::size_t> more = continuation_count(lead);
  if (!more) return fmt::format("byte 0x{:02X} cannot start a character", lead);
  length = 1 + *more;
  if (*more == 0) return {};
  if (rest.size() < length) return fmt::format("byte 0x{:02X} starts a character that does not continue", lead);
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    const auto c = static_cast<unsigned char>(rest[i]);
    if (!is_continuation(c)) return fmt::format("byte 0x{:02X} starts a character that does not continue", lead);
    code = (code << 6) | (c & 0x3F);
  }
  constexpr std::uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
  if (code < smallest[*more]) return "an overlong encoding";
  if (code >= 0xD800 && code <= 0xDFFF) return "a surrogate (U+D800 to U+DFFF)";
  if (code > 0x10FFFF) return "beyond U+10FFFF";
  return {};
}

}  // namespace

std::optional<utf8_problem> first_invalid_utf8(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  source_pos pos{1, 1};
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = 1;
    if (static_cast<unsigned char>(text[i]) >= 0x80) {
      std::string problem = sequence_problem(text.substr(i), length);
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
