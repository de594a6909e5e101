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
#include <twice/sim/time.hpp>

namespace twice::sim {

// Parses user text; errors quote the text and say what was expected.
result<duration> parse_duration(std::string_view text);

// Canonical text: largest units first, zero groups omitted, "0s" for zero.
// Negative durations get a leading '-' so logs of bugs stay readable, although
// parse_duration rejects them. For every d >= 0:
// parse_duration(format_duration(d)).value() == d.
std::string format_duration(duration d);

// A moment of a run (time since its start), or a span of one, as reports
// print it: seconds below an hour ("22.927747s"), and from an hour on hours,
// minutes and seconds ("2h 0m 22.927747s"), since 7222.927747s does not read
// as two hours. `digits` fractional digits of the second (0 to 6, cut, not
// rounded); `trim` drops trailing zeros and a bare point ("2.5s", "1h 0m 5s").
// Negative values get a leading '-', INT64_MIN included.
std::string format_clock(duration d, int digits = 6, bool trim = false);

}  // namespace twice::sim
