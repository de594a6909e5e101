#pragma once
// A line chart as inline SVG: some named lines of (x, y) points, each with
// an optional ± interval, on linear or logarithmic axes, with its legend.
// What a sweep's page draws (a line per value of one key against another),
// self-contained: no script, no stylesheet beyond the classes below.
//
// Colours: red means a violation and nothing else. Lines take eight other
// colours and, past those, dash patterns; a point whose cell broke an
// invariant gets a red ring, and the legend says so when any point has one.
// Coordinates are whole tenths of a pixel, computed with IEEE basic
// operations and sim::fp_math's log (no libm), so a chart's bytes are the
// same on every machine.
//
// Titles and labels are laid out with report/text_width.hpp's estimate: the
// axis titles wrap to their axis's length and the left margin grows to fit
// the tick labels and the y title, so nothing is cut off.
//
// Classes a page may style: .chart, .chart-line, .chart-point, .chart-err
// (with data-low and data-high, the interval's ends), .chart-violation,
// .chart-grid, .chart-axis, .chart-legend.

#include <string>
#include <vector>

namespace twice::chart {

struct point {
  double x = 0;
  double y = 0;
  double err = 0;         // half-width of the interval drawn around y; 0: none
  bool violated = false;  // the cell behind the point broke an invariant
};

struct line {
  std::string name;
  std::vector<point> points;  // in x order
};

struct line_chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  // When set, the x values are indexes into these labels (an axis of
  // names, evenly spaced) and log_x is ignored.
  std::vector<std::string> x_categories;
  bool log_x = false;
  bool log_y = false;
  // The quantity is never below zero (a time, a count): an interval stops
  // at zero, and so does the axis.
  bool non_negative = false;
  std::vector<line> lines;
};

// A logarithmic axis helps when every value is positive and they span at
// least `ratio` (largest over smallest).
bool log_scale_helps(const std::vector<double>& values, double ratio = 30);

// The chart as one <svg class="chart"> element (with its legend inside).
std::string line_chart_svg(const line_chart& chart);

}  // namespace twice::chart
