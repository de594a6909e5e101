#include "sim/quoted_text.hpp"

#include "sim/utf8.hpp"

namespace twice::sim {
namespace {

void append_hex_escape(std::string& out, char c) {
  constexpr std::string_view digits = "0123456789ABCDEF";
  const auto byte = static_cast<unsigned char>(c);
  out += "\\x";
  out += digits[byte >> 4];
  out += digits[byte & 0xF];
}

// C0 controls, DEL and the C1 controls (U+0080..U+009F): a terminal acts on them.
bool is_control(char32_t code) { return code < 0x20 || (code >= 0x7F && code <= 0x9F); }

// The character at the start of `rest` (not empty) as it goes in quotes; its length in bytes.
std::size_t append_char(std::string& out, std::string_view rest, char quote) {
  std::size_t length = 1;
  char32_t code = 0;
  if (!utf8_decode(rest, length, code)) {
    append_hex_escape(out, rest[0]);  // not UTF-8: the byte alone
    return 1;
  }
  if (code == static_cast<unsigned char>(quote) || code == '\\') {
    out += '\\';
    out += rest[0];
  } else if (is_control(code)) {
    for (std::size_t i = 0; i < length; ++i) append_hex_escape(out, rest[i]);
  } else {
    out.append(rest.substr(0, length));
  }
  return length;
}

}  // namespace

std::string quoted_text(std::string_view text, char quote, std::size_t max_bytes) {
  std::string out(1, quote);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t length = 1;  // a byte that is not UTF-8 goes alone
    char32_t code = 0;
    utf8_decode(text.substr(pos), length, code);
    if (pos + length > max_bytes) break;  // never half a character
    pos += append_char(out, text.substr(pos), quote);
  }
  if (pos < text.size()) out += "...";
  out += quote;
  return out;
}

std::string quoted_char_at(std::string_view text, std::size_t pos) {
  std::string out = "'";
  if (pos < text.size()) append_char(out, text.substr(pos), '\'');
  out += '\'';
  return out;
}

}  // namespace twice::sim
