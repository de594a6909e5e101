// Sizes as the memory budget is written: "512MiB", "1GiB".

#include <catch2/catch.hpp>

#include <cstdint>

#include "sim/byte_size_text.hpp"

using namespace twice::sim;

TEST_CASE("sizes parse in powers of 1024", "[byte_size]") {
  CHECK(parse_byte_size("0B").value() == 0);
  CHECK(parse_byte_size("1B").value() == 1);
  CHECK(parse_byte_size("1KiB").value() == 1024);
  CHECK(parse_byte_size("512MiB").value() == std::uint64_t{512} << 20);
  CHECK(parse_byte_size("1GiB").value() == std::uint64_t{1} << 30);
  CHECK(parse_byte_size("3TiB").value() == std::uint64_t{3} << 40);
  CHECK(parse_byte_size("1536MiB").value() == std::uint64_t{1536} << 20);
}

TEST_CASE("a size that is not one says what was expected", "[byte_size]") {
  const std::string expected = "expected digits and a unit, B, KiB, MiB, GiB or TiB (like \"512MiB\")";
  for (const char* text : {"", "MiB", "12", "1GB", "1 GiB", "1.5GiB", "-1GiB", "1gib", "1GiBs"}) {
    INFO(text);
    const auto r = parse_byte_size(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == "\"" + std::string(text) + "\" is not a size: " + expected);
  }
  CHECK(parse_byte_size("18446744073709551616B").error() == "\"18446744073709551616B\" is too large a size");
  CHECK(parse_byte_size("16777216TiB").error() == "\"16777216TiB\" is too large a size");
  CHECK(parse_byte_size("16777215TiB").ok());
}

TEST_CASE("a size is written in the largest unit that divides it, and reads back", "[byte_size]") {
  CHECK(format_byte_size(0) == "0B");
  CHECK(format_byte_size(1023) == "1023B");
  CHECK(format_byte_size(1024) == "1KiB");
  CHECK(format_byte_size(std::uint64_t{1536} << 20) == "1536MiB");
  CHECK(format_byte_size(std::uint64_t{1} << 30) == "1GiB");
  for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{4096},
                                (std::uint64_t{5} << 30) + 1, std::uint64_t{7} << 40, UINT64_MAX})
    CHECK(parse_byte_size(format_byte_size(n)).value() == n);
}

TEST_CASE("a size is described for people in tenths, rounded down", "[byte_size]") {
  CHECK(describe_byte_size(0) == "0 B");
  CHECK(describe_byte_size(1023) == "1023 B");
  CHECK(describe_byte_size(1536) == "1.5 KiB");
  CHECK(describe_byte_size((std::uint64_t{95} << 20) + (std::uint64_t{1} << 19)) == "95.5 MiB");
  CHECK(describe_byte_size((std::uint64_t{2} << 30) - 1) == "1.9 GiB");
}
