#include "report/html_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "report/spans.hpp"
#include "report/timeline.hpp"
#include "runtime/retry_policy.hpp"
#include "scenario/scenario.hpp"
#include "sim/checked.hpp"
#include "sim/duration_text.hpp"

namespace twice {

namespace {

// ---- text ---------------------------------------------------------------------

// Text and attribute values alike: nothing in a run's data can open a tag,
// end an attribute or start an entity.
std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// For class names and ids: [a-z0-9-] only.
std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) out += c;
    else if (c >= 'A' && c <= 'Z') out += static_cast<char>(c - 'A' + 'a');
    else out += '-';
  }
  return out;
}

std::string secs(std::int64_t us) {
  const char* sign = us < 0 ? "-" : "";
  if (us < 0) us = -us;
  return fmt::format("{}{}.{:06}s", sign, us / 1'000'000, us % 1'000'000);
}
std::string secs(sim::instant t) { return secs(t.us()); }

// An axis label: "0s", "2.5s", "0.005s".
std::string short_secs(std::int64_t us) {
  std::string s = fmt::format("{}.{:06}", us / 1'000'000, us % 1'000'000);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + "s";
}

std::string money(std::int64_t cents) {
  const char* sign = cents < 0 ? "-" : "";
  // The magnitude in unsigned arithmetic: -INT64_MIN is not an int64.
  const std::uint64_t magnitude = cents < 0 ? 0 - static_cast<std::uint64_t>(cents) : static_cast<std::uint64_t>(cents);
  return fmt::format("{}{}.{:02}", sign, magnitude / 100, magnitude % 100);
}

std::string key_text(const std::string& key) { return key.empty() ? "(none)" : key; }

// ---- geometry -----------------------------------------------------------------
// Coordinates are integers in tenths of a pixel, printed as decimals: no
// floating point, so the bytes are the same everywhere.

std::string px(std::int64_t tenths) {
  const char* sign = tenths < 0 ? "-" : "";
  if (tenths < 0) tenths = -tenths;
  if (tenths % 10 == 0) return fmt::format("{}{}", sign, tenths / 10);
  return fmt::format("{}{}.{}", sign, tenths / 10, tenths % 10);
}

