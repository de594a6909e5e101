#include <twice/report/html_report.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <string_view>

#include "report/html_format.hpp"
#include "report/html_sections.hpp"
#include "report/html_timeline.hpp"
#include "report/overpaid_refunds.hpp"
#include <twice/report/spans.hpp>
#include "report/time_axis.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include <twice/scenario/scenario.hpp>

namespace twice {

using namespace html_detail;

namespace {

constexpr std::string_view style = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d232b; margin: 24px 32px; background: #fff; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d8dde3; padding-bottom: 4px; }
.story { white-space: pre-wrap; max-width: 900px; color: #39424e; margin: 6px 0 10px; }
.meta { color: #5b6673; font-size: 13px; }
.verdict-banner { display: inline-block; padding: 3px 10px; border-radius: 4px; font-weight: 600; margin: 4px 8px 4px 0; }
.verdict-banner.bad { background: #fde2e1; color: #a4161a; border: 1px solid #f1a7a5; }
.verdict-banner.good { background: #e3f5e6; color: #1e6b2e; border: 1px solid #a5d6ad; }
ul.outcome { margin: 6px 0; padding-left: 20px; }
svg { display: block; font: 12px system-ui, sans-serif; }
svg text { fill: #1d232b; }
.lane-bg { fill: #f6f8fa; stroke: #e3e7ec; }
.lane-label { font-weight: 600; }
.lane-time { fill: #5b6673; font-size: 11px; }
.lane-bg.vendor-bg { fill: #fbf8f3; }
.deploy-window { fill: #ffe8a3; opacity: .45; }
.deploy-label { fill: #8a6400; font-weight: 600; }
.pod-down { fill: url(#hatch); }
.lease { fill: #cfe2ff; stroke: #6c9bd6; stroke-width: 1; }
.lease.ended-crash, .lease.ended-stop { stroke: #1d232b; }
.lease.ended-expired { stroke: #d68a00; }
.lease-end.end-ack, .lease-end.end-dead_letter { fill: #2e8b46; }
.lease-end.end-nack, .lease-end.end-expired { fill: #e09a00; }
.lease-end.end-crash, .lease-end.end-stop { fill: #1d232b; }
.lease-end.end-returned, .lease-end.end-open { fill: #8895a5; }
.tool { fill: #9aa5b1; stroke: #5f6b78; stroke-width: .5; }
.tool.tool-model { fill: #b9a6e0; stroke: #6d56a8; }
.tool.tool-refund, .tool.writes { fill: #f2b36b; stroke: #b86a10; }
.tool.new-write { stroke: #1d232b; stroke-width: 1.2; }
.tool.paid { stroke: #1d232b; stroke-width: 2.5; }
.tool.paid.duplicate-effect { stroke: #c0392b; }
.tool.interrupted { fill-opacity: .5; stroke-dasharray: 3 2; }
.paid-label { fill: #1d232b; font-weight: 700; }
.paid-label.duplicate-effect { fill: #c0392b; }
.crash path, .kill path { stroke: #1d232b; stroke-width: 3; stroke-linecap: round; }
.expiry { fill: #e09a00; stroke: #8a5a00; }
.ack { fill: #2e8b46; }
.nack { fill: #e09a00; }
.dead-letter { fill: #1d232b; }
.mark { fill: #5f6b78; }
.stop, .start { stroke: #5f6b78; stroke-width: 1.5; }
.redelivery { fill: none; stroke: #d68a00; stroke-width: 2; stroke-dasharray: 6 3; }
#arrowhead path { fill: #d68a00; }
.redelivery-after-backoff { fill: none; stroke: #2f6fce; stroke-width: 2; stroke-dasharray: 2 3; }
#arrowhead-backoff path { fill: #2f6fce; }
.execution { fill: #e8d9c3; stroke: #a8916e; stroke-width: .5; }
.execution.outcome-committed { fill: #f2b36b; stroke: #b86a10; }
.execution.outcome-error { fill: #d9dde2; stroke: #5f6b78; }
.refund line { stroke: #2e8b46; stroke-width: 2; }
.refund path { fill: #2e8b46; }
.refund-label { fill: #1e6b2e; font-weight: 700; }
.refund.duplicate line { stroke: #c0392b; stroke-width: 3; }
.refund.duplicate path { fill: #c0392b; }
.refund-label.duplicate { fill: #c0392b; }
.vendor-mark { fill: #8895a5; }
.vendor-mark.mark-reject { fill: #b86a10; }
.vendor-mark.mark-replay { fill: #2e8b46; }
.violation line { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 5 4; }
.violation text { fill: #c0392b; font-weight: 700; }
.axis line { stroke: #8895a5; }
.axis text { fill: #5b6673; }
.grid { stroke: #e3e7ec; }
.axis .axis-end-line { stroke: #8895a5; }
.axis text.axis-end { fill: #1d232b; font-weight: 600; }
.time-break-band { fill: #e6eaef; }
.time-break-edge { fill: none; stroke: #8895a5; stroke-width: 1.2; }
svg text.time-break-label { fill: #5b6673; font-style: italic; }
.labels-left-out { color: #5b6673; font-style: italic; }
.refund-label, .paid-label, .deploy-label, .violation text, .time-break-label { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.chart-caption { font-weight: 600; }
svg text.chart-note { fill: #5b6673; font-size: 11px; }
.series { fill: none; stroke-width: 2; }
.series-visible { stroke: #2f6fce; }
.series-in_flight { stroke: #2e8b46; }
.series-delayed { stroke: #8895a5; stroke-dasharray: 4 3; }
.series-dead_letters { stroke: #1d232b; }
.bar { fill: #6c9bd6; }
.backoff-delay { fill: #2f6fce; }
.backoff-envelope { fill: none; stroke: #8895a5; }
.cap { stroke: #1d232b; stroke-width: 1.5; stroke-dasharray: 6 3; }
.outage-window { fill: url(#outage-hatch); }
.series-requests { stroke: #2f6fce; stroke-width: 1; }
.capacity { stroke: #1d232b; stroke-width: 1.5; stroke-dasharray: 6 3; }
.backoff-range { fill: #b9cdf0; }
.spike-window { fill: #f7d9a8; opacity: .6; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 13px; color: #39424e; margin: 6px 0 0 140px; }
.legend svg { display: inline-block; vertical-align: middle; margin-right: 5px; }
.swatch { display: inline-block; width: 14px; height: 10px; margin-right: 5px; vertical-align: middle; border: 1px solid #5f6b78; }
table { border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #eef1f4; vertical-align: top; }
th { color: #5b6673; font-weight: 600; }
td.num, th.num { text-align: right; }
tr.violated td { background: #fdecea; }
tr.violated .verdict { color: #a4161a; font-weight: 700; }
tr.held .verdict { color: #1e6b2e; }
tr.unjudged .verdict { color: #8a5a00; font-weight: 700; }
ul.evidence { margin: 4px 0 0; padding-left: 18px; font: 12px ui-monospace, monospace; color: #6b1d1d; }
.ledgers { display: flex; flex-wrap: wrap; gap: 40px; }
tr.unmatched td { background: #fff3d6; color: #7a4f00; font-weight: 600; }
tr.overpaid td { background: #fdecea; color: #a4161a; font-weight: 600; }
tr.total td { border-top: 2px solid #c8cfd7; font-weight: 600; }
code { font: 12px ui-monospace, monospace; }
.timeline-violations { color: #a4161a; font-weight: 600; margin: 0 0 4px; }
.timeline-violations a { color: inherit; }
.hl { filter: drop-shadow(0 0 3px #ff7a00); }
)css";

// Highlights everything about the job under the pointer. Optional: the page
// says everything without it.
constexpr std::string_view script = R"js(
document.addEventListener('mouseover', function (e) {
  var on = e.target.closest ? e.target.closest('[data-job]') : null;
  document.querySelectorAll('.hl').forEach(function (n) { n.classList.remove('hl'); });
  if (!on) return;
  document.querySelectorAll('[data-job]').forEach(function (n) {
    if (n.getAttribute('data-job') === on.getAttribute('data-job')) n.classList.add('hl');
  });
});
)js";

// Everything the timeline draws, as spans of time: the calls and the
// executions while under way, and every moment a mark stands for. Where
// none is, nothing happens on the page, and a long stretch of it may be
// drawn narrow (report/time_axis.hpp).
std::vector<busy_span> drawn_activity(const scenario& sc, const run_spans& spans) {
  std::vector<busy_span> out;
  auto span = [&](sim::instant a, sim::instant b) { out.push_back({a.us(), std::max(a, b).us()}); };
  auto point = [&](sim::instant t) { span(t, t); };
  for (const lease_span& l : spans.leases) {
    point(l.start);
    point(l.end);
    if (l.expired_at) point(*l.expired_at);
  }
  for (const tool_span& t : spans.tools) span(t.start, t.end);
  for (const vendor_execution& e : spans.executions) span(e.start, e.end);
  for (const worker_mark& m : spans.marks) point(m.at);
  for (const refund_mark& r : spans.refunds) point(r.at);
  for (const vendor_mark& m : spans.vendor_marks) point(m.at);
  for (const redelivery& r : spans.redeliveries) point(r.at);
  for (const pod_down& d : spans.pods_down) {
    point(d.from);
    point(d.to);
  }
  for (const pod_up& p : spans.pod_starts) point(p.at);
  for (const deploy_spec& d : sc.world.deploys) point(d.at);
  // What a bounded collector dropped was drawn nowhere, but it happened:
  // its time is not idle.
  for (const auto& [from, to] : spans.omitted.activity) out.push_back({from, to});
  return out;
}

}  // namespace

std::size_t final_ledgers::their_rows() const {
  std::size_t n = 0;
  for (const far_side& f : theirs) n += f.rows.size();
  return n;
}

final_ledgers collect_ledgers(const world& w, const run_summary& s) {
  final_ledgers out;
  out.ours.assign(w.db().ledger().begin(), w.db().ledger().end());
  for (const world::money_tool& m : w.money_tools()) {
    const bool kept =
        std::any_of(s.money.begin(), s.money.end(), [&](const money_ledger& l) { return l.tool == m.name; });
    if (kept) out.theirs.push_back({std::string(m.name), {m.tool->ledger().begin(), m.tool->ledger().end()}});
  }
  return out;
}

std::string html_report(const scenario& sc, const run_summary& s, const std::vector<timeline_line>& story,
                        const run_spans& spans, const final_ledgers& ledgers, std::optional<std::size_t> story_total) {
  // The run from its start to where the story ended across the plot, long
  // idle stretches drawn narrow: the timeline's axis, and the charts' under
  // it. A refund the vendor committed after the story (a request nobody
  // waited for any more) still gets its flag: the axis runs on to it.
  std::int64_t end_us = s.result.story_end.us();
  for (const refund_mark& r : spans.refunds) end_us = std::max(end_us, r.at.us());
  if (spans.omitted.last_refund) end_us = std::max(end_us, spans.omitted.last_refund->us());
  const time_axis time = time_axis::compressing_idle(plot_left, plot_right, end_us, drawn_activity(sc, spans));
  const std::set<std::string, std::less<>> overpaying = overpaying_refunds(s.verdicts, spans.refunds);
  std::string out;
  html_lines html(out);
  html.line("<!DOCTYPE html>");
  html.line("<html lang=\"en\">");
  html.line("<head>");
  html.line("<meta charset=\"utf-8\">");
  html.line("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
  html.line("<title>" + esc(sc.name) + " \xe2\x80\x94 twice report</title>");
  html.line("<style>" + std::string(style) + "</style>");
  html.line("</head>");
  html.line(fmt::format("<body data-scenario=\"{}\" data-seed=\"{}\" data-digest=\"{:016x}\">", esc(sc.name), s.seed,
                        s.result.trace_digest));
  write_summary(html, sc, s);
  write_timeline(html, sc, s, spans, time, overpaying);
  write_requests(html, sc, spans, time);
  write_queue_depth(html, sc, spans, time);
  write_attempts(html, s);
  write_backoff(html, spans);
  write_ledgers(html, s, ledgers, overpaying);
  write_invariants(html, s);
  write_story(html, story, story_total.value_or(story.size()));
  html.line("<script>" + std::string(script) + "</script>");
  html.line("</body>");
  html.line("</html>");
  return out;
}

}  // namespace twice
