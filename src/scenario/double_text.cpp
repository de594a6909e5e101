#include "scenario/double_text.hpp"

#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace twice {

namespace {

// A finite double's shortest round-trip digits and where the point goes:
// value = 0.digits x 10^point, digits without leading or trailing zeros
// (empty for zero).
struct decimal {
  bool negative = false;
  std::string digits;
  int point = 0;
};

decimal shortest_decimal(double v) {
  // fmt's "{}" is the shortest round-trip text, in fixed or exponent form.
  const std::string text = fmt::format("{}", v);
  decimal d;
  std::size_t i = 0;
  if (text[i] == '-') {
    d.negative = true;
    ++i;
  }
  int exponent = 0;
  int digits_before_point = 0;
  bool after_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      after_point = true;
    } else if (c == 'e') {
      exponent = std::stoi(text.substr(i + 1));
      break;
    } else {
      d.digits += c;
      if (!after_point) ++digits_before_point;
    }
  }
  std::size_t leading = 0;
  while (leading < d.digits.size() && d.digits[leading] == '0') ++leading;
  d.digits.erase(0, leading);
  while (!d.digits.empty() && d.digits.back() == '0') d.digits.pop_back();
  d.point = digits_before_point - static_cast<int>(leading) + exponent;
  return d;
}

std::string scientific(const decimal& d) {
  std::string out = d.negative ? "-" : "";
  if (d.digits.empty()) return out + "0e+00";
  out += d.digits[0];
  if (d.digits.size() > 1) out += "." + d.digits.substr(1);
  const int e = d.point - 1;
  out += e < 0 ? "e-" : "e+";
  const std::string magnitude = std::to_string(e < 0 ? -e : e);
  if (magnitude.size() < 2) out += '0';
  return out + magnitude;
}

std::string fixed(double v, const decimal& d) {
  // An integer is written whole: of the texts of its length that read back
  // as it, to_chars picks the one nearest the value, itself (1e23 is
  // "99999999999999991611392").
  if (v == std::trunc(v)) return fmt::format("{:.0f}", v);
  std::string out = d.negative ? "-" : "";
  if (d.point <= 0) return out + "0." + std::string(static_cast<std::size_t>(-d.point), '0') + d.digits;
  const auto whole = static_cast<std::size_t>(d.point);
  return out + d.digits.substr(0, whole) + "." + d.digits.substr(whole);
}

}  // namespace

namespace detail {

std::string shortest_text_from_fmt(double v) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  const decimal d = shortest_decimal(v);
  const std::string f = fixed(v, d);
  const std::string s = scientific(d);
  return s.size() < f.size() ? s : f;
}

std::string shortest_fixed_text_from_fmt(double v) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  return fixed(v, shortest_decimal(v));
}

std::optional<double> parse_double_from_strtod(std::string_view text) {
  // strtod also takes what from_chars refuses: leading space or '+', and
  // hexadecimal ("0x1p3"); and it needs a terminated string.
  if (text.empty() || text[0] == '+' || text[0] == ' ' || text[0] == '\t' || text[0] == '\n') return std::nullopt;
  const std::string s(text);
  if (s.find_first_of("xX") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE) return std::nullopt;  // from_chars: out of range
  return v;
}

}  // namespace detail

#if defined(__cpp_lib_to_chars)
namespace {
template <class... Format>
std::string to_chars_text(double v, Format... format) {
  char buffer[400];  // the longest fixed text of a double, -DBL_MAX, has 310 characters
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, v, format...);
  return error == std::errc() ? std::string(buffer, end) : std::string("?");
}
}  // namespace

std::string shortest_text(double v) { return to_chars_text(v); }
std::string shortest_fixed_text(double v) { return to_chars_text(v, std::chars_format::fixed); }
std::optional<double> parse_double(std::string_view text) {
  double v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}
#else
std::string shortest_text(double v) { return detail::shortest_text_from_fmt(v); }
std::string shortest_fixed_text(double v) { return detail::shortest_fixed_text_from_fmt(v); }
std::optional<double> parse_double(std::string_view text) { return detail::parse_double_from_strtod(text); }
#endif

}  // namespace twice
