#pragma once
// User text inside a message: in quotes, with the quote and backslashes
// escaped, and bytes that would garble a terminal or a log as \xNN (control
// characters, C1 controls, bytes that are not UTF-8). Every other character,
// "Bestätigung" or "注文", prints as itself.

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace twice::sim {

// `text` between two `quote` characters. Longer than `max_bytes`, it is cut
// at the last whole character within them and "..." follows.
std::string quoted_text(std::string_view text, char quote = '"',
                        std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

// The character at `pos` of `text` (all of its bytes when it is a valid
// multi-byte character) as quoted_text writes it, in single quotes: 'ä', '\x01'.
std::string quoted_char_at(std::string_view text, std::size_t pos);

}  // namespace twice::sim
