#pragma once
// The report's swimlane timeline (#timeline-section, see html_report.hpp):
// a lane per worker and per vendor, the deploys, redeliveries and
// violations over them, and the legend. Internal to report/html_*.cpp.

#include <functional>
#include <set>
#include <string>

#include "report/html_format.hpp"
#include "report/time_axis.hpp"

namespace twice {
struct scenario;
struct run_summary;
struct run_spans;
}  // namespace twice

namespace twice::html_detail {

// `time` spans the run across the plot; the charts under it use the same.
// `overpaying`: the refunds to mark red (report/overpaid_refunds.hpp), as
// the ledger tables do.
void write_timeline(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                    const time_axis& time, const std::set<std::string, std::less<>>& overpaying);

}  // namespace twice::html_detail
