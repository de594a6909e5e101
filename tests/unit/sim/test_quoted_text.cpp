// User text inside messages: valid UTF-8 prints as the characters it is,
// only what would garble a terminal (controls, bytes that are not UTF-8) is
// escaped, and a cut never splits a character.

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "sim/quoted_text.hpp"
#include "sim/utf8.hpp"

using twice::sim::quoted_char_at;
using twice::sim::quoted_text;

TEST_CASE("quoted text keeps valid UTF-8 as text", "[quoted_text]") {
  CHECK(quoted_text("Best\xC3\xA4tigung") == "\"Best\xC3\xA4tigung\"");              // ä
  CHECK(quoted_text("\xE6\xB3\xA8\xE6\x96\x87") == "\"\xE6\xB3\xA8\xE6\x96\x87\"");  // 注文
  CHECK(quoted_text("\xF0\x9F\x98\x80") == "\"\xF0\x9F\x98\x80\"");                  // an emoji, 4 bytes
  CHECK(quoted_text("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quoted_text("it's", '\'') == "'it\\'s'");
}

TEST_CASE("quoted text escapes controls and bytes that are not UTF-8", "[quoted_text]") {
  CHECK(quoted_text(std::string_view("a\x01\n\x7F", 4)) == "\"a\\x01\\x0A\\x7F\"");
  CHECK(quoted_text("\xC2\x85") == "\"\\xC2\\x85\"");           // U+0085, a C1 control
  CHECK(quoted_text("ab\xFF") == "\"ab\\xFF\"");                // never a UTF-8 byte
  CHECK(quoted_text("\xC3(") == "\"\\xC3(\"");                  // a character that does not continue
  CHECK(quoted_text("\xC0\xAF") == "\"\\xC0\\xAF\"");           // overlong
  CHECK(quoted_text("\xED\xA0\x80") == "\"\\xED\\xA0\\x80\"");  // a surrogate
}

TEST_CASE("a cut quoted text ends on a whole character", "[quoted_text]") {
  CHECK(quoted_text("abcdef", '"', 4) == "\"abcd...\"");
  CHECK(quoted_text("abc\xC3\xA4", '"', 4) == "\"abc...\"");  // ä would need bytes 4 and 5
  CHECK(quoted_text("ab\xC3\xA4x", '"', 4) == "\"ab\xC3\xA4...\"");
  CHECK(quoted_text("abcd", '"', 4) == "\"abcd\"");
}

TEST_CASE("quoted_char_at quotes the whole character at a byte position", "[quoted_text]") {
  CHECK(quoted_char_at("10s\xC3\xA4", 3) == "'\xC3\xA4'");
  CHECK(quoted_char_at("10s\x01", 3) == "'\\x01'");
  CHECK(quoted_char_at("10s\xFF", 3) == "'\\xFF'");
}

TEST_CASE("utf8_decode reads one character and its length", "[quoted_text]") {
  std::size_t length = 0;
  char32_t code = 0;
  REQUIRE(twice::sim::utf8_decode("A", length, code));
  CHECK((length == 1 && code == U'A'));
  REQUIRE(twice::sim::utf8_decode("\xC3\xA4!", length, code));
  CHECK((length == 2 && code == U'\u00E4'));
  REQUIRE(twice::sim::utf8_decode("\xF0\x9F\x98\x80", length, code));
  CHECK((length == 4 && code == U'\U0001F600'));
  CHECK_FALSE(twice::sim::utf8_decode("\x80", length, code));
  CHECK_FALSE(twice::sim::utf8_decode("", length, code));
}
