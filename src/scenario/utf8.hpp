#pragma once
// The encoding check the loader runs before the TOML parser: toml++ 3.3
// locates an invalid byte at the last good character before it (a bad
// first byte of line 2 is reported at the end of line 1), so the loader
// finds the byte itself and names it.

#include <optional>
#include <string>
#include <string_view>

#include "scenario/document.hpp"

namespace twice::scenario_detail {

struct utf8_problem {
  source_pos pos;       // the bad sequence's first byte, in toml++'s terms (columns count characters)
  std::string message;  // "invalid UTF-8: byte 0xFF cannot start a character"
};

// The first invalid sequence in `text` (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or nothing. A leading byte order mark
// is skipped and takes no column, as in toml++.
std::optional<utf8_problem> first_invalid_utf8(std::string_view text);

}  // namespace twice::scenario_detail
