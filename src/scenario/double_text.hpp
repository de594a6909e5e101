#pragma once
// A double as the shortest text that reads back as the same double, exactly
// as std::to_chars writes it, on every standard library. The libc++ of
// Debian's emscripten 3.1.6 (the WebAssembly build, scripts/web.sh) has no
// floating-point to_chars; there fmt's shortest digits (Dragonbox) are laid
// out by to_chars' rules, so the page's reports are the native ones byte
// for byte (tests/unit/scenario/test_double_text.cpp compares the two).
// Reading: strtod, correctly rounded by musl as from_chars is.

#include <optional>
#include <string>
#include <string_view>

namespace twice {

// std::to_chars(first, last, v): fixed or scientific, whichever is shorter
// (fixed on a tie).
std::string shortest_text(double v);
// std::to_chars(first, last, v, std::chars_format::fixed).
std::string shortest_fixed_text(double v);
// The whole of `text` read as std::from_chars reads a double (no leading
// '+' or space, no hexadecimal), or nothing.
std::optional<double> parse_double(std::string_view text);

namespace detail {
// The same two from fmt, whatever the standard library has.
std::string shortest_text_from_fmt(double v);
std::string shortest_fixed_text_from_fmt(double v);
std::optional<double> parse_double_from_strtod(std::string_view text);
}  // namespace detail

}  // namespace twice
