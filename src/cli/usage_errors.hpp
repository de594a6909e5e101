#pragma once
// Mistakes on the command line, in twice's own words: what was expected,
// which option, and the option a mistyped one most likely meant. CLI11's
// own messages ("files is required", "Value abc not in range 1 to 10") name
// its internals, not what the user typed.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace twice::cli {

// The candidate a mistyped word most likely meant: a prefix of it ("ex" for
// "explore"), or one edit away (two for names longer than four letters), a
// swap of neighbours counting as one edit.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& candidates);

// The message for a parse error of `command` (the subcommand the arguments
// chose, or the app itself), without the "twice run: " prefix: "unknown
// option --reprot; did you mean --report?", "no FILE given: ...".
std::string usage_error_text(const CLI::App& command, const CLI::ParseError& e);

// "--seeds" and the like: a whole number in [lo, hi], checked as text so the
// message says what was expected ("expected a whole number from 1 to 10000,
// found \"abc\"").
CLI::Validator whole_number_check(long long lo, long long hi);

}  // namespace twice::cli
