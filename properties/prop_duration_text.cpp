// Duration text properties: every non-negative duration survives a
// format/parse round trip, the canonical text is a fixed point, and parsing
// arbitrary input never crashes and never accepts a sign or a decimal point.

#include <rapidcheck/catch.h>

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "sim/duration_text.hpp"

using namespace twice::sim;

namespace {

constexpr std::int64_t k_max_us = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t k_ms = 1'000;
constexpr std::int64_t k_s = 1'000'000;
constexpr std::int64_t k_m = 60 * k_s;
constexpr std::int64_t k_h = 60 * k_m;
// Hours below this leave room for 59m59s999ms999us without passing int64.
constexpr std::int64_t k_hours_limit = k_max_us / k_h;

// Uniform values rarely land on the edges, and the edges are where
// overflow checks go wrong.
rc::Gen<std::int64_t> any_non_negative_us() {
  return rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, k_max_us),
                        rc::gen::element<std::int64_t>(0, 1, 999, 1'000, k_max_us - 1, k_max_us));
}

// Zero half the time, so canonical texts skip units in every combination.
rc::Gen<std::int64_t> component(std::int64_t limit) {
  return rc::gen::oneOf(rc::gen::just<std::int64_t>(0), rc::gen::inRange<std::int64_t>(0, limit));
}

struct components {
  std::int64_t h, m, s, ms, us;

  std::int64_t total_us() const { return h * k_h + m * k_m + s * k_s + ms * k_ms + us; }

  // The canonical text written independently of format_duration.
  std::string expected_text() const {
    std::string out;
    const auto group = [&out](std::int64_t n, const char* unit) {
      if (n != 0) out += std::to_string(n) + unit;
    };
    group(h, "h");
    group(m, "m");
    group(s, "s");
    group(ms, "ms");
    group(us, "us");
    return out.empty() ? "0s" : out;
  }
};

components any_components() {
  const std::int64_t hours = *rc::gen::oneOf(component(100), component(k_hours_limit));
  return {hours, *component(60), *component(60), *component(1'000), *component(1'000)};
}

// Valid but usually non-canonical text ("90s", "0h007ms"): any subset of
// units in order, counts that need not be carried into the next unit, and
// leading zeros. Counts stay small enough that the sum cannot overflow.
struct valid_text {
  std::string text;
  std::int64_t us = 0;
};

valid_text any_valid_text() {
  static constexpr std::pair<const char*, std::int64_t> units[] = {
      {"h", k_h}, {"m", k_m}, {"s", k_s}, {"ms", k_ms}, {"us", 1}};
  valid_text out;
  for (const auto& [name, size] : units) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    const std::int64_t count = *rc::gen::inRange<std::int64_t>(0, 100'000);
    out.text += std::string(*rc::gen::inRange<std::size_t>(0, 3), '0') + std::to_string(count) + name;
    out.us += count * size;
  }
  if (out.text.empty()) out.text = "0us";
  return out;
}

// Arbitrary bytes rarely parse; strings over the grammar's own alphabet
// reach the success path and the order/repeat checks often.
rc::Gen<std::string> duration_like_string() {
  return rc::gen::container<std::string>(rc::gen::element('0', '1', '5', '9', 'h', 'm', 's', 'u'));
}

void check_round_trip(std::int64_t us) {
  const duration d = duration::from_us(us);
  const std::string text = format_duration(d);
  const auto parsed = parse_duration(text);
  RC_ASSERT(parsed.ok());
  RC_ASSERT(parsed.value().us() == us);
}

void check_parse_is_total(const std::string& text) {
  const auto parsed = parse_duration(text);
  if (parsed.ok()) {
    RC_ASSERT(parsed.value().us() >= 0);
  } else {
    RC_ASSERT(!parsed.error().empty());
  }
}

}  // namespace

TEST_CASE("duration text properties", "[duration_text]") {
  rc::prop("format then parse returns any non-negative duration", [] { check_round_trip(*any_non_negative_us()); });

  rc::prop("format then parse returns durations built from h/m/s/ms/us", [] {
    const components c = any_components();
    const std::string text = format_duration(duration::from_us(c.total_us()));
    RC_ASSERT(text == c.expected_text());
    check_round_trip(c.total_us());
  });

  rc::prop("the canonical text is a fixed point", [] {
    const std::string canonical = format_duration(duration::from_us(*any_non_negative_us()));
    const auto parsed = parse_duration(canonical);
    RC_ASSERT(parsed.ok());
    RC_ASSERT(format_duration(parsed.value()) == canonical);
  });

  rc::prop("any valid text normalises to a fixed point", [] {
    const valid_text v = any_valid_text();
    const auto parsed = parse_duration(v.text);
    RC_ASSERT(parsed.ok());
    RC_ASSERT(parsed.value().us() == v.us);
    const std::string canonical = format_duration(parsed.value());
    const auto reparsed = parse_duration(canonical);
    RC_ASSERT(reparsed.ok());
    RC_ASSERT(reparsed.value().us() == v.us);
    RC_ASSERT(format_duration(reparsed.value()) == canonical);
  });

  rc::prop("parse never crashes on arbitrary strings", [] { check_parse_is_total(*rc::gen::string<std::string>()); });

  rc::prop("parse never crashes on duration-like strings", [] { check_parse_is_total(*duration_like_string()); });

  rc::prop("any text containing '-' or '.' is rejected", [] {
    std::string text = *rc::gen::oneOf(rc::gen::string<std::string>(), duration_like_string());
    const char bad = *rc::gen::element('-', '.');
    const auto at = *rc::gen::inRange<std::size_t>(0, text.size() + 1);
    text.insert(at, 1, bad);
    const auto parsed = parse_duration(text);
    RC_ASSERT(!parsed.ok());
    RC_ASSERT(!parsed.error().empty());
  });
}
