#pragma once
// The words of error messages: quoting, what a value is, the key paths, and
// "did you mean" for a mistyped key or value.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "scenario/document.hpp"

namespace twice::scenario_detail {

// `"text"` with quotes and backslashes escaped, control bytes as \xNN, and
// long text cut short so one bad value cannot swamp the message.
std::string quote(std::string_view text);
// What a node is, for "found ...": "integer 30", "string \"30\"", "a table".
std::string describe_found(const doc_node& node);
// The closest candidate to a mistyped word (edit distance, a prefix, a
// different spelling of the same words, or a known synonym), if any is close.
std::optional<std::string_view> closest(std::string_view word, std::span<const std::string_view> candidates);
// "; did you mean `x`?" or "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);
// "a, b, c"
std::string join(std::span<const std::string_view> words);
// "\"a\", \"b\" or \"c\"": the values a string key accepts.
std::string quoted_choices(std::span<const std::string_view> names);

// "retry" + "initial_interval" -> "retry.initial_interval"; root "" -> key.
std::string child_path(std::string_view path, std::string_view key);
std::string index_path(std::string_view path, std::size_t index);  // "job[2]"

// Shortest text that reads back as the same double, in fixed notation for
// the magnitudes people write ("0.0000005", not "5e-07"). std::to_chars is
// locale-independent, so messages are the same everywhere.
std::string format_number(double v);
bool contains(std::span<const std::string_view> words, std::string_view word);
// Letters, digits, '_', '-', '.': what names and ids are made of.
bool is_name_char(char c);

}  // namespace twice::scenario_detail
