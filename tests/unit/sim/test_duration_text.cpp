// Duration text as scenario files write it: exact values for valid texts,
// one check per error class on what the message tells the user, canonical
// formatting, and the int64 boundary.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "sim/duration_text.hpp"

using Catch::Matchers::Contains;
using twice::sim::duration;
using twice::sim::format_duration;
using twice::sim::parse_duration;

namespace {

std::int64_t parsed_us(std::string_view text) {
  const auto r = parse_duration(text);
  INFO("text: " << std::string(text));
  REQUIRE(r.ok());
  return r.value().us();
}

std::string parse_error(std::string_view text) {
  const auto r = parse_duration(text);
  INFO("text: " << std::string(text));
  REQUIRE_FALSE(r.ok());
  return r.error();
}

// Every error quotes the text and shows what a valid duration looks like.
void require_helpful(const std::string& error, const std::string& quoted_text) {
  REQUIRE_THAT(error, Contains(quoted_text));
  REQUIRE_THAT(error, Contains("expected a duration such as \"250ms\", \"30s\", \"1m30s\""));
  REQUIRE_THAT(error, Contains("units: h, m, s, ms, us"));
}

constexpr std::int64_t k_ms = 1'000;
constexpr std::int64_t k_s = 1'000'000;
constexpr std::int64_t k_m = 60 * k_s;
constexpr std::int64_t k_h = 60 * k_m;

}  // namespace

TEST_CASE("parse_duration reads single-unit texts", "[duration_text]") {
  CHECK(parsed_us("0s") == 0);
  CHECK(parsed_us("45us") == 45);
  CHECK(parsed_us("250ms") == 250 * k_ms);
  CHECK(parsed_us("30s") == 30 * k_s);
  CHECK(parsed_us("5m") == 5 * k_m);
  CHECK(parsed_us("2h") == 2 * k_h);
  CHECK(parsed_us("0us") == 0);
  CHECK(parsed_us("90s") == 90 * k_s);  // non-canonical but valid
}

