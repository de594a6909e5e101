#pragma once
// Durations as scenario files write them: "250ms", "30s", "1m30s".
//
// Grammar: one or more <digits><unit> groups with units h, m, s, ms, us, each
// unit at most once and from largest to smallest. No sign, no decimals, no
// whitespace: one spelling per value keeps scenario files diffable, and
// integer microseconds keep runs identical on every machine. Parsing is pure
// ASCII (no locale) and overflow is an error, never wrap-around.

#include <string>
#include <string_view>

#include "sim/result.hpp"
#include "sim/time.hpp"

namespace twice::sim {

// Parses user text; errors quote the text and say what was expected.
result<duration> parse_duration(std::string_view text);

// Canonical text: largest units first, zero groups omitted, "0s" for zero.
// Negative durations get a leading '-' so logs of bugs stay readable, although
// parse_duration rejects them. For every d >= 0:
// parse_duration(format_duration(d)).value() == d.
std::string format_duration(duration d);

}  // namespace twice::sim
