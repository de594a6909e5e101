#include "sim/utf8.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace twice::sim {
namespace {

// "byte 0xC3": the kernel's layer has no fmt.
std::string byte_text(unsigned char b) {
  constexpr std::string_view digits = "0123456789ABCDEF";
  return std::string("byte 0x") + digits[b >> 4] + digits[b & 0xF];
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// How many continuation bytes a first byte announces; nothing when it cannot start a character.
std::optional<std::size_t> continuation_count(unsigned char lead) {
  if (lead < 0x80) return 0;
  if (lead >= 0xC0 && lead <= 0xDF) return 1;
  if (lead >= 0xE0 && lead <= 0xEF) return 2;
  if (lead >= 0xF0 && lead <= 0xF4) return 3;
  return std::nullopt;  // a continuation byte, or 0xF5..0xFF (never in UTF-8)
}

std::string decode(std::string_view rest, std::size_t& length, char32_t& code) {
  const auto lead = static_cast<unsigned char>(rest[0]);
  const std::optional<std::size_t> more = continuation_count(lead);
  if (!more) return byte_text(lead) + " cannot start a character";
  length = 1 + *more;
  if (*more == 0) {
    code = lead;
    return {};
  }
  code = lead & (0x7F >> length);
  if (rest.size() < length) return byte_text(lead) + " starts a character that does not continue";
  for (std::size_t i = 1; i < length; ++i) {
    const auto c = static_cast<unsigned char>(rest[i]);
    if (!is_continuation(c)) return byte_text(lead) + " starts a character that does not continue";
    code = (code << 6) | (c & 0x3F);
  }
  constexpr std::uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
  if (code < smallest[*more]) return "an overlong encoding";
  if (code >= 0xD800 && code <= 0xDFFF) return "a surrogate (U+D800 to U+DFFF)";
  if (code > 0x10FFFF) return "beyond U+10FFFF";
  return {};
}

}  // namespace

std::string utf8_sequence_problem(std::string_view rest, std::size_t& length) {
  char32_t code = 0;
  return decode(rest, length, code);
}

bool utf8_decode(std::string_view rest, std::size_t& length, char32_t& code) {
  if (rest.empty()) return false;
  std::size_t n = 1;
  char32_t c = 0;
  if (!decode(rest, n, c).empty()) return false;
  length = n;
  code = c;
  return true;
}

}  // namespace twice::sim
