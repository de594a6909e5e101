#pragma once
// What every part of the HTML report writes with: escaped text, times,
// amounts, coordinates, the page's layout, and the page itself a line at a
// time. For the report's HTML pages: report/html_*.cpp, report/line_chart.cpp
// and the sweep's page (cli/sweep_page.cpp).

#include <cstdint>
#include <string>
#include <string_view>

#include <twice/sim/time.hpp>

namespace twice::html_detail {

// ---- text ---------------------------------------------------------------------

// Text and attribute values alike: nothing in a run's data can open a tag,
// end an attribute or start an entity.
std::string esc(std::string_view text);
// For class names and ids: [a-z0-9-] only.
std::string slug(std::string_view text);
// "-1.250000s"; from an hour on "1h 0m 5.000000s" (sim::format_clock).
std::string secs(std::int64_t us);
std::string secs(sim::instant t);
// An axis label: "0s", "2.5s", "0.005s", "1h 0m 5s".
std::string short_secs(std::int64_t us);
// "1999 cents", as the CLI prints amounts.
std::string cents(std::int64_t amount);
// The key, or "(none)" when there is none.
std::string key_text(const std::string& key);

// ---- geometry -----------------------------------------------------------------
// Coordinates are integers in tenths of a pixel, printed as decimals: no
// floating point, so the bytes are the same everywhere.

std::string px(std::int64_t tenths);

// Maps [0, span] onto [from, from + length] tenths of a pixel.
struct axis {
  std::int64_t from = 0, length = 0, span = 1;
  std::int64_t at(std::int64_t v) const;
};

// 1, 2, 5 x 10^k: the smallest step giving at most `most` intervals.
std::int64_t nice_step(std::int64_t span, std::int64_t most);

// ---- the page -----------------------------------------------------------------

inline constexpr std::int64_t page_width = 12000;  // tenths of a pixel
// The plot area, shared by the timeline and the wide charts under it.
inline constexpr std::int64_t plot_left = 1400;
inline constexpr std::int64_t plot_right = 11700;

// The page as it is written, one line at a time.
class html_lines {
 public:
  explicit html_lines(std::string& out) : out_(out) {}
  void line(const std::string& text);

 private:
  std::string& out_;
};

}  // namespace twice::html_detail
