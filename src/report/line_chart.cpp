#include "report/line_chart.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "report/html_format.hpp"
#include "report/text_width.hpp"
#include <twice/sim/fp_math.hpp>

namespace twice::chart {

using html_detail::esc;
using html_detail::px;
using html_detail::text_width;
using html_detail::wrapped_to;

namespace {

// The chart's frame, in tenths of a pixel: the plot's left edge, its top and
// its bottom move with the titles' lines and the tick labels' width.
constexpr std::int64_t width = 5800;
constexpr std::int64_t left_least = 800;
constexpr std::int64_t right = 5600;
constexpr std::int64_t plot_height = 2400;
constexpr std::int64_t legend_row = 220;
constexpr std::int64_t font = 12;            // px: svg.chart's text
constexpr std::int64_t title_font = 13;      // px, bold: .chart-title
constexpr std::int64_t title_line = 170;     // between two lines of the chart's title
constexpr std::int64_t label_line = 150;     // between two lines of an axis title
constexpr std::int64_t y_title_first = 160;  // the y title's first line (rotated: its glyphs reach 11 px left, 3 right)

// Eight colours that are not red, then the same with dashes.
constexpr std::string_view colours[] = {"#1f6fb4", "#e07b00", "#2a9d3a", "#7b4fb0",
                                        "#8c5a3c", "#0f9bab", "#6b6b6b", "#a3a21a"};
constexpr std::string_view dashes[] = {"", "6 3", "2 3", "8 3 2 3"};
constexpr std::string_view violation_colour = "#c81e1e";

std::int64_t tenths(double v) { return static_cast<std::int64_t>(std::llround(v)); }

double pow10(int k) {
  double p = 1;
  for (; k > 0; --k) p *= 10;
  for (; k < 0; ++k) p /= 10;
  return p;
}

// The exponent of the largest power of ten at or below v (v > 0).
int decade_below(double v) {
  int k = 0;
  while (pow10(k + 1) <= v) ++k;
  while (pow10(k) > v) --k;
  return k;
}

std::string number(double v) {
  if (v == 0) return "0";
  return fmt::format("{:g}", v);
}

// One axis's mapping from values onto [from, to] tenths (to < from for y).
struct scale {
  bool log = false;
  double lo = 0, hi = 1;
  std::int64_t from = 0, to = 0;
  std::int64_t at(double v) const {
    double f;
    if (log) {
      const double l = sim::fp_math::log(std::max(v, lo));
      f = (l - sim::fp_math::log(lo)) / (sim::fp_math::log(hi) - sim::fp_math::log(lo));
    } else {
      f = (v - lo) / (hi - lo);
    }
    f = std::clamp(f, 0.0, 1.0);
    return from + tenths(f * static_cast<double>(to - from));
  }
};

struct y_axis {
  scale s;
  std::vector<double> ticks;
};

// An interval's lower end: not below zero for a quantity that cannot be.
double low_of(const line_chart& c, const point& p) {
  const double low = p.y - p.err;
  return c.non_negative && low < 0 ? 0.0 : low;
}

y_axis make_y(const line_chart& c, std::int64_t from, std::int64_t to) {
  double lo = 0, hi = 0, lowest_positive = 0;
  bool any = false;
  for (const line& l : c.lines)
    for (const point& p : l.points) {
      const double a = low_of(c, p), b = p.y + p.err;
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, b) : b;
      for (const double v : {p.y, a})
        if (v > 0 && (lowest_positive == 0 || v < lowest_positive)) lowest_positive = v;
      any = true;
    }
  y_axis y;
  y.s.from = from;
  y.s.to = to;
  if (c.log_y && lowest_positive > 0) {
    y.s.log = true;
    const int k0 = decade_below(lowest_positive);
    int k1 = decade_below(hi);
    if (pow10(k1) < hi) ++k1;
    if (k1 == k0) ++k1;
    y.s.lo = pow10(k0);
    y.s.hi = pow10(k1);
    for (int k = k0; k <= k1; ++k) {
      y.ticks.push_back(pow10(k));
      // Few decades: 2 and 5 times each too, so the axis has enough marks.
      if (k1 - k0 <= 2 && k < k1)
        for (const double m : {2.0, 5.0}) y.ticks.push_back(m * pow10(k));
    }
    std::sort(y.ticks.begin(), y.ticks.end());
    return y;
  }
  lo = std::min(lo, 0.0);  // a linear axis starts at zero: heights compare honestly
  if (hi <= lo) hi = lo + 1;
  // 1, 2, 5 x 10^k: the smallest step giving at most five intervals.
  double step = pow10(decade_below((hi - lo) / 5));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if ((hi - lo) / (m * step) <= 5) {
      step *= m;
      break;
    }
  y.s.lo = std::floor(lo / step) * step;
  y.s.hi = std::ceil(hi / step) * step;
  for (double v = y.s.lo; v <= y.s.hi + step / 2; v += step) y.ticks.push_back(std::abs(v) < step / 1e6 ? 0.0 : v);
  return y;
}

// The x positions: the values the lines have (a sweep's grid), or the
// categories evenly spaced.
struct x_axis {
  scale s;
  bool categorical = false;
  std::size_t categories = 0;
  std::vector<double> ticks;
  std::int64_t at(double v) const {
    if (!categorical) return s.at(v);
    const double f = (v + 0.5) / static_cast<double>(categories);
    return s.from + tenths(f * static_cast<double>(s.to - s.from));
  }
};

x_axis make_x(const line_chart& c, std::int64_t left) {
  x_axis x;
  x.s.from = left + 200;
  x.s.to = right - 200;
  if (!c.x_categories.empty()) {
    x.categorical = true;
    x.categories = c.x_categories.size();
    for (std::size_t i = 0; i < x.categories; ++i) x.ticks.push_back(static_cast<double>(i));
    return x;
  }
  for (const line& l : c.lines)
    for (const point& p : l.points) x.ticks.push_back(p.x);
  std::sort(x.ticks.begin(), x.ticks.end());
  x.ticks.erase(std::unique(x.ticks.begin(), x.ticks.end()), x.ticks.end());
  if (x.ticks.empty()) x.ticks.push_back(0);
  x.s.log = c.log_x && x.ticks.front() > 0;
  x.s.lo = x.ticks.front();
  x.s.hi = x.ticks.back() > x.ticks.front() ? x.ticks.back() : x.ticks.front() + 1;
  return x;
}

std::string tick_text(const line_chart& c, const x_axis& x, double v) {
  if (!x.categorical) return number(v);
  return c.x_categories[static_cast<std::size_t>(v)];
}

// A legend item's width: a swatch, its text and a gap.
std::int64_t item_width(std::string_view text) { return 400 + text_width(text, font); }

}  // namespace

