// report/html_format.hpp: the page's numbers, written out for every int64,
// the extremes included (a budget-ended run can carry any instant).

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "report/html_format.hpp"

using namespace twice::html_detail;

TEST_CASE("times, amounts and coordinates print their sign once, INT64_MIN included", "[report][html]") {
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  // From an hour on, hours and minutes too (sim::format_clock).
  CHECK(secs(lowest) == "-2562047788h 0m 54.775808s");
  CHECK(secs(highest) == "2562047788h 0m 54.775807s");
  CHECK(secs(std::int64_t{3'605'000'000}) == "1h 0m 5.000000s");
  CHECK(short_secs(std::int64_t{3'605'000'000}) == "1h 0m 5s");
  CHECK(secs(std::int64_t{-1}) == "-0.000001s");
  CHECK(cents(lowest) == "-9223372036854775808 cents");
  CHECK(cents(std::int64_t{-5}) == "-5 cents");
  CHECK(px(lowest) == "-922337203685477580.8");
  CHECK(px(std::int64_t{-30}) == "-3");
  CHECK(px(std::int64_t{25}) == "2.5");
}
