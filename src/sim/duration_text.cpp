#include "sim/duration_text.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "sim/quoted_text.hpp"

namespace twice::sim {
namespace {

struct unit_info {
  std::string_view name;
  std::int64_t us;
};

// Largest first: the grammar requires this order and format_duration emits it.
constexpr std::array<unit_info, 5> k_units{{
    {"h", 3'600'000'000},
    {"m", 60'000'000},
    {"s", 1'000'000},
    {"ms", 1'000},
    {"us", 1},
}};

constexpr std::string_view k_expected =
    "expected a duration such as \"250ms\", \"30s\", \"1m30s\" (units: h, m, s, ms, us)";

// Own ASCII predicates: <cctype> consults the C locale, and scenario files
// must parse the same everywhere.
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
std::string quoted(std::string_view text) { return quoted_text(text); }

result<duration> fail(std::string_view text, std::string_view problem) {
  std::string message = quoted(text);
  message += ": ";
  message += problem;
  message += "; ";
  message += k_expected;
  return result<duration>::failure(std::move(message));
}

bool contains_if(std::string_view text, bool (*pred)(char)) {
  for (const char c : text) {
    if (pred(c)) return true;
  }
  return false;
}

std::string too_large_problem() { return "too large; the longest duration is " + format_duration(duration::max()); }

// Whole-text problems are reported before group parsing so "-1.5s" explains
// the sign rather than some character position in the middle.
std::string text_problem(std::string_view text) {
  if (text.empty()) return "empty text";
  if (contains_if(text, is_space)) return "whitespace is not allowed";
  if (text.find('-') != std::string_view::npos) return "durations cannot be negative";
  if (text.find('.') != std::string_view::npos) {
    return "only whole numbers are allowed (write 1s500ms, not 1.5s)";
  }
  return {};
}

struct group {
  std::int64_t count = 0;
  std::size_t unit = 0;  // index into k_units
};

// A problem is a non-empty string; success leaves it empty. Keeping the
// problem separate from the quoting lets every error share one format.
struct group_read {
  group value;
  std::string problem;
};

group_read problem_at(std::string_view text, std::size_t pos) {
  if (is_letter(text[pos])) {
    return {{}, "a unit needs a number before it (at position " + std::to_string(pos) + ")"};
  }
  return {{}, "unexpected character " + quoted_char_at(text, pos) + " at position " + std::to_string(pos)};
}

group_read read_count(std::string_view text, std::size_t& pos) {
  group_read out;
  while (pos < text.size() && is_digit(text[pos])) {
    const std::int64_t digit = text[pos] - '0';
    if (__builtin_mul_overflow(out.value.count, 10, &out.value.count) ||
        __builtin_add_overflow(out.value.count, digit, &out.value.count)) {
      out.problem = too_large_problem();
      return out;
    }
    ++pos;
  }
  return out;
}

group_read read_unit(std::string_view text, std::size_t& pos, group_read in) {
  const std::size_t start = pos;
  while (pos < text.size() && is_letter(text[pos])) ++pos;
  const std::string_view name = text.substr(start, pos - start);
  if (name.empty()) {
    if (pos == text.size())
      in.problem = "missing unit";
    else
      in.problem = "unexpected character " + quoted_char_at(text, pos) + " at position " + std::to_string(pos);
    return in;
  }
  for (std::size_t i = 0; i < k_units.size(); ++i) {
    if (k_units[i].name == name) {
      in.value.unit = i;
      return in;
    }
  }
  in.problem = "unknown unit " + quoted(name);
  return in;
}

group_read read_group(std::string_view text, std::size_t& pos) {
  if (!is_digit(text[pos])) return problem_at(text, pos);
  group_read read = read_count(text, pos);
  if (!read.problem.empty()) return read;
  return read_unit(text, pos, std::move(read));
}

// Units must strictly decrease; `seen` tells a repeat from a wrong order so
// the message names the actual mistake.
std::string order_problem(std::size_t unit, std::size_t next_allowed, const std::array<bool, 5>& seen) {
  const std::string name = quoted(k_units[unit].name);
  if (seen[unit]) return "unit " + name + " appears more than once";
  if (unit < next_allowed) {
    return "unit " + name + " comes after a smaller unit; units go from largest (h) to smallest (us)";
  }
  return {};
}

}  // namespace

result<duration> parse_duration(std::string_view text) {
  if (const std::string problem = text_problem(text); !problem.empty()) return fail(text, problem);
  std::int64_t total = 0;
  std::size_t next_allowed = 0;
  std::array<bool, 5> seen{};
  std::size_t pos = 0;
  while (pos < text.size()) {
    const group_read read = read_group(text, pos);
    if (!read.problem.empty()) return fail(text, read.problem);
    const group g = read.value;
    if (const std::string problem = order_problem(g.unit, next_allowed, seen); !problem.empty()) {
      return fail(text, problem);
    }
    seen[g.unit] = true;
    next_allowed = g.unit + 1;
    std::int64_t part = 0;
    if (__builtin_mul_overflow(g.count, k_units[g.unit].us, &part) || __builtin_add_overflow(total, part, &total)) {
      return fail(text, too_large_problem());
    }
  }
  return result<duration>::success(duration::from_us(total));
}

std::string format_duration(duration d) {
  const std::int64_t us = d.us();
  // Magnitude in unsigned arithmetic: negating INT64_MIN would overflow.
  std::uint64_t rest = us < 0 ? 0 - static_cast<std::uint64_t>(us) : static_cast<std::uint64_t>(us);
  if (rest == 0) return "0s";
  std::string out = us < 0 ? "-" : "";
  for (const unit_info& unit : k_units) {
    const auto size = static_cast<std::uint64_t>(unit.us);
    const std::uint64_t count = rest / size;
    rest %= size;
    if (count == 0) continue;
    out += std::to_string(count);
    out += unit.name;
  }
  return out;
}

std::string format_clock(duration d, int digits, bool trim) {
  digits = digits < 0 ? 0 : digits > 6 ? 6 : digits;
  const std::int64_t us = d.us();
  // Magnitude in unsigned arithmetic, as format_duration.
  const std::uint64_t m = us < 0 ? 0 - static_cast<std::uint64_t>(us) : static_cast<std::uint64_t>(us);
  const auto hour = static_cast<std::uint64_t>(k_units[0].us), minute = static_cast<std::uint64_t>(k_units[1].us),
             second = static_cast<std::uint64_t>(k_units[2].us);
  std::string fraction = std::to_string(m % second + second).substr(1, static_cast<std::size_t>(digits));
  if (trim)
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  std::string out = us < 0 ? "-" : "";
  if (m >= hour) {
    out += std::to_string(m / hour) + "h " + std::to_string(m % hour / minute) + "m " +
           std::to_string(m % minute / second);
  } else {
    out += std::to_string(m / second);
  }
  if (!fraction.empty()) out += "." + fraction;
  return out + "s";
}

}  // namespace twice::sim