bool log_scale_helps(const std::vector<double>& values, double ratio) {
  if (values.empty()) return false;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 && *hi / *lo >= ratio;
}

std::string line_chart_svg(const line_chart& c) {
  // The y axis's ticks and title first: the left margin makes room for them.
  const y_axis ticks_only = make_y(c, 0, 0);
  std::int64_t widest_tick = 0;
  for (const double t : ticks_only.ticks) widest_tick = std::max(widest_tick, text_width(number(t), font));
  const std::vector<std::string> y_title =
      wrapped_to(c.y_label + (ticks_only.s.log ? " (log scale)" : ""), plot_height, font);
  const std::int64_t y_title_last = y_title_first + static_cast<std::int64_t>(y_title.size() - 1) * label_line;
  const std::int64_t left = std::max(left_least, y_title_last + 30 + 60 + 60 + widest_tick);
  const std::vector<std::string> title = wrapped_to(c.title, width - left - 100, title_font, true);
  const std::int64_t top = 500 + static_cast<std::int64_t>(title.size() - 1) * title_line;
  const std::int64_t bottom = top + plot_height;
  const x_axis x = make_x(c, left);
  const y_axis y = make_y(c, bottom, top);
  const std::vector<std::string> x_title =
      wrapped_to(c.x_label + (x.s.log && !x.categorical ? " (log scale)" : ""), right - left, font);
  const std::int64_t legend_top = bottom + 400 + static_cast<std::int64_t>(x_title.size() - 1) * label_line + 350;
  bool any_violation = false;
  for (const line& l : c.lines)
    for (const point& p : l.points) any_violation = any_violation || p.violated;

  // The legend's rows, laid out first: the chart's height depends on them.
  struct item {
    std::string text;
    std::size_t line;  // index into c.lines, or lines.size() for the violation mark
    std::int64_t x, y;
  };
  std::vector<item> items;
  std::int64_t ix = left, iy = legend_top;
  auto place = [&](std::string text, std::size_t index) {
    const std::int64_t w = item_width(text);
    if (ix + w > width && ix > left) {
      ix = left;
      iy += legend_row;
    }
    items.push_back({std::move(text), index, ix, iy});
    ix += w;
  };
  for (std::size_t i = 0; i < c.lines.size(); ++i) place(c.lines[i].name, i);
  if (any_violation) place("a seed broke an invariant", c.lines.size());
  const std::int64_t height = iy + legend_row;

  std::string out = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      px(width), px(height), px(width), px(height), esc(c.title));
  for (std::size_t i = 0; i < title.size(); ++i)
    out += fmt::format("<text class=\"chart-title\" x=\"{}\" y=\"{}\">{}</text>\n", px(left),
                       px(250 + static_cast<std::int64_t>(i) * title_line), esc(title[i]));
  // Grid and y ticks.
  for (const double t : y.ticks) {
    const std::int64_t ty = y.s.at(t);
    out += fmt::format("<line class=\"chart-grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", px(left), px(ty),
                       px(right), px(ty));
    out += fmt::format("<text class=\"chart-tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", px(left - 60),
                       px(ty + 40), esc(number(t)));
  }
  // The x ticks: a mark at every grid value, and a label where it does not
  // run into the one before (about 7 px a character).
  std::int64_t labelled_up_to = 0;
  for (const double t : x.ticks) {
    const std::int64_t tx = x.at(t);
    out += fmt::format("<line class=\"chart-axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", px(tx), px(bottom),
                       px(tx), px(bottom + 60));
    const std::string label = tick_text(c, x, t);
    const std::int64_t half = text_width(label, font) / 2;
    if (tx - half < labelled_up_to + 60) continue;
    labelled_up_to = tx + half;
    out += fmt::format("<text class=\"chart-tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(tx),
                       px(bottom + 200), esc(label));
  }
  out += fmt::format("<line class=\"chart-axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", px(left), px(bottom),
                     px(right), px(bottom));
  for (std::size_t i = 0; i < x_title.size(); ++i)
    out += fmt::format("<text class=\"chart-label x-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       px((left + right) / 2), px(bottom + 400 + static_cast<std::int64_t>(i) * label_line),
                       esc(x_title[i]));
  for (std::size_t i = 0; i < y_title.size(); ++i) {
    const std::int64_t tx = y_title_first + static_cast<std::int64_t>(i) * label_line, ty = (top + bottom) / 2;
    out += fmt::format(
        "<text class=\"chart-label y-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 {} {})\">{}</text>\n",
        px(tx), px(ty), px(tx), px(ty), esc(y_title[i]));
  }

  // The lines, their intervals and points; then the violation rings on top.
  for (std::size_t i = 0; i < c.lines.size(); ++i) {
    const line& l = c.lines[i];
    const std::string_view colour = colours[i % std::size(colours)];
    const std::string_view dash = dashes[(i / std::size(colours)) % std::size(dashes)];
    out += fmt::format("<g class=\"chart-line\" data-line=\"{}\">", esc(l.name));
    std::string path;
    for (const point& p : l.points)
      path += fmt::format("{}{},{}", path.empty() ? "" : " ", px(x.at(p.x)), px(y.s.at(p.y)));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>", path, colour,
                       dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash));
    for (const point& p : l.points) {
      const std::int64_t px_ = x.at(p.x), py = y.s.at(p.y);
      const double low = low_of(c, p), high = p.y + p.err;
      if (p.err > 0) {
        const std::int64_t a = y.s.at(low), b = y.s.at(high);
        out += fmt::format(
            "<path class=\"chart-err\" data-low=\"{}\" data-high=\"{}\" d=\"M{} {}V{}M{} {}h8M{} "
            "{}h8\" stroke=\"{}\"/>",
            number(low), number(high), px(px_), px(a), px(b), px(px_ - 40), px(a), px(px_ - 40), px(b), colour);
      }
      out += fmt::format(
          "<circle class=\"chart-point\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}: {}, {}{}</title></circle>",
          px(px_), px(py), colour, esc(l.name), esc(tick_text(c, x, p.x)), number(p.y),
          p.err > 0 ? fmt::format(" ±{} (from {} to {})", number(p.err), number(low), number(high)) : std::string());
    }
    out += "</g>\n";
  }
  for (const line& l : c.lines)
    for (const point& p : l.points)
      if (p.violated)
        out += fmt::format(
            "<circle class=\"chart-violation\" cx=\"{}\" cy=\"{}\" r=\"6.5\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"2.5\"/>\n",
            px(x.at(p.x)), px(y.s.at(p.y)), violation_colour);

  out += "<g class=\"chart-legend\">";
  for (const item& it : items) {
    if (it.line == c.lines.size()) {
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5.5\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"/>",
                         px(it.x + 120), px(it.y - 40), violation_colour);
    } else {
      const std::string_view colour = colours[it.line % std::size(colours)];
      const std::string_view dash = dashes[(it.line / std::size(colours)) % std::size(dashes)];
      out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>", px(it.x),
                         px(it.y - 40), px(it.x + 240), px(it.y - 40), colour,
                         dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash));
      out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", px(it.x + 120), px(it.y - 40), colour);
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>", px(it.x + 300), px(it.y), esc(it.text));
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace twice::chart
