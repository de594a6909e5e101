#pragma once
// Sizes of memory as scenario files and the command line write them:
// "512MiB", "2GiB".
//
// Grammar: <digits><unit>, unit one of B, KiB, MiB, GiB, TiB (powers of
// 1024: the budgets are about memory, which the kernel counts that way). No
// sign, no decimals, no whitespace, no SI units ("1GB" is rejected rather
// than read as either 10^9 or 2^30). Overflow is an error, never wrap-around.

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/result.hpp"

namespace twice::sim {

// Parses user text; errors quote the text and say what was expected.
result<std::uint64_t> parse_byte_size(std::string_view text);

// Canonical text: the largest unit that divides the size exactly, so that
// parse_byte_size(format_byte_size(n)).value() == n for every n.
std::string format_byte_size(std::uint64_t bytes);

// For people: "1.50 GiB", "37.2 MiB" (not parseable; for messages).
std::string describe_byte_size(std::uint64_t bytes);

}  // namespace twice::sim
