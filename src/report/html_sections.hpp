#pragma once
// The report's sections besides the timeline, each as html_report.hpp
// describes it: the summary at the top, then the charts (queue depth,
// attempts, backoff) and the tables (ledgers, invariants, the story as
// text). Internal to report/html_*.cpp.

#include <vector>

#include "report/html_format.hpp"
#include "report/timeline.hpp"

namespace twice {
struct scenario;
struct run_summary;
struct run_spans;
struct final_ledgers;
}  // namespace twice

namespace twice::html_detail {

// <header id="summary">: the scenario, its verdicts and the run's outcome.
void write_summary(html_lines& html, const scenario& sc, const run_summary& s);
// `time` is the timeline's axis, so the two line up.
void write_queue_depth(html_lines& html, const run_spans& spans, const axis& time);
void write_attempts(html_lines& html, const run_summary& s);
void write_backoff(html_lines& html, const run_spans& spans);
void write_ledgers(html_lines& html, const final_ledgers& ledgers);
void write_invariants(html_lines& html, const run_summary& s);
void write_story(html_lines& html, const std::vector<timeline_line>& lines);

}  // namespace twice::html_detail
