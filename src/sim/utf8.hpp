#pragma once
// One UTF-8 character at a time (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF): what the loader's encoding check and
// the messages that quote user text both need.

#include <cstddef>
#include <string>
#include <string_view>

namespace twice::sim {

// Why the bytes at the start of `rest` (not empty) are not one character, or
// "" when they are; `length` is then the character's length in bytes (1 to 4).
// "byte 0xFF cannot start a character", "an overlong encoding", ...
std::string utf8_sequence_problem(std::string_view rest, std::size_t& length);

// The character's code point when the start of `rest` is a valid character
// (and its length in `length`), else nothing.
bool utf8_decode(std::string_view rest, std::size_t& length, char32_t& code);

}  // namespace twice::sim
