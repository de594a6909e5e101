#include "cli/sweep_page.hpp"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "report/html_format.hpp"
#include "report/line_chart.hpp"
#include "scenario/double_text.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"

namespace twice::cli {
namespace {

using explore::sweep_cell;
using explore::sweep_result;
using html_detail::esc;

constexpr std::string_view style = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d232b; margin: 24px 32px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d8dde3; padding-bottom: 4px; }
.meta { color: #5b6673; font-size: 13px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 24px; }
svg.chart { display: block; font: 12px system-ui, sans-serif; }
svg.chart text { fill: #1d232b; }
.chart-title { font-weight: 600; font-size: 13px; }
.chart-grid { stroke: #e6e9ee; }
.chart-axis { stroke: #8a94a0; }
.chart-err { stroke-width: 1.2; fill: none; }
table { border-collapse: collapse; font-size: 13px; margin-top: 6px; }
th, td { border-bottom: 1px solid #e3e7ec; padding: 3px 10px; text-align: right; }
th { background: #f6f8fa; }
td.key, th.key { text-align: left; }
td.violated { color: #c81e1e; font-weight: 600; text-align: left; }
td.unjudged { color: #8a5a00; font-weight: 600; text-align: left; }
td.none { color: #5b6673; text-align: left; }
)css";

// A grid value as a number: a plain number, or a duration in seconds.
std::optional<double> numeric(const std::string& text, bool& duration) {
  if (const std::optional<double> v = parse_double(text)) {
    duration = false;
    return v;
  }
  const auto d = sim::parse_duration(text);
  if (!d.ok()) return std::nullopt;
  duration = true;
  return static_cast<double>(d.value().us()) / 1e6;
}

struct metric {
  std::string title;
  std::string y_label;
  std::function<double(const sweep_cell&)> value;
  std::function<double(const sweep_cell&)> err;
};

std::vector<metric> metrics_of(const sweep_result& r) {
  std::vector<metric> all = {
      {"Makespan", "seconds, mean ±95%", [](const sweep_cell& c) { return c.makespan_us.mean / 1e6; },
       [](const sweep_cell& c) { return c.makespan_us.ci95 / 1e6; }},
      {"Tool calls per job", "calls per job, mean ±95%",
       [](const sweep_cell& c) { return c.calls_per_job_milli.mean / 1e3; },
       [](const sweep_cell& c) { return c.calls_per_job_milli.ci95 / 1e3; }},
      {"Dead letters per run", "jobs", [](const sweep_cell& c) { return c.dead_letters; }, nullptr},
      {"Job time, p99 (send to end)", "seconds",
       [](const sweep_cell& c) { return static_cast<double>(c.job_time_us.p99) / 1e6; }, nullptr},
      {"Retries per run", "attempts beyond each job's first", [](const sweep_cell& c) { return c.retries; }, nullptr},
  };
  std::vector<metric> out;
  for (metric& m : all) {
    bool any = false;
    for (const sweep_cell& c : r.cells) any = any || m.value(c) != 0;
    // Makespan and calls always; the rest only where some cell has any.
    if (any || out.size() < 2) out.push_back(std::move(m));
  }
  return out;
}

struct layout {
  std::size_t x = 0;                 // the axis along x
  std::optional<std::size_t> lines;  // the axis whose values are the lines
  std::vector<std::size_t> panels;   // the rest: a set of charts per combination
  bool numeric_x = false;
  bool duration_x = false;
  std::vector<double> x_values;  // numeric_x: per value of the x axis
};

layout layout_of(const sweep_result& r) {
  layout l;
  l.x = r.axes.size() - 1;
  for (std::size_t a = r.axes.size(); a-- > 0;) {
    std::vector<double> values;
    bool duration = false, ok = true;
    for (const auto& v : r.axes[a].values) {
      bool d = false;
      const std::optional<double> n = numeric(explore::value_text(v), d);
      if (!n || (!values.empty() && d != duration)) {
        ok = false;
        break;
      }
      duration = d;
      values.push_back(*n);
    }
    if (ok) {
      l.x = a;
      l.numeric_x = true;
      l.duration_x = duration;
      l.x_values = std::move(values);
      break;
    }
  }
  for (std::size_t a = 0; a < r.axes.size(); ++a) {
    if (a == l.x) continue;
    if (!l.lines)
      l.lines = a;
    else
      l.panels.push_back(a);
  }
  return l;
}

const sweep_cell* find_cell(const sweep_result& r, const std::vector<std::string>& values) {
  for (const sweep_cell& c : r.cells)
    if (c.values == values) return &c;
  return nullptr;
}

std::string chart_of(const sweep_result& r, const layout& l, const metric& m, std::vector<std::string> values) {
  chart::line_chart ch;
  ch.title = m.title;
  ch.y_label = m.y_label;
  ch.x_label = r.axes[l.x].path + (l.duration_x ? " (s)" : "");
  const auto& xs = r.axes[l.x].values;
  if (!l.numeric_x)
    for (const auto& v : xs) ch.x_categories.push_back(explore::value_text(v));
  const std::size_t line_count = l.lines ? r.axes[*l.lines].values.size() : 1;
  std::vector<double> ys;
  for (std::size_t li = 0; li < line_count; ++li) {
    chart::line line;
    if (l.lines) {
      values[*l.lines] = explore::value_text(r.axes[*l.lines].values[li]);
      line.name = values[*l.lines];
    } else {
      line.name = r.axes[l.x].path;
    }
    for (std::size_t xi = 0; xi < xs.size(); ++xi) {
      values[l.x] = explore::value_text(xs[xi]);
      const sweep_cell* c = find_cell(r, values);
      if (c == nullptr) continue;
      chart::point p;
      p.x = l.numeric_x ? l.x_values[xi] : static_cast<double>(xi);
      p.y = m.value(*c);
      p.err = m.err ? m.err(*c) : 0;
      p.violated = !c->violated.empty();
      ys.push_back(p.y);
      line.points.push_back(p);
    }
    std::sort(line.points.begin(), line.points.end(),
              [](const chart::point& a, const chart::point& b) { return a.x < b.x; });
    ch.lines.push_back(std::move(line));
  }
  ch.log_y = chart::log_scale_helps(ys);
  // Times, calls, dead letters and retries: none is ever below zero, so
  // neither is an interval around them (a mean of few seeds can have a
  // wide one).
  ch.non_negative = true;
  ch.log_x = l.numeric_x && chart::log_scale_helps(l.x_values, 100);
  return chart::line_chart_svg(ch);
}

std::string table_of(const sweep_result& r) {
  std::string out = "<table>\n<tr>";
  for (const auto& a : r.axes) out += "<th class=\"key\">" + esc(a.path) + "</th>";
  out +=
      "<th>makespan (s)</th><th>±95%</th><th>job p50 (s)</th><th>job p99 (s)</th><th>calls/job</th><th>±95%</th>"
      "<th>retries</th><th>dead letters</th><th class=\"key\">violations (seeds)</th></tr>\n";
  for (const sweep_cell& c : r.cells) {
    out += "<tr>";
    for (const std::string& v : c.values) out += "<td class=\"key\">" + esc(v) + "</td>";
    out += fmt::format(
        "<td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td>"
        "<td>{:.2f}</td><td>{:.2f}</td>",
        c.makespan_us.mean / 1e6, c.makespan_us.ci95 / 1e6, static_cast<double>(c.job_time_us.p50) / 1e6,
        static_cast<double>(c.job_time_us.p99) / 1e6, c.calls_per_job_milli.mean / 1e3,
        c.calls_per_job_milli.ci95 / 1e3, c.retries, c.dead_letters);
    out += c.violated.empty() && c.unjudged.empty() ? "<td class=\"none\">none</td>"
           : c.violated.empty()                     ? "<td class=\"unjudged\">" + esc(verdicts_text(c)) + "</td>"
                                                    : "<td class=\"violated\">" + esc(verdicts_text(c)) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string sweep_page_html(const sweep_result& r, const std::string& path, const std::string& name) {
  std::string keys;
  for (const auto& a : r.axes) keys += (keys.empty() ? "" : ", ") + a.path;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>twice sweep: " + esc(name) +
      "</title>\n<style>" + std::string(style) + "</style>\n</head>\n<body>\n";
  out += "<h1>Sweep: " + esc(name) + "</h1>\n";
  const std::string grid = r.axes.empty() ? "the file as written, " + sim::counted(r.seeds, "seed")
                                          : fmt::format("{} ({}), {} each", sim::counted(r.cells.size(), "cell"),
                                                        esc(keys), sim::counted(r.seeds, "seed"));
  out += fmt::format("<p class=\"meta\">twice sweep {}: {} (root seed {}).</p>\n", esc(path), grid, r.root_seed);
  if (!r.axes.empty() && !r.cells.empty()) {
    const layout l = layout_of(r);
    const std::vector<metric> metrics = metrics_of(r);
    // One set of charts per combination of the panel axes' values, in grid order.
    std::vector<std::size_t> at(l.panels.size(), 0);
    while (true) {
      std::vector<std::string> values(r.axes.size());
      std::string heading;
      for (std::size_t p = 0; p < l.panels.size(); ++p) {
        values[l.panels[p]] = explore::value_text(r.axes[l.panels[p]].values[at[p]]);
        heading += (heading.empty() ? "" : ", ") + r.axes[l.panels[p]].path + " = " + values[l.panels[p]];
      }
      if (!heading.empty()) out += "<h2>" + esc(heading) + "</h2>\n";
      out += "<div class=\"charts\">\n";
      for (const metric& m : metrics) out += chart_of(r, l, m, values);
      out += "</div>\n";
      std::size_t p = l.panels.size();
      while (p > 0 && ++at[p - 1] == r.axes[l.panels[p - 1]].values.size()) at[--p] = 0;
      if (p == 0) break;
    }
  }
  out += "<h2>Cells</h2>\n" + table_of(r);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace twice::cli