// Maps [0, span] onto [from, from + length] tenths of a pixel.
struct axis {
  std::int64_t from = 0, length = 0, span = 1;
  std::int64_t at(std::int64_t v) const {
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
};

// 1, 2, 5 x 10^k: the smallest step giving at most `most` intervals.
std::int64_t nice_step(std::int64_t span, std::int64_t most) {
  std::int64_t base = 1;
  while (true) {
    for (std::int64_t m : {1, 2, 5})
      if (span / (base * m) <= most) return base * m;
    base *= 10;
  }
}

// ---- the page -----------------------------------------------------------------

constexpr std::int64_t page_width = 12000;  // tenths of a pixel
constexpr std::int64_t plot_left = 1400;
constexpr std::int64_t plot_right = 11700;
constexpr std::int64_t worker_lane_height = 640;
constexpr std::int64_t vendor_lane_height = 460;
constexpr std::int64_t timeline_top = 640;

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
.lane-bg.vendor-bg { fill: #fbf8f3; }
.deploy-window { fill: #ffe8a3; opacity: .45; }
.deploy-label { fill: #8a6400; font-weight: 600; }
.pod-down { fill: url(#hatch); }
.lease { fill: #cfe2ff; stroke: #6c9bd6; stroke-width: 1; }
.lease.ended-crash, .lease.ended-stop { stroke: #c0392b; }
.lease.ended-expired { stroke: #d68a00; }
.lease-end.end-ack, .lease-end.end-dead_letter { fill: #2e8b46; }
.lease-end.end-nack, .lease-end.end-expired { fill: #e09a00; }
.lease-end.end-crash, .lease-end.end-stop { fill: #c0392b; }
.lease-end.end-returned, .lease-end.end-open { fill: #8895a5; }
.tool { fill: #9aa5b1; stroke: #5f6b78; stroke-width: .5; }
.tool.tool-model { fill: #b9a6e0; stroke: #6d56a8; }
.tool.tool-refund, .tool.writes { fill: #f2b36b; stroke: #b86a10; }
.tool.new-write { stroke: #1d232b; stroke-width: 1.2; }
.tool.paid { stroke: #c0392b; stroke-width: 2.5; }
.tool.interrupted { fill-opacity: .5; stroke-dasharray: 3 2; }
.paid-label { fill: #c0392b; font-weight: 700; }
.crash path, .kill path { stroke: #c0392b; stroke-width: 3; stroke-linecap: round; }
.expiry { fill: #e09a00; stroke: #8a5a00; }
.ack { fill: #2e8b46; }
.nack { fill: #e09a00; }
.dead-letter { fill: #1d232b; }
.mark { fill: #5f6b78; }
.stop, .start { stroke: #5f6b78; stroke-width: 1.5; }
.redelivery { fill: none; stroke: #d68a00; stroke-width: 2; stroke-dasharray: 6 3; }
#arrowhead path { fill: #d68a00; }
.execution { fill: #e8d9c3; stroke: #a8916e; stroke-width: .5; }
.execution.outcome-committed { fill: #f2b36b; stroke: #b86a10; }
.execution.outcome-error { fill: #f1a7a5; }
.refund line { stroke: #2e8b46; stroke-width: 2; }
.refund path { fill: #2e8b46; }
.refund text { fill: #1e6b2e; font-weight: 700; }
.refund.duplicate line { stroke: #c0392b; stroke-width: 3; }
.refund.duplicate path { fill: #c0392b; }
.refund.duplicate text { fill: #c0392b; }
.vendor-mark { fill: #8895a5; }
.vendor-mark.mark-reject { fill: #c0392b; }
.vendor-mark.mark-replay { fill: #2e8b46; }
.violation line { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 5 4; }
.violation text { fill: #c0392b; font-weight: 700; }
.axis line { stroke: #8895a5; }
.axis text { fill: #5b6673; }
.grid { stroke: #e3e7ec; }
.series { fill: none; stroke-width: 2; }
.series-visible { stroke: #2f6fce; }
.series-in_flight { stroke: #2e8b46; }
.series-delayed { stroke: #8895a5; stroke-dasharray: 4 3; }
.series-dead_letters { stroke: #1d232b; }
.bar { fill: #6c9bd6; }
.backoff-delay { fill: #2f6fce; }
.backoff-envelope { fill: none; stroke: #8895a5; }
.cap { stroke: #c0392b; stroke-width: 1.5; stroke-dasharray: 6 3; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 13px; color: #39424e; margin: 6px 0 0 140px; }
.swatch { display: inline-block; width: 14px; height: 10px; margin-right: 5px; vertical-align: middle; border: 1px solid #5f6b78; }
table { border-collapse: collapse; font-size: 13px; }
th, td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid #eef1f4; vertical-align: top; }
th { color: #5b6673; font-weight: 600; }
td.num, th.num { text-align: right; }
tr.violated td { background: #fdecea; }
tr.violated .verdict { color: #a4161a; font-weight: 700; }
tr.held .verdict { color: #1e6b2e; }
ul.evidence { margin: 4px 0 0; padding-left: 18px; font: 12px ui-monospace, monospace; color: #6b1d1d; }
.ledgers { display: flex; flex-wrap: wrap; gap: 40px; }
tr.unmatched td { background: #fdecea; color: #a4161a; font-weight: 600; }
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

class page {
 public:
  page(const scenario& sc, const run_summary& s, const std::vector<sim::trace_record>& records,
       const final_ledgers& ledgers)
      : sc_(sc), s_(s), records_(records), ledgers_(ledgers), spans_(collect_spans(records)) {
    for (const refund_mark& r : spans_.refunds) refund_refs_.insert(r.ref);
    for (const verdict& v : s_.verdicts)
      if (!v.held) ++violations_;
  }

  std::string render() {
    line("<!DOCTYPE html>");
    line("<html lang=\"en\">");
    line("<head>");
    line("<meta charset=\"utf-8\">");
    line("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    line("<title>" + esc(sc_.name) + " \xe2\x80\x94 twice report</title>");
    line("<style>" + std::string(style) + "</style>");
    line("</head>");
    line(fmt::format("<body data-scenario=\"{}\" data-seed=\"{}\" data-digest=\"{:016x}\">", esc(sc_.name), s_.seed,
                     s_.result.trace_digest));
    header();
    timeline();
    queue_depth();
    attempts();
    backoff();
    ledgers();
    invariants();
    story();
    line("<script>" + std::string(script) + "</script>");
    line("</body>");
    line("</html>");
    return std::move(out_);
  }

 private:
  void line(const std::string& text) {
    out_ += text;
    out_ += '\n';
  }

  // ---- header -------------------------------------------------------------------
  void header() {
    line("<header id=\"summary\">");
    line("<h1>" + esc(sc_.name) + "</h1>");
    if (!sc_.story.empty()) line("<p class=\"story\">" + esc(sc_.story) + "</p>");
    line(fmt::format("<p class=\"meta\">Scenario <code>{}</code>, seed {}, trace digest <code>{:016x}</code>. "
                     "Generated by <code>twice run {} --report</code>.</p>",
                     esc(sc_.path), s_.seed, s_.result.trace_digest, esc(sc_.path)));
    if (violations_ > 0)
      line(fmt::format("<span class=\"verdict-banner bad\" id=\"violation-count\" data-violations=\"{}\">{} invariant{} "
                       "violated</span>",
                       violations_, violations_, violations_ == 1 ? "" : "s"));
    else
      line("<span class=\"verdict-banner good\" id=\"violation-count\" data-violations=\"0\">every invariant held</span>");
    line(fmt::format("<span class=\"verdict-banner {}\" id=\"expectations\" data-met=\"{}\">expectations {}</span>",
                     s_.expectations.met ? "good" : "bad", s_.expectations.met ? "true" : "false",
                     s_.expectations.met ? "met" : "NOT met"));
    line("<ul class=\"outcome\">");
    line(fmt::format("<li>run: {} at {}, {} events</li>", esc(describe_end(s_.result)), secs(s_.result.story_end),
                     s_.result.events));
    line(fmt::format("<li>jobs: {} total, {} done, {} failed, {} dead-lettered</li>", s_.jobs_total, s_.jobs_succeeded,
                     s_.jobs_failed, s_.jobs_dead_lettered));
    line(fmt::format("<li>our ledger: {} rows, {} &middot; the vendor's ledger: {} refunds, {}</li>", s_.ledger_rows,
                     money(s_.ledger_total_cents), s_.vendor_refunds, money(s_.vendor_total_cents)));
    line(fmt::format("<li>vendor: {} calls, {} answered 503, at most {} in one 100 ms</li>", s_.vendor_calls,
                     s_.vendor_rejected_503, s_.vendor_peak_per_100ms));
    for (const std::string& f : s_.expectations.failures) line("<li class=\"expectation-failure\">" + esc(f) + "</li>");
    line("</ul>");
    line("</header>");
  }

  // ---- timeline -----------------------------------------------------------------
  std::int64_t lane_y(std::size_t lane) const {
    const std::size_t workers = spans_.lanes.size();
    if (lane < workers) return timeline_top + static_cast<std::int64_t>(lane) * worker_lane_height;
    return timeline_top + static_cast<std::int64_t>(workers) * worker_lane_height +
           static_cast<std::int64_t>(lane - workers) * vendor_lane_height + 120;
  }

  std::optional<std::size_t> lane_of(const std::string& actor) const {
    for (std::size_t i = 0; i < spans_.lanes.size(); ++i)
      if (spans_.lanes[i] == actor) return i;
    return std::nullopt;
  }

  void timeline() {
    const std::int64_t end_us = std::max<std::int64_t>(spans_.end.us(), 1);
    time_ = axis{plot_left, plot_right - plot_left, end_us};
    vendors_ = spans_.vendors;
    // The payment vendor (refunds) first: it is the lane people look for.
    std::stable_partition(vendors_.begin(), vendors_.end(), [&](const std::string& v) {
      return std::any_of(spans_.refunds.begin(), spans_.refunds.end(), [&](const refund_mark& r) { return r.vendor == v; });
    });
    const std::size_t lanes = spans_.lanes.size() + vendors_.size();
    const std::int64_t workers_bottom = lane_y(spans_.lanes.size()) - 120;
    const std::int64_t bottom = lanes == 0 ? timeline_top : lane_y(lanes - 1) + vendor_lane_height;
    const std::int64_t height = bottom + 500;

    line("<section id=\"timeline-section\">");
    line("<h2>Timeline</h2>");
    std::string violated;
    for (const verdict& v : s_.verdicts)
      if (!v.held)
        violated += fmt::format("{}<a class=\"violated-name\" href=\"#invariant-{}\">{}</a>", violated.empty() ? "" : ", ",
                                slug(v.name), esc(v.name));
    if (!violated.empty()) line("<p class=\"timeline-violations\">Violated: " + violated + "</p>");
    line(fmt::format("<svg id=\"timeline\" role=\"img\" aria-label=\"swimlane timeline\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" data-end-us=\"{}\">",
                     px(page_width), px(height), px(page_width), px(height), end_us));
    line("<defs>");
    line("<marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>");
    line("<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eceff2\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b7c0ca\" stroke-width=\"2\"/></pattern>");
    line("</defs>");

    time_axis(bottom);
    // Lane backgrounds under the deploy windows, the windows under what happened.
    line("<g id=\"lane-backgrounds\">");
    for (std::size_t i = 0; i < lanes; ++i)
      line(fmt::format("<rect class=\"lane-bg{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                       i < spans_.lanes.size() ? "" : " vendor-bg", px(plot_left), px(lane_y(i)), px(plot_right - plot_left),
                       px((i < spans_.lanes.size() ? worker_lane_height : vendor_lane_height) - 80)));
    line("</g>");
    deploy_windows(workers_bottom);
    for (std::size_t i = 0; i < spans_.lanes.size(); ++i) worker_lane(i);
    for (std::size_t i = 0; i < vendors_.size(); ++i) vendor_lane(spans_.lanes.size() + i, vendors_[i]);
    redeliveries();
    violation_lines(bottom);
    line("</svg>");
    legend();
    line("</section>");
  }

  void time_axis(std::int64_t bottom) {
    const std::int64_t step = nice_step(time_.span, 12);
    line(fmt::format("<g class=\"axis\" id=\"time-axis\" data-step-us=\"{}\">", step));
    for (std::int64_t t = 0; t <= time_.span; t += step) {
      const std::int64_t x = time_.at(t);
      line(fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(timeline_top - 60),
                       px(bottom + 40)));
      line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x), px(bottom + 200),
                       short_secs(t)));
    }
    line("</g>");
  }

  void deploy_windows(std::int64_t workers_bottom) {
    for (std::size_t i = 0; i < sc_.world.deploys.size(); ++i) {
      const deploy_spec& d = sc_.world.deploys[i];
      // Ends when the last pod is up on the new version.
      sim::instant done = spans_.end;
      bool any = false;
      for (const sim::trace_record& r : records_) {
        if (r.kind != "start" || !r.actor.starts_with("worker/") || r.time < d.at) continue;
        if (r.get_string("sha") != d.sha) continue;
        done = any ? std::max(done, r.time) : r.time;
        any = true;
      }
      const std::int64_t x0 = time_.at(d.at.us());
      const std::int64_t x1 = std::max(time_.at(done.us()), x0 + 20);
      const std::string what = fmt::format("deploy {} ({})", d.sha,
                                           d.strategy == deploy_strategy::drain ? "drain" : "rolling kill");
      line(fmt::format("<g class=\"deploy\" data-sha=\"{}\"><rect class=\"deploy-window\" data-sha=\"{}\" x=\"{}\" "
                       "y=\"{}\" width=\"{}\" height=\"{}\"><title>{} from {} to {}</title></rect>",
                       esc(d.sha), esc(d.sha), px(x0), px(timeline_top - 60), px(x1 - x0),
                       px(workers_bottom - timeline_top + 60), esc(what), secs(d.at), secs(done)));
      line(fmt::format("<text class=\"deploy-label\" x=\"{}\" y=\"{}\">{}</text></g>", px(x0 + 40),
                       px(timeline_top - 340 - static_cast<std::int64_t>(i % 2) * 140), esc(what)));
    }
  }

  void worker_lane(std::size_t lane) {
    const std::string& name = spans_.lanes[lane];
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = worker_lane_height - 80;
    line(fmt::format("<g class=\"lane worker\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
    line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(plot_left - 100),
                     px(y + h / 2 + 40), esc(name)));
    for (const pod_down& d : spans_.pods_down) {
      if (d.worker != name) continue;
      const std::int64_t x0 = time_.at(d.from.us());
      const std::int64_t x1 = std::max(time_.at(d.to.us()), x0 + 10);
      line(fmt::format("<rect class=\"pod-down{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>pod down ({}): "
                       "{} to {}</title></rect>",
                       d.deploy ? " deploy" : "", px(x0), px(y), px(x1 - x0), px(h), esc(d.why), secs(d.from),
                       secs(d.to)));
    }
    for (const lease_span& l : spans_.leases)
      if (l.worker == name) lease(l, y, h);
    for (const tool_span& t : spans_.tools)
      if (t.actor == name) tool(t, y, h);
    for (const worker_mark& m : spans_.marks)
      if (m.actor == name) mark(m, y, h);
    for (const lease_span& l : spans_.leases)
      if (l.worker == name && l.expired_at) expiry(l, *l.expired_at, y, h);
    line("</g>");
  }

  void lease(const lease_span& l, std::int64_t y, std::int64_t h) {
    const std::int64_t x0 = time_.at(l.start.us());
    const std::int64_t x1 = std::max(time_.at(l.end.us()), x0 + 20);
    std::string attempts;
    for (std::int64_t a : l.attempts) attempts += (attempts.empty() ? "" : ", ") + std::to_string(a);
    line(fmt::format("<rect class=\"lease ended-{}\" data-job=\"{}\" data-delivery=\"{}\" data-ended-by=\"{}\" x=\"{}\" "
                     "y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"><title>lease of {} (delivery {}{}) from {} to {}, "
                     "ended by {}</title></rect>",
                     slug(l.ended_by), esc(l.job), l.receive_count, esc(l.ended_by), px(x0), px(y + 60), px(x1 - x0),
                     px(h - 120), esc(l.job), l.receive_count, attempts.empty() ? "" : ", attempts " + attempts,
                     secs(l.start), secs(l.end), esc(l.ended_by)));
    line(fmt::format("<rect class=\"lease-end end-{}\" x=\"{}\" y=\"{}\" width=\"3\" height=\"{}\"/>", slug(l.ended_by),
                     px(x1 - 30), px(y + 60), px(h - 120)));
  }

  void tool(const tool_span& t, std::int64_t y, std::int64_t h) {
    const std::int64_t x0 = time_.at(t.start.us());
    const std::int64_t x1 = std::max(time_.at(t.end.us()), x0 + 20);
    const bool paid = t.new_write && refund_refs_.contains(t.ref);
    std::string cls = "tool tool-" + slug(t.tool);
    if (t.new_write) cls += " new-write";
    if (paid) cls += " paid";
    if (!t.finished) cls += " interrupted";
    std::string result = !t.finished ? std::string("no answer: the pod died first")
                         : t.status == 0 ? std::string("timeout")
                                         : std::to_string(t.status);
    if (!t.error.empty()) result += " " + t.error;
    if (!t.ref.empty()) result += " " + t.ref;
    if (t.replayed) result += " (replayed)";
    line(fmt::format("<rect class=\"{}\" data-job=\"{}\" data-tool=\"{}\" data-key=\"{}\" data-attempt=\"{}\" "
                     "data-step=\"{}\" data-ref=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} {} step {} "
                     "attempt {}, key={}, sha {}: {} -&gt; {}{}</title></rect>",
                     cls, esc(t.job), esc(t.tool), esc(t.key), t.attempt, t.step, esc(t.ref), px(x0), px(y + 120),
                     px(x1 - x0), px(h - 240), esc(t.tool), esc(t.job), t.step, t.attempt, esc(key_text(t.key)),
                     esc(t.sha), secs(t.start), esc(result), t.new_write ? " (new write)" : ""));
    if (paid) {
      const std::int64_t mid = (x0 + x1) / 2;
      const char* anchor = mid > plot_right - 600 ? "end" : mid < plot_left + 600 ? "start" : "middle";
      line(fmt::format("<text class=\"paid-label\" data-ref=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{} "
                       "{}</text>",
                       esc(t.ref), px(mid), px(y - 30), anchor, esc(t.tool), esc(t.ref)));
    }
  }

  void mark(const worker_mark& m, std::int64_t y, std::int64_t h) {
    const std::int64_t x = time_.at(m.at.us());
    const std::int64_t cy = y + h / 2;
    const std::string title = "<title>" + secs(m.at) + " " + esc(m.text) + "</title>";
    const std::string job = esc(m.job);
    const bool in_flight = m.text.find("in flight") != std::string::npos;
    if (m.kind == "crash" || (m.kind == "stop" && in_flight)) {
      const std::int64_t r = 90;
      line(fmt::format("<g class=\"{}\" data-job=\"{}\">{}<path d=\"M{},{} L{},{} M{},{} L{},{}\"/></g>",
                       m.kind == "crash" ? "crash" : "kill", job, title, px(x - r), px(cy - r), px(x + r), px(cy + r),
                       px(x - r), px(cy + r), px(x + r), px(cy - r)));
    } else if (m.kind == "stop" || m.kind == "start" || m.kind == "drain") {
      line(fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\">{}</line>",
                       m.kind == "drain" ? "stop drain" : m.kind, px(x), px(y), px(x), px(y + h), title));
    } else if (m.kind == "ack" || m.kind == "nack") {
      line(fmt::format("<circle class=\"{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"4.5\">{}</circle>", m.kind, job,
                       px(x), px(cy), title));
    } else if (m.kind == "dead_letter") {
      line(fmt::format("<rect class=\"dead-letter\" data-job=\"{}\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\">{}</rect>",
                       job, px(x - 45), px(cy - 45), title));
    } else if (m.kind == "job_done" || m.kind == "already_ended") {
      // the ack right after says it
    } else {
      line(fmt::format("<circle class=\"mark mark-{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\">{}</circle>",
                       slug(m.kind), job, px(x), px(y + h - 40), title));
    }
  }

  void expiry(const lease_span& l, sim::instant at, std::int64_t y, std::int64_t h) {
    const std::int64_t x = time_.at(at.us());
    const std::int64_t cy = y + h / 2;
    line(fmt::format("<path class=\"expiry\" data-job=\"{}\" d=\"M{},{} L{},{} L{},{} L{},{} z\"><title>{} the lease of "
                     "{} (delivery {}) ran out: the message is visible again</title></path>",
                     esc(l.job), px(x), px(cy - 80), px(x + 60), px(cy), px(x), px(cy + 80), px(x - 60), px(cy),
                     secs(at), esc(l.job), l.receive_count));
  }

  void vendor_lane(std::size_t lane, const std::string& name) {
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = vendor_lane_height - 80;
    line(fmt::format("<g class=\"lane vendor\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
    line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(plot_left - 100),
                     px(y + h / 2 + 40), esc(name)));
    for (const vendor_execution& e : spans_.executions) {
      if (e.vendor != name) continue;
      const std::int64_t x0 = time_.at(e.start.us());
      const std::int64_t x1 = std::max(time_.at(e.end.us()), x0 + 20);
      line(fmt::format("<rect class=\"execution outcome-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>request "
                       "{}: executes from {} to {}, {}{}</title></rect>",
                       slug(e.outcome), px(x0), px(y + h - 130), px(x1 - x0), px(90), e.req, secs(e.start),
                       secs(e.end), esc(e.outcome), e.ref.empty() ? "" : " " + esc(e.ref)));
    }
    const bool label_refunds = spans_.refunds.size() <= 24;
    std::size_t nth_label = 0;
    for (const refund_mark& r : spans_.refunds) {
      if (r.vendor != name) continue;
      const std::int64_t label_y = y + (nth_label++ % 2 == 0 ? 150 : 310);
      const std::int64_t x = time_.at(r.at.us());
      const bool dup = r.nth_for_invoice > 1;
      std::string label = fmt::format("{} {} {}", r.ref, r.invoice, money(r.amount_cents));
      if (dup) label += fmt::format(" \xe2\x80\x94 refund #{} of {}", r.nth_for_invoice, r.invoice);
      line(fmt::format("<g class=\"refund{}\" data-ref=\"{}\" data-invoice=\"{}\" data-amount-cents=\"{}\" data-key=\"{}\" "
                       "data-nth=\"{}\" data-at-us=\"{}\"><title>{} the vendor commits refund {}: invoice {}, {}, key={}{}"
                       "</title>",
                       dup ? " duplicate" : "", esc(r.ref), esc(r.invoice), r.amount_cents, esc(r.key),
                       r.nth_for_invoice, r.at.us(), secs(r.at), esc(r.ref), esc(r.invoice), money(r.amount_cents),
                       esc(key_text(r.key)),
                       dup ? fmt::format(" (the {} refund of this invoice)", r.nth_for_invoice == 2 ? "second" : "n-th")
                           : ""));
      line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(y - 40), px(y + h)));
      line(fmt::format("<path d=\"M{},{} L{},{} L{},{} z\"/>", px(x - 70), px(y - 40), px(x + 70), px(y - 40), px(x),
                       px(y + 70)));
      // Labels to the left of refunds near the right edge, so they stay on the page.
      const bool left = x > plot_left + (plot_right - plot_left) * 3 / 4;
      if (label_refunds)
        line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>", px(left ? x - 100 : x + 100),
                         px(label_y), left ? "end" : "start", esc(label)));
      line("</g>");
    }
    for (const vendor_mark& m : spans_.vendor_marks) {
      if (m.vendor != name) continue;
      line(fmt::format("<circle class=\"vendor-mark mark-{}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{} {}: {}</title></circle>",
                       slug(m.kind), px(time_.at(m.at.us())), px(y + 60), secs(m.at), esc(m.kind), esc(m.text)));
    }
    line("</g>");
  }

  void redeliveries() {
    line("<g id=\"redeliveries\">");
    for (const redelivery& rd : spans_.redeliveries) {
      if (!rd.from_lease || !rd.to_lease) continue;
      const lease_span& from = spans_.leases[*rd.from_lease];
      const lease_span& to = spans_.leases[*rd.to_lease];
      const auto from_lane = lane_of(from.worker);
      const auto to_lane = lane_of(to.worker);
      if (!from_lane || !to_lane) continue;
      const std::int64_t half = (worker_lane_height - 80) / 2;
      const std::int64_t x1 = time_.at(rd.at.us());
      const std::int64_t y1 = lane_y(*from_lane) + half;
      const std::int64_t x2 = time_.at(to.start.us());
      const std::int64_t y2 = lane_y(*to_lane) + half;
      std::string d;
      if (*from_lane == *to_lane)
        d = fmt::format("M{},{} C{},{} {},{} {},{}", px(x1), px(y1 - 100), px(x1 + 200), px(y1 - 300), px(x2 + 200),
                        px(y2 - 300), px(x2 + 20), px(y2 - 100));
      else
        d = fmt::format("M{},{} C{},{} {},{} {},{}", px(x1), px(y1), px(x1 + 350), px(y1), px(x2 + 350), px(y2),
                        px(x2 + 20), px(y2 + (y2 > y1 ? -60 : 60)));
      line(fmt::format("<path class=\"redelivery\" data-job=\"{}\" d=\"{}\" marker-end=\"url(#arrowhead)\"><title>{} "
                       "{} redelivered: its lease ran out on {}; {} takes delivery {} at {}</title></path>",
                       esc(rd.job), d, secs(rd.at), esc(rd.job), esc(from.worker), esc(to.worker), to.receive_count,
                       secs(to.start)));
    }
    line("</g>");
  }

  void violation_lines(std::int64_t bottom) {
    std::int64_t n = 0;
    for (const verdict& v : s_.verdicts) {
      if (v.held || !v.first_violation) continue;
      const std::int64_t x = time_.at(v.first_violation->us());
      const bool left = x > plot_left + (plot_right - plot_left) * 3 / 4;
      line(fmt::format("<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>",
                       esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail)));
      line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(timeline_top - 60),
                       px(bottom + 40)));
      line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{} violated</text>", px(left ? x - 40 : x + 40),
                       px(bottom + 340 + n * 140), left ? "end" : "start", esc(v.name)));
      line("</g>");
      ++n;
    }
  }

  void legend() {
    line("<div class=\"legend\" id=\"timeline-legend\">");
    auto item = [&](std::string_view color, std::string_view border, std::string_view text) {
      line(fmt::format("<span><span class=\"swatch\" style=\"background:{};border-color:{}\"></span>{}</span>", color,
                       border, text));
    };
    item("#cfe2ff", "#6c9bd6", "lease (receive to ack, nack, expiry or crash; the end cap's colour says which)");
    item("#9aa5b1", "#5f6b78", "tool call (read)");
    item("#b9a6e0", "#6d56a8", "model call");
    item("#f2b36b", "#c0392b", "payment call; red outline: it made a refund");
    item("#2e8b46", "#2e8b46", "vendor refund");
    item("#c0392b", "#c0392b", "second refund of one invoice, crash or kill (&#x2715;), violation");
    item("#e09a00", "#8a5a00", "lease expired (&#x25c6;) and its redelivery (dashed arrow)");
    item("#ffe8a3", "#d6b656", "deploy window");
    item("#eceff2", "#b7c0ca", "pod down");
    line("</div>");
  }

  // ---- queue depth --------------------------------------------------------------
  void queue_depth() {
    line("<section id=\"queue-depth-section\">");
    line("<h2>Queue depth</h2>");
    if (spans_.samples.empty()) {
      line("<p id=\"queue-depth\" class=\"empty\">The broker was not sampled in this run.</p>");
      line("</section>");
      return;
    }
    std::int64_t top = 1;
    for (const queue_sample& q : spans_.samples)
      top = std::max({top, q.visible, q.delayed, q.in_flight, q.dead_letters});
    const std::int64_t chart_top = 250, chart_height = 1000, height = 1550;
    const axis value{chart_top + chart_height, -chart_height, top};
    line(fmt::format("<svg id=\"queue-depth\" role=\"img\" aria-label=\"queue depth over time\" width=\"{}\" "
                     "height=\"{}\" viewBox=\"0 0 {} {}\" data-max=\"{}\">",
                     px(page_width), px(height), px(page_width), px(height), top));
    line("<g class=\"axis\">");
    for (std::int64_t v : {std::int64_t{0}, top}) {
      line(fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", px(plot_left), px(value.at(v)),
                       px(plot_right)));
      line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(plot_left - 60), px(value.at(v) + 40),
                       v));
    }
    const std::int64_t step = nice_step(time_.span, 12);
    for (std::int64_t t = 0; t <= time_.span; t += step)
      line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(time_.at(t)),
                       px(chart_top + chart_height + 180), short_secs(t)));
    line("</g>");
    struct series {
      std::string_view name, label;
      std::int64_t queue_sample::*field;
    };
    const series all[] = {{"visible", "visible", &queue_sample::visible},
                          {"in_flight", "in flight", &queue_sample::in_flight},
                          {"delayed", "delayed", &queue_sample::delayed},
                          {"dead_letters", "dead letters", &queue_sample::dead_letters}};
    std::int64_t legend_x = plot_left;
    for (const series& sr : all) {
      std::string points;
      std::optional<std::int64_t> last;
      std::int64_t peak = 0;
      for (const queue_sample& q : spans_.samples) {
        const std::int64_t v = q.*sr.field;
        peak = std::max(peak, v);
        const std::int64_t x = time_.at(q.at.us());
        if (last && *last == v) continue;  // a step: draw only the changes
        if (last) points += fmt::format("{},{} ", px(x), px(value.at(*last)));
        points += fmt::format("{},{} ", px(x), px(value.at(v)));
        last = v;
      }
      if (last) points += fmt::format("{},{}", px(time_.at(time_.span)), px(value.at(*last)));
      line(fmt::format("<polyline class=\"series series-{}\" data-series=\"{}\" data-peak=\"{}\" points=\"{}\"><title>{}, "
                       "at most {}</title></polyline>",
                       sr.name, sr.name, peak, points, sr.label, peak));
      line(fmt::format("<g class=\"series-key\"><line class=\"series series-{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\"/>"
                       "<text x=\"{4}\" y=\"{5}\">{6} (peak {7})</text></g>",
                       sr.name, px(legend_x), px(100), px(legend_x + 250), px(legend_x + 300), px(140), sr.label, peak));
      legend_x += 2200;
    }
    line("</svg>");
    line("</section>");
  }

  // ---- attempts -------------------------------------------------------------------
  void attempts() {
    line("<section id=\"attempts-section\">");
    line("<h2>Attempts</h2>");
    line("<div class=\"charts\">");
    std::map<std::string, std::int64_t, std::less<>> per_job;
    for (const attempt_summary& a : s_.attempts) ++per_job[a.job_id];
    std::map<std::int64_t, std::int64_t> histogram;  // attempts -> jobs
    for (const auto& [job, n] : per_job) ++histogram[n];
    const std::int64_t without = static_cast<std::int64_t>(s_.jobs_total) - static_cast<std::int64_t>(per_job.size());
    if (without > 0) histogram[0] += without;
    const std::int64_t width = 5600, height = 2400, chart_top = 200, chart_height = 1700;
    std::int64_t most = 1, max_attempts = 1;
    for (const auto& [n, jobs] : histogram) {
      most = std::max(most, jobs);
      max_attempts = std::max(max_attempts, n);
    }
    const std::int64_t first = histogram.empty() ? 1 : std::min<std::int64_t>(histogram.begin()->first, 1);
    const std::int64_t buckets = max_attempts - first + 1;
    const std::int64_t left = 700, right = width - 200;
    const std::int64_t slot = (right - left) / buckets;
    const axis value{chart_top + chart_height, -chart_height, most};
    line(fmt::format("<svg id=\"attempts\" role=\"img\" aria-label=\"histogram of attempts per job\" width=\"{}\" "
                     "height=\"{}\" viewBox=\"0 0 {} {}\">",
                     px(width), px(height), px(width), px(height)));
    line(fmt::format("<text x=\"{}\" y=\"{}\">jobs by number of attempts</text>", px(left), px(120)));
    line(fmt::format("<g class=\"axis\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", px(left),
                     px(chart_top + chart_height), px(right)));
    line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></g>", px(left - 60), px(value.at(most) + 40),
                     most));
    for (std::int64_t n = first; n <= max_attempts; ++n) {
      const auto it = histogram.find(n);
      const std::int64_t jobs = it == histogram.end() ? 0 : it->second;
      const std::int64_t x = left + (n - first) * slot;
      const std::int64_t y = value.at(jobs);
      line(fmt::format("<rect class=\"bar\" data-attempts=\"{}\" data-jobs=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
                       "height=\"{}\"><title>{} job{} with {} attempt{}</title></rect>",
                       n, jobs, px(x + slot / 8), px(y), px(slot * 3 / 4), px(chart_top + chart_height - y), jobs,
                       jobs == 1 ? "" : "s", n, n == 1 ? "" : "s"));
      if (buckets <= 30) {
        line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x + slot / 2),
                         px(chart_top + chart_height + 180), n));
        if (jobs > 0)
          line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x + slot / 2), px(y - 40),
                           jobs));
      }
    }
    line("</svg>");
    attempt_table();
    line("</div>");
    line("</section>");
  }

  void attempt_table() {
    line("<table id=\"attempt-table\">");
    line("<thead><tr><th>job</th><th class=\"num\">attempt</th><th>worker</th><th>key</th><th>new write</th>"
         "<th>outcome</th><th class=\"num\">backoff</th></tr></thead><tbody>");
    constexpr std::size_t shown = 200;
    for (std::size_t i = 0; i < s_.attempts.size() && i < shown; ++i) {
      const attempt_summary& a = s_.attempts[i];
      line(fmt::format("<tr data-job=\"{}\" data-attempt=\"{}\"><td>{}</td><td class=\"num\">{}</td><td>{}</td>"
                       "<td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                       esc(a.job_id), a.attempt, esc(a.job_id), a.attempt, esc(a.worker), esc(key_text(a.key)),
                       a.new_write ? "yes" : "no", esc(a.outcome),
                       a.backoff_us > 0 ? esc(sim::format_duration(sim::duration::from_us(a.backoff_us))) : ""));
    }
    if (s_.attempts.size() > shown)
      line(fmt::format("<tr><td colspan=\"7\">and {} more attempts</td></tr>", s_.attempts.size() - shown));
    line("</tbody></table>");
  }

  // ---- backoff --------------------------------------------------------------------
  void backoff() {
    line("<section id=\"backoff-section\">");
    line("<h2>Backoff delays against the cap</h2>");
    const std::vector<backoff_point>& points = spans_.backoffs;
    if (points.empty()) {
      line("<p id=\"backoff\" class=\"empty\">No backoff in this run: nothing was retried.</p>");
      line("</section>");
      return;
    }
    const std::int64_t cap = points.front().cap_us;
    const bool capped = cap < uncapped_ceiling.us();
    std::int64_t biggest = 1;
    for (const backoff_point& b : points) biggest = std::max({biggest, b.delay_us, b.envelope_us});
    // The cap is the top of the chart unless it dwarfs every delay.
    const bool cap_on_chart = capped && cap <= biggest * 10;
    const std::int64_t top = cap_on_chart ? std::max(cap, biggest) : biggest;
    const std::int64_t width = 12000, height = 2600, chart_top = 300, chart_height = 1800;
    const std::int64_t left = plot_left, right = plot_right;
    const std::int64_t n = static_cast<std::int64_t>(points.size());
    const std::int64_t slot = std::max<std::int64_t>((right - left) / std::max<std::int64_t>(n, 1), 1);
    const axis value{chart_top + chart_height, -chart_height, top};
    line(fmt::format("<svg id=\"backoff\" role=\"img\" aria-label=\"backoff delays against the cap\" width=\"{}\" "
                     "height=\"{}\" viewBox=\"0 0 {} {}\" data-cap-us=\"{}\" data-capped=\"{}\">",
                     px(width), px(height), px(width), px(height), cap, capped ? "true" : "false"));
    line(fmt::format("<text x=\"{}\" y=\"{}\">each backoff in the order drawn: the delay (dot) under its envelope "
                     "(ring){}</text>",
                     px(left), px(120),
                     !capped        ? ", and NO cap: the envelope grows without bound"
                     : cap_on_chart ? fmt::format(", and the cap {} (dashed)", esc(sim::format_duration(sim::duration::from_us(cap))))
                                    : fmt::format("; the cap {} is far above the chart",
                                                  esc(sim::format_duration(sim::duration::from_us(cap))))));
    line("<g class=\"axis\">");
    for (std::int64_t v : {std::int64_t{0}, top}) {
      line(fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", px(left), px(value.at(v)),
                       px(right)));
      line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", px(left - 60), px(value.at(v) + 40),
                       esc(sim::format_duration(sim::duration::from_us(v)))));
    }
    line("</g>");
    if (cap_on_chart)
      line(fmt::format("<line class=\"cap\" data-cap-us=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\"><title>the cap: "
                       "{4}</title></line>",
                       cap, px(left), px(value.at(cap)), px(right), esc(sim::format_duration(sim::duration::from_us(cap)))));
    for (std::int64_t i = 0; i < n; ++i) {
      const backoff_point& b = points[static_cast<std::size_t>(i)];
      const std::int64_t x = left + i * slot + slot / 2;
      const std::string title = fmt::format(
          "<title>{} {} after attempt {} of {} ({}): delay {}, envelope {}, cap {}{}</title>", secs(b.at), esc(b.worker),
          b.attempt, esc(b.job), esc(b.mode), esc(sim::format_duration(sim::duration::from_us(b.delay_us))),
          esc(sim::format_duration(sim::duration::from_us(b.envelope_us))),
          b.cap_us < uncapped_ceiling.us() ? esc(sim::format_duration(sim::duration::from_us(b.cap_us))) : "none",
          b.retry_after_us > 0 ? ", Retry-After " + esc(sim::format_duration(sim::duration::from_us(b.retry_after_us)))
                               : "");
      line(fmt::format("<circle class=\"backoff-envelope\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"5\">{}</circle>",
                       esc(b.job), px(x), px(value.at(b.envelope_us)), title));
      line(fmt::format("<circle class=\"backoff-delay\" data-job=\"{}\" data-delay-us=\"{}\" data-envelope-us=\"{}\" "
                       "data-cap-us=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\">{}</circle>",
                       esc(b.job), b.delay_us, b.envelope_us, b.cap_us, px(x), px(value.at(b.delay_us)), title));
    }
    line("</svg>");
    line("</section>");
  }

  // ---- ledgers --------------------------------------------------------------------
  void ledgers() {
    line("<section id=\"ledgers\">");
    line("<h2>Our ledger beside the vendor's</h2>");
    line("<div class=\"ledgers\">");
    std::set<std::string, std::less<>> ours_refs, vendor_refs;
    for (const ledger_row& r : ledgers_.ours) ours_refs.insert(r.vendor_ref);
    for (const vendor_refund& r : ledgers_.vendor) vendor_refs.insert(r.id);

    line("<div><h3>Ours</h3><table id=\"ledger-ours\">");
    line("<thead><tr><th>job</th><th>key</th><th class=\"num\">amount</th><th>vendor ref</th></tr></thead><tbody>");
    std::int64_t ours_total = 0;
    for (const ledger_row& r : ledgers_.ours) {
      ours_total = sim::checked_add(ours_total, r.amount_cents, "our ledger's total overflows int64 cents");
      const bool matched = vendor_refs.contains(r.vendor_ref);
      line(fmt::format("<tr class=\"{}\" data-job=\"{}\" data-ref=\"{}\"><td>{}</td><td><code>{}</code></td>"
                       "<td class=\"num\">{}</td><td>{}</td></tr>",
                       matched ? "matched" : "unmatched", esc(r.job_id), esc(r.vendor_ref), esc(r.job_id),
                       esc(key_text(r.key)), money(r.amount_cents), esc(r.vendor_ref.empty() ? "(none)" : r.vendor_ref)));
    }
    line(fmt::format("<tr class=\"total\"><td>{} row{}</td><td></td><td class=\"num\">{}</td><td></td></tr>",
                     ledgers_.ours.size(), ledgers_.ours.size() == 1 ? "" : "s", money(ours_total)));
    line("</tbody></table></div>");

    line("<div><h3>The vendor's</h3><table id=\"ledger-vendor\">");
    line("<thead><tr><th>refund</th><th>invoice</th><th>key</th><th class=\"num\">amount</th><th>at</th></tr></thead>"
         "<tbody>");
    std::int64_t vendor_total = 0;
    for (const vendor_refund& r : ledgers_.vendor) {
      vendor_total = sim::checked_add(vendor_total, r.amount_cents, "the vendor ledger's total overflows int64 cents");
      const bool matched = ours_refs.contains(r.id);
      line(fmt::format("<tr class=\"{}\" data-ref=\"{}\" data-invoice=\"{}\"><td>{}</td><td>{}</td><td><code>{}</code>"
                       "</td><td class=\"num\">{}</td><td>{}</td></tr>",
                       matched ? "matched" : "unmatched", esc(r.id), esc(r.invoice), esc(r.id), esc(r.invoice),
                       esc(key_text(r.idempotency_key.value_or(""))), money(r.amount_cents), secs(r.committed_at)));
    }
    line(fmt::format("<tr class=\"total\"><td>{} refund{}</td><td></td><td></td><td class=\"num\">{}</td><td></td></tr>",
                     ledgers_.vendor.size(), ledgers_.vendor.size() == 1 ? "" : "s", money(vendor_total)));
    line("</tbody></table></div>");
    line("</div>");
    line("<p class=\"meta\">Rows are matched by the vendor's refund id; a highlighted row has no counterpart on the "
         "other side.</p>");
    line("</section>");
  }

  // ---- invariants -----------------------------------------------------------------
  void invariants() {
    line("<section id=\"invariants-section\">");
    line("<h2>Invariants</h2>");
    line("<table id=\"invariants\">");
    line("<thead><tr><th>invariant</th><th>verdict</th><th>detail</th></tr></thead><tbody>");
    for (const verdict& v : s_.verdicts) {
      line(fmt::format("<tr class=\"{}\" id=\"invariant-{}\" data-invariant=\"{}\" data-held=\"{}\"><td><code>{}</code></td>"
                       "<td class=\"verdict\">{}</td><td>{}",
                       v.held ? "held" : "violated", slug(v.name), esc(v.name), v.held ? "true" : "false", esc(v.name),
                       v.held ? "held" : "VIOLATED", esc(v.detail)));
      if (!v.held && !v.evidence.empty()) {
        line("<ul class=\"evidence\">");
        for (const std::string& e : v.evidence) line("<li>" + esc(e) + "</li>");
        line("</ul>");
      }
      line("</td></tr>");
    }
    line("</tbody></table>");
    line("</section>");
  }

  // ---- the story as text ----------------------------------------------------------
  void story() {
    const std::vector<timeline_line> lines = build_timeline(records_);
    line("<section id=\"story-section\">");
    line(fmt::format("<h2>What happened, line by line ({} lines)</h2>", lines.size()));
    line("<details id=\"story\"" + std::string(lines.size() <= 60 ? " open" : "") + ">");
    line("<summary>the timeline as text</summary>");
    line("<table><thead><tr><th class=\"num\">time</th><th>actor</th><th>what happened</th></tr></thead><tbody>");
    for (const timeline_line& t : lines)
      line(fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>", secs(t.at), esc(t.actor),
                       esc(t.text)));
    line("</tbody></table>");
    line("</details>");
    line("</section>");
  }

  const scenario& sc_;
  const run_summary& s_;
  const std::vector<sim::trace_record>& records_;
  const final_ledgers& ledgers_;
  const run_spans spans_;
  std::set<std::string, std::less<>> refund_refs_;
  std::vector<std::string> vendors_;
  std::size_t violations_ = 0;
  axis time_;
  std::string out_;
};

}  // namespace

std::string html_report(const scenario& sc, const run_summary& s, const std::vector<sim::trace_record>& records,
                        const final_ledgers& ledgers) {
  return page(sc, s, records, ledgers).render();
}

}  // namespace twice
