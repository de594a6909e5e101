#pragma once
// The report's swimlane timeline (#timeline-section, see html_report.hpp):
// a lane per worker and per vendor, the deploys, redeliveries and
// violations over them, and the legend. Internal to report/html_*.cpp.

#include "report/html_format.hpp"

namespace twice {
struct scenario;
struct run_summary;
struct run_spans;
}  // namespace twice

namespace twice::html_detail {

// `time` spans the run across the plot; the queue-depth chart uses the same.
void write_timeline(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                    const axis& time);

}  // namespace twice::html_detail