TEST_CASE("parse_duration reads multi-unit texts largest first", "[duration_text]") {
  CHECK(parsed_us("1h30m") == k_h + 30 * k_m);
  CHECK(parsed_us("1m30s") == k_m + 30 * k_s);
  CHECK(parsed_us("2s500ms") == 2 * k_s + 500 * k_ms);
  CHECK(parsed_us("1ms1us") == 1'001);
  CHECK(parsed_us("1h2m3s4ms5us") == k_h + 2 * k_m + 3 * k_s + 4 * k_ms + 5);
  CHECK(parsed_us("1h5us") == k_h + 5);  // skipping units is fine
}

TEST_CASE("parse_duration reaches exactly the int64 maximum", "[duration_text]") {
  const std::int64_t max = duration::max().us();
  CHECK(parsed_us("9223372036854775807us") == max);
  CHECK(parsed_us("2562047788h54s775ms807us") == max);
  // int64 microseconds hold about 292,000 years: three million hours fit.
  CHECK(parsed_us("3000000h") == 3'000'000 * k_h);
}

TEST_CASE("parse_duration rejects empty text", "[duration_text]") {
  const std::string e = parse_error("");
  require_helpful(e, "\"\"");
  REQUIRE_THAT(e, Contains("empty"));
}

TEST_CASE("parse_duration rejects a number without unit", "[duration_text]") {
  const std::string e = parse_error("30");
  require_helpful(e, "\"30\"");
  REQUIRE_THAT(e, Contains("missing unit"));
  REQUIRE_THAT(parse_error("1m30"), Contains("missing unit"));
}

TEST_CASE("parse_duration rejects a unit without number", "[duration_text]") {
  const std::string e = parse_error("ms");
  require_helpful(e, "\"ms\"");
  REQUIRE_THAT(e, Contains("needs a number"));
  REQUIRE_THAT(parse_error("1m30sms"), Contains("unknown unit \"sms\""));
}

TEST_CASE("parse_duration rejects negative durations", "[duration_text]") {
  const std::string e = parse_error("-5s");
  require_helpful(e, "\"-5s\"");
  REQUIRE_THAT(e, Contains("durations cannot be negative"));
  REQUIRE_THAT(parse_error("5s-1ms"), Contains("cannot be negative"));
}

TEST_CASE("parse_duration rejects decimals", "[duration_text]") {
  for (const char* text : {"1.5s", "1.5.2s", ".5s", "1.s"}) {
    const std::string e = parse_error(text);
    require_helpful(e, "\"" + std::string(text) + "\"");
    REQUIRE_THAT(e, Contains("only whole numbers"));
    REQUIRE_THAT(e, Contains("1s500ms"));
  }
}

TEST_CASE("parse_duration rejects unknown units", "[duration_text]") {
  const std::string day = parse_error("5d");
  require_helpful(day, "\"5d\"");
  REQUIRE_THAT(day, Contains("unknown unit \"d\""));
  REQUIRE_THAT(parse_error("5sec"), Contains("unknown unit \"sec\""));
  REQUIRE_THAT(parse_error("5S"), Contains("unknown unit \"S\""));
  REQUIRE_THAT(parse_error("1m30x"), Contains("unknown unit \"x\""));
}

TEST_CASE("parse_duration rejects units out of order", "[duration_text]") {
  const std::string e = parse_error("30s1m");
  require_helpful(e, "\"30s1m\"");
  REQUIRE_THAT(e, Contains("unit \"m\" comes after a smaller unit"));
  REQUIRE_THAT(e, Contains("largest (h) to smallest (us)"));
  REQUIRE_THAT(parse_error("1us1ms"), Contains("unit \"ms\" comes after a smaller unit"));
}

TEST_CASE("parse_duration rejects repeated units", "[duration_text]") {
  const std::string e = parse_error("1s1s");
  require_helpful(e, "\"1s1s\"");
  REQUIRE_THAT(e, Contains("unit \"s\" appears more than once"));
  // The repeat is named even when the order is also wrong.
  REQUIRE_THAT(parse_error("1s500ms1s"), Contains("unit \"s\" appears more than once"));
}

TEST_CASE("parse_duration rejects whitespace anywhere", "[duration_text]") {
  for (const char* text : {" 5s", "5 s", "5s ", "1m 30s", "5s\n", "\t5s"}) {
    const std::string e = parse_error(text);
    REQUIRE_THAT(e, Contains("whitespace is not allowed"));
    REQUIRE_THAT(e, Contains("expected a duration such as"));
  }
  require_helpful(parse_error("5 s"), "\"5 s\"");
}

TEST_CASE("parse_duration rejects overflow past int64 microseconds", "[duration_text]") {
  for (const char* text : {"9223372036854775808us", "3000000000h", "2562047788h54s775ms808us",
                           "99999999999999999999999999s", "2562047789h"}) {
    const std::string e = parse_error(text);
    require_helpful(e, "\"" + std::string(text) + "\"");
    REQUIRE_THAT(e, Contains("too large"));
    REQUIRE_THAT(e, Contains("2562047788h54s775ms807us"));
  }
}

TEST_CASE("parse_duration rejects other characters and escapes them", "[duration_text]") {
  REQUIRE_THAT(parse_error("+5s"), Contains("unexpected character '+' at position 0"));
  REQUIRE_THAT(parse_error("5s,3ms"), Contains("unexpected character ',' at position 2"));
  REQUIRE_THAT(parse_error("5_s"), Contains("unexpected character '_' at position 1"));
  // Control bytes and quotes must not garble the message.
  const std::string e = parse_error(std::string_view("5s\x01\"", 4));
  REQUIRE_THAT(e, Contains("\"5s\\x01\\\"\""));
  REQUIRE_THAT(e, Contains("'\\x01'"));
  // A character beyond ASCII is named as the character it is, not its bytes.
  const std::string umlaut = parse_error("10s\xC3\xA4");
  CHECK_THAT(umlaut, Contains("\"10s\xC3\xA4\": unexpected character '\xC3\xA4' at position 3"));
}

TEST_CASE("format_duration writes the canonical text", "[duration_text]") {
  CHECK(format_duration(duration::zero()) == "0s");
  CHECK(format_duration(duration::from_s(90)) == "1m30s");
  CHECK(format_duration(duration::from_ms(250)) == "250ms");
  CHECK(format_duration(duration::from_ms(1'500)) == "1s500ms");
  CHECK(format_duration(duration::from_s(3'600)) == "1h");
  CHECK(format_duration(duration::from_us(1)) == "1us");
  CHECK(format_duration(duration::from_us(1'001)) == "1ms1us");
  CHECK(format_duration(duration::from_us(k_h + 5)) == "1h5us");
  CHECK(format_duration(duration::from_s(48 * 3'600)) == "48h");  // no days
  CHECK(format_duration(duration::from_us(k_h + 2 * k_m + 3 * k_s + 4 * k_ms + 5)) == "1h2m3s4ms5us");
}

TEST_CASE("format_duration marks negative durations with a minus", "[duration_text]") {
  CHECK(format_duration(duration::from_s(-5)) == "-5s");
  CHECK(format_duration(duration::from_us(-1'001)) == "-1ms1us");
  // INT64_MIN has no positive counterpart; formatting must not overflow.
  CHECK(format_duration(duration::from_us(std::numeric_limits<std::int64_t>::min())) == "-2562047788h54s775ms808us");
  REQUIRE_FALSE(parse_duration(format_duration(duration::from_s(-5))).ok());
}

TEST_CASE("format_duration and parse_duration round trip at the boundaries", "[duration_text]") {
  for (const duration d : {duration::zero(), duration::from_us(1), duration::from_us(999), duration::from_s(59),
                           duration::from_s(3'599), duration::max(), duration::max() - duration::from_us(1)}) {
    const std::string text = format_duration(d);
    INFO("text: " << text);
    const auto r = parse_duration(text);
    REQUIRE(r.ok());
    CHECK(r.value() == d);
  }
  CHECK(format_duration(duration::max()) == "2562047788h54s775ms807us");
}

TEST_CASE("format_clock: seconds below an hour, hours, minutes and seconds from an hour on", "[duration_text]") {
  using twice::sim::format_clock;
  CHECK(format_clock(duration::from_us(22'927'747)) == "22.927747s");
  CHECK(format_clock(duration::zero()) == "0.000000s");
  CHECK(format_clock(duration::from_us(k_h - 1)) == "3599.999999s");
  CHECK(format_clock(duration::from_s(3'605)) == "1h 0m 5.000000s");
  CHECK(format_clock(duration::from_us(2 * k_h + 22'927'747)) == "2h 0m 22.927747s");
  // Fewer digits cut (a report's axis never rounds a moment up past it).
  CHECK(format_clock(duration::from_us(546'644'999), 3) == "546.644s");
  CHECK(format_clock(duration::from_us(1 * k_h + 30 * k_m + 500'000), 3, true) == "1h 30m 0.5s");
  CHECK(format_clock(duration::from_s(3'605), 6, true) == "1h 0m 5s");
  CHECK(format_clock(duration::from_us(2'500'000), 6, true) == "2.5s");
  CHECK(format_clock(duration::from_us(999'999), 0) == "0s");
  // The sign once, INT64_MIN included.
  CHECK(format_clock(duration::from_us(-1)) == "-0.000001s");
  CHECK(format_clock(duration::from_us(std::numeric_limits<std::int64_t>::min())) == "-2562047788h 0m 54.775808s");
  CHECK(format_clock(duration::max()) == "2562047788h 0m 54.775807s");
}
