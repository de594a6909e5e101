#pragma once
// The report's sections besides the timeline, each as html_report.hpp
// describes it: the summary at the top, then the charts (queue depth,
// attempts, backoff) and the tables (ledgers, invariants, the story as
// text). Internal to report/html_*.cpp.

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "report/html_format.hpp"
#include "report/time_axis.hpp"
#include <twice/report/timeline.hpp>

namespace twice {
struct scenario;
struct service_tool_config;
struct run_summary;
struct run_spans;
struct final_ledgers;
}  // namespace twice

namespace twice::html_detail {

// The settings of the tool whose far side traces as `actor`
// ("vendor/payments" is the refund tool's), or nullptr.
const service_tool_config* tool_config_of(const scenario& sc, std::string_view actor);

// The time axis's tick marks: grid lines from y0 to y1 (none when y0 ==
// y1) and labels at label_y; the story's end is class "axis-end".
void write_time_ticks(html_lines& html, const time_axis& time, std::int64_t y0, std::int64_t y1, std::int64_t label_y);
// Its idle stretches drawn narrow (g.time-break[data-from-us][data-to-us]),
// as bands from y0 to y1 over what is drawn there, with zigzag edges.
void write_time_breaks(html_lines& html, const time_axis& time, std::int64_t y0, std::int64_t y1);

// <header id="summary">: the scenario, its verdicts and the run's outcome.
void write_summary(html_lines& html, const scenario& sc, const run_summary& s);
// `time` is the timeline's axis, so the two line up.
// Sidekiq's series in its own words (enqueued, busy, scheduled, dead set).
void write_queue_depth(html_lines& html, const scenario& sc, const run_spans& spans, const time_axis& time);
// Requests per 100 ms at each tool, every request counted, with the tool's
// outages and spikes, and its servers' rate where the latency is fixed.
void write_requests(html_lines& html, const scenario& sc, const run_spans& spans, const time_axis& time);
void write_attempts(html_lines& html, const run_summary& s);
void write_backoff(html_lines& html, const run_spans& spans);
// Nothing in a world where nothing moves money (run_summary::keeps_ledgers).
// `overpaying`: the refunds the timeline marks red, red here too.
void write_ledgers(html_lines& html, const run_summary& s, const final_ledgers& ledgers,
                   const std::set<std::string, std::less<>>& overpaying);
void write_invariants(html_lines& html, const run_summary& s);
// `total`: the story's lines, `lines` being at least the first
// html_story_lines_shown of them.
void write_story(html_lines& html, const std::vector<timeline_line>& lines, std::size_t total);

}  // namespace twice::html_detail
