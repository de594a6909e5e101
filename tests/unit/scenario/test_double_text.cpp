// The WebAssembly build writes doubles with fmt's digits laid out by
// to_chars' rules (scenario/double_text.hpp): here both are run natively on
// the same doubles, which must come out byte for byte as std::to_chars has
// them, or a report in the page would differ from the CLI's.

#include <catch2/catch.hpp>

#include <bit>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scenario/double_text.hpp"

namespace {

std::string std_text(double v, bool fixed) {
  char buffer[400];
  const auto [end, error] = fixed ? std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed)
                                  : std::to_chars(buffer, buffer + sizeof buffer, v);
  REQUIRE(error == std::errc());
  return std::string(buffer, end);
}

void same_as_to_chars(double v) {
  INFO(std_text(v, false));
  CHECK(twice::detail::shortest_text_from_fmt(v) == std_text(v, false));
  CHECK(twice::detail::shortest_fixed_text_from_fmt(v) == std_text(v, true));
}

// splitmix64: the doubles below are the same on every run.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

TEST_CASE("double text: the edges, as to_chars writes them", "[scenario][double_text]") {
  const double edges[] = {0.0,
                          -0.0,
                          1.0,
                          -1.0,
                          0.1,
                          0.5,
                          1.5,
                          2.5,
                          100.0,
                          120000.0,
                          1e6,
                          1e-9,
                          1e-5,
                          1e-4,
                          1e15,
                          1e16,
                          1e17,
                          1e21,
                          1e22,
                          1e23,
                          1.5e23,
                          0.3,
                          1.0 / 3,
                          2.0 / 3,
                          123.456,
                          999999.9,
                          1e-10,
                          5e-324,
                          9007199254740993.0,
                          std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::min(),
                          std::numeric_limits<double>::lowest(),
                          0.001,
                          12345678.9,
                          4.35,
                          1999.0 / 100};
  for (const double v : edges) same_as_to_chars(v);
}

TEST_CASE("double text: random doubles of every magnitude, and every kind the scenarios write",
          "[scenario][double_text]") {
  std::uint64_t state = 20261207;
  for (int i = 0; i < 20'000; ++i) {
    const std::uint64_t bits = next(state);
    const double any = std::bit_cast<double>(bits);
    if (any == any && any - any == 0) same_as_to_chars(any);  // finite
    // Rates, factors and seconds: a few digits, from 1e-9 to 1e7.
    const double scale[] = {1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6};
    same_as_to_chars(static_cast<double>(bits % 100'000) * scale[(bits >> 40) % 6]);
    // Whole numbers up to 2^63, where fixed writes every digit.
    same_as_to_chars(static_cast<double>(bits >> (bits % 64)));
  }
}

TEST_CASE("double text: read back as from_chars reads, and nothing it refuses", "[scenario][double_text]") {
  for (const char* text : {"0", "-0", "1.5", "1e3", "2.5e-07", "100", "-7.25", "1e400", "0.1"}) {
    INFO(text);
    double expected = 0;
    const std::string_view t(text);
    const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), expected);
    if (error != std::errc()) {
      CHECK(!twice::detail::parse_double_from_strtod(t).has_value());
      continue;
    }
    REQUIRE(twice::detail::parse_double_from_strtod(t).has_value());
    CHECK(*twice::detail::parse_double_from_strtod(t) == expected);
  }
  for (const char* refused : {"", "+1", " 1", "1 ", "0x10", "1.5s", "abc", "1e"})
    CHECK(!twice::detail::parse_double_from_strtod(refused).has_value());
}
