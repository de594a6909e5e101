#include "report/html_format.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "report/markup_escape.hpp"
#include "sim/duration_text.hpp"

namespace twice::html_detail {

// ---- text ---------------------------------------------------------------------

std::string esc(std::string_view text) { return escape_markup(text, markup::html); }

std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += c;
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else
      out += '-';
  }
  return out;
}

namespace {
// |v| in unsigned arithmetic: -INT64_MIN is not an int64 (negating it is
// undefined behaviour), but its magnitude is a uint64.
std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}
}  // namespace

std::string secs(std::int64_t us) { return sim::format_clock(sim::duration::from_us(us)); }
std::string secs(sim::instant t) { return secs(t.us()); }

std::string short_secs(std::int64_t us) { return sim::format_clock(sim::duration::from_us(us), 6, true); }

std::string cents(std::int64_t amount) { return fmt::format("{} cents", amount); }

std::string key_text(const std::string& key) { return key.empty() ? "(none)" : key; }

// ---- geometry -----------------------------------------------------------------

std::string px(std::int64_t tenths) {
  const char* sign = tenths < 0 ? "-" : "";
  const std::uint64_t m = magnitude(tenths);
  if (m % 10 == 0) return fmt::format("{}{}", sign, m / 10);
  return fmt::format("{}{}.{}", sign, m / 10, m % 10);
}

std::int64_t axis::at(std::int64_t v) const {
  std::int64_t num = std::clamp<std::int64_t>(v, 0, span), den = span;
  const std::int64_t scale = length < 0 ? -length : length;
  // Runs of years in microseconds times a few thousand tenths still fit;
  // beyond, give up precision the page cannot show anyway.
  while (den > std::numeric_limits<std::int64_t>::max() / (scale + 1)) {
    num /= 2;
    den /= 2;
  }
  return from + num * length / std::max<std::int64_t>(den, 1);
}

std::int64_t nice_step(std::int64_t span, std::int64_t most) {
  std::int64_t base = 1;
  while (true) {
    for (std::int64_t m : {1, 2, 5})
      if (span / (base * m) <= most) return base * m;
    base *= 10;
  }
}

// ---- the page -----------------------------------------------------------------

void html_lines::line(const std::string& text) {
  out_ += text;
  out_ += '\n';
}

}  // namespace twice::html_detail
