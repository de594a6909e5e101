#include "report/html_timeline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "report/run_summary.hpp"
#include "report/spans.hpp"
#include "scenario/scenario.hpp"

namespace twice::html_detail {

namespace {

// Tenths of a pixel, as every coordinate.
constexpr std::int64_t worker_lane_height = 640;
constexpr std::int64_t vendor_lane_height = 460;
constexpr std::int64_t timeline_top = 640;

class timeline_drawing {
 public:
  timeline_drawing(html_lines& html, const scenario& sc, const run_summary& s,
                   const run_spans& spans, const axis& time)
      : html_(html), sc_(sc), s_(s), spans_(spans), time_(time) {
    for (const refund_mark& r : spans_.refunds) refund_refs_.insert(r.ref);
  }

  // ---- timeline -----------------------------------------------------------------
  void draw() {
    const std::int64_t end_us = time_.span;
    vendors_ = spans_.vendors;
    // The payment vendor (refunds) first: it is the lane people look for.
    std::stable_partition(vendors_.begin(), vendors_.end(), [&](const std::string& v) {
      return std::any_of(spans_.refunds.begin(), spans_.refunds.end(), [&](const refund_mark& r) { return r.vendor == v; });
    });
    const std::size_t lanes = spans_.lanes.size() + vendors_.size();
    const std::int64_t workers_bottom = lane_y(spans_.lanes.size()) - 120;
    const std::int64_t bottom = lanes == 0 ? timeline_top : lane_y(lanes - 1) + vendor_lane_height;
    const std::int64_t height = bottom + 500;

    html_.line("<section id=\"timeline-section\">");
    html_.line("<h2>Timeline</h2>");
    std::string violated;
    for (const verdict& v : s_.verdicts)
      if (!v.held)
        violated += fmt::format("{}<a class=\"violated-name\" href=\"#invariant-{}\">{}</a>", violated.empty() ? "" : ", ",
                                slug(v.name), esc(v.name));
    if (!violated.empty()) html_.line("<p class=\"timeline-violations\">Violated: " + violated + "</p>");
    html_.line(
        fmt::format("<svg id=\"timeline\" role=\"img\" aria-label=\"swimlane timeline\" width=\"{}\" height=\"{}\" "
                    "viewBox=\"0 0 {} {}\" data-end-us=\"{}\">",
                    px(page_width), px(height), px(page_width), px(height), end_us));
    html_.line("<defs>");
    html_.line(
        "<marker id=\"arrowhead\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>");
    html_.line(
        "<marker id=\"arrowhead-backoff\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
        "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\"/></marker>");
    html_.line("<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eceff2\"/>"
               "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b7c0ca\" stroke-width=\"2\"/></pattern>");
    html_.line("</defs>");

    time_axis(bottom);
    // Lane backgrounds under the deploy windows, the windows under what happened.
    html_.line("<g id=\"lane-backgrounds\">");
    for (std::size_t i = 0; i < lanes; ++i)
      html_.line(fmt::format("<rect class=\"lane-bg{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                             i < spans_.lanes.size() ? "" : " vendor-bg", px(plot_left), px(lane_y(i)),
                             px(plot_right - plot_left),
                             px((i < spans_.lanes.size() ? worker_lane_height : vendor_lane_height) - 80)));
    html_.line("</g>");
    deploy_windows(workers_bottom);
    for (std::size_t i = 0; i < spans_.lanes.size(); ++i) worker_lane(i);
    for (std::size_t i = 0; i < vendors_.size(); ++i) vendor_lane(spans_.lanes.size() + i, vendors_[i]);
    redeliveries();
    violation_lines(bottom);
    html_.line("</svg>");
    legend();
    html_.line("</section>");
  }

 private:
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

  void time_axis(std::int64_t bottom) {
    const std::int64_t step = nice_step(time_.span, 12);
    html_.line(fmt::format("<g class=\"axis\" id=\"time-axis\" data-step-us=\"{}\">", step));
    for (std::int64_t t = 0; t <= time_.span; t += step) {
      const std::int64_t x = time_.at(t);
      html_.line(fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x),
                             px(timeline_top - 60), px(bottom + 40)));
      html_.line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x), px(bottom + 200),
                             short_secs(t)));
    }
    html_.line("</g>");
  }

  void deploy_windows(std::int64_t workers_bottom) {
    for (std::size_t i = 0; i < sc_.world.deploys.size(); ++i) {
      const deploy_spec& d = sc_.world.deploys[i];
      // Ends when the last pod is up on the new version.
      sim::instant done = spans_.end;
      bool any = false;
      for (const pod_up& p : spans_.pod_starts) {
        if (!p.worker.starts_with("worker/") || p.at < d.at || p.sha != d.sha) continue;
        done = any ? std::max(done, p.at) : p.at;
        any = true;
      }
      const std::int64_t x0 = time_.at(d.at.us());
      const std::int64_t x1 = std::max(time_.at(done.us()), x0 + 20);
      const std::string what = fmt::format("deploy {} ({})", d.sha,
                                           d.strategy == deploy_strategy::drain ? "drain" : "rolling kill");
      html_.line(
          fmt::format("<g class=\"deploy\" data-sha=\"{}\"><rect class=\"deploy-window\" data-sha=\"{}\" x=\"{}\" "
                      "y=\"{}\" width=\"{}\" height=\"{}\"><title>{} from {} to {}</title></rect>",
                      esc(d.sha), esc(d.sha), px(x0), px(timeline_top - 60), px(x1 - x0),
                      px(workers_bottom - timeline_top + 60), esc(what), secs(d.at), secs(done)));
      html_.line(fmt::format("<text class=\"deploy-label\" x=\"{}\" y=\"{}\">{}</text></g>", px(x0 + 40),
                             px(timeline_top - 340 - static_cast<std::int64_t>(i % 2) * 140), esc(what)));
    }
  }

  void worker_lane(std::size_t lane) {
    const std::string& name = spans_.lanes[lane];
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = worker_lane_height - 80;
    html_.line(fmt::format("<g class=\"lane worker\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
    html_.line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                           px(plot_left - 100), px(y + h / 2 + 40), esc(name)));
    for (const pod_down& d : spans_.pods_down) {
      if (d.worker != name) continue;
      const std::int64_t x0 = time_.at(d.from.us());
      const std::int64_t x1 = std::max(time_.at(d.to.us()), x0 + 10);
      html_.line(fmt::format(
          "<rect class=\"pod-down{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>pod down ({}): "
          "{} to {}</title></rect>",
          d.deploy ? " deploy" : "", px(x0), px(y), px(x1 - x0), px(h), esc(d.why), secs(d.from), secs(d.to)));
    }
    for (const lease_span& l : spans_.leases)
      if (l.worker == name) lease(l, y, h);
    for (const tool_span& t : spans_.tools)
      if (t.actor == name) tool(t, y, h);
    for (const worker_mark& m : spans_.marks)
      if (m.actor == name) mark(m, y, h);
    for (const lease_span& l : spans_.leases)
      if (l.worker == name && l.expired_at) expiry(l, *l.expired_at, y, h);
    html_.line("</g>");
  }

  void lease(const lease_span& l, std::int64_t y, std::int64_t h) {
    const std::int64_t x0 = time_.at(l.start.us());
    const std::int64_t x1 = std::max(time_.at(l.end.us()), x0 + 20);
    std::string attempts;
    for (std::int64_t a : l.attempts) attempts += (attempts.empty() ? "" : ", ") + std::to_string(a);
    html_.line(
        fmt::format("<rect class=\"lease ended-{}\" data-job=\"{}\" data-delivery=\"{}\" data-ended-by=\"{}\" x=\"{}\" "
                    "y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"><title>lease of {} (delivery {}{}) from {} to {}, "
                    "ended by {}</title></rect>",
                    slug(l.ended_by), esc(l.job), l.receive_count, esc(l.ended_by), px(x0), px(y + 60), px(x1 - x0),
                    px(h - 120), esc(l.job), l.receive_count, attempts.empty() ? "" : ", attempts " + attempts,
                    secs(l.start), secs(l.end), esc(l.ended_by)));
    html_.line(fmt::format("<rect class=\"lease-end end-{}\" x=\"{}\" y=\"{}\" width=\"3\" height=\"{}\"/>",
                           slug(l.ended_by), px(x1 - 30), px(y + 60), px(h - 120)));
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
    html_.line(fmt::format(
        "<rect class=\"{}\" data-job=\"{}\" data-tool=\"{}\" data-key=\"{}\" data-attempt=\"{}\" "
        "data-step=\"{}\" data-ref=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} {} step {} "
        "attempt {}, key={}, sha {}: {} -&gt; {}{}</title></rect>",
        cls, esc(t.job), esc(t.tool), esc(t.key), t.attempt, t.step, esc(t.ref), px(x0), px(y + 120), px(x1 - x0),
        px(h - 240), esc(t.tool), esc(t.job), t.step, t.attempt, esc(key_text(t.key)), esc(t.sha), secs(t.start),
        esc(result), t.new_write ? " (new write)" : ""));
    if (paid) {
      const std::int64_t mid = (x0 + x1) / 2;
      const char* anchor = mid > plot_right - 600 ? "end" : mid < plot_left + 600 ? "start" : "middle";
      html_.line(fmt::format("<text class=\"paid-label\" data-ref=\"{}\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">{} "
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
      html_.line(fmt::format("<g class=\"{}\" data-job=\"{}\">{}<path d=\"M{},{} L{},{} M{},{} L{},{}\"/></g>",
                             m.kind == "crash" ? "crash" : "kill", job, title, px(x - r), px(cy - r), px(x + r),
                             px(cy + r), px(x - r), px(cy + r), px(x + r), px(cy - r)));
    } else if (m.kind == "stop" || m.kind == "start" || m.kind == "drain") {
      html_.line(fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\">{}</line>",
                             m.kind == "drain" ? "stop drain" : m.kind, px(x), px(y), px(x), px(y + h), title));
    } else if (m.kind == "ack" || m.kind == "nack") {
      html_.line(fmt::format("<circle class=\"{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"4.5\">{}</circle>", m.kind,
                             job, px(x), px(cy), title));
    } else if (m.kind == "dead_letter") {
      html_.line(fmt::format(
          "<rect class=\"dead-letter\" data-job=\"{}\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\">{}</rect>", job,
          px(x - 45), px(cy - 45), title));
    } else if (m.kind == "job_done" || m.kind == "already_ended") {
      // the ack right after says it
    } else {
      html_.line(fmt::format("<circle class=\"mark mark-{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\">{}</circle>",
                             slug(m.kind), job, px(x), px(y + h - 40), title));
    }
  }

  void expiry(const lease_span& l, sim::instant at, std::int64_t y, std::int64_t h) {
    const std::int64_t x = time_.at(at.us());
    const std::int64_t cy = y + h / 2;
    html_.line(
        fmt::format("<path class=\"expiry\" data-job=\"{}\" d=\"M{},{} L{},{} L{},{} L{},{} z\"><title>{} the lease of "
                    "{} (delivery {}) ran out: the message is visible again</title></path>",
                    esc(l.job), px(x), px(cy - 80), px(x + 60), px(cy), px(x), px(cy + 80), px(x - 60), px(cy),
                    secs(at), esc(l.job), l.receive_count));
  }

  void vendor_lane(std::size_t lane, const std::string& name) {
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = vendor_lane_height - 80;
    html_.line(fmt::format("<g class=\"lane vendor\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
    html_.line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                           px(plot_left - 100), px(y + h / 2 + 40), esc(name)));
    for (const vendor_execution& e : spans_.executions) {
      if (e.vendor != name) continue;
      const std::int64_t x0 = time_.at(e.start.us());
      const std::int64_t x1 = std::max(time_.at(e.end.us()), x0 + 20);
      html_.line(fmt::format(
          "<rect class=\"execution outcome-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>request "
          "{}: executes from {} to {}, {}{}</title></rect>",
          slug(e.outcome), px(x0), px(y + h - 130), px(x1 - x0), px(90), e.req, secs(e.start), secs(e.end),
          esc(e.outcome), e.ref.empty() ? "" : " " + esc(e.ref)));
    }
    const bool label_refunds = spans_.refunds.size() <= 24;
    std::size_t nth_label = 0;
    for (const refund_mark& r : spans_.refunds) {
      if (r.vendor != name) continue;
      const std::int64_t label_y = y + (nth_label++ % 2 == 0 ? 150 : 310);
      const std::int64_t x = time_.at(r.at.us());
      const bool dup = r.nth_for_invoice > 1;
      // The payment vendor's rows are refunds of invoices; a money tool of the
      // scenario's own ("vendor/charge") says its own name.
      const bool refund = r.vendor == "vendor/payments";
      const std::string what = refund ? "refund" : r.vendor.substr(r.vendor.find('/') + 1);
      const std::string target = refund ? "invoice" : "target";
      std::string label = fmt::format("{} {} {}", r.ref, r.invoice, money(r.amount_cents));
      if (dup) label += fmt::format(" \xe2\x80\x94 {} #{} of {}", what, r.nth_for_invoice, r.invoice);
      html_.line(fmt::format(
          "<g class=\"refund{}\" data-ref=\"{}\" data-invoice=\"{}\" data-amount-cents=\"{}\" data-key=\"{}\" "
          "data-nth=\"{}\" data-at-us=\"{}\"><title>{} the vendor commits {} {}: {} {}, {}, key={}{}"
          "</title>",
          dup ? " duplicate" : "", esc(r.ref), esc(r.invoice), r.amount_cents, esc(r.key), r.nth_for_invoice, r.at.us(),
          secs(r.at), esc(what), esc(r.ref), target, esc(r.invoice), money(r.amount_cents), esc(key_text(r.key)),
          dup ? fmt::format(" (the {} {} of this {})", r.nth_for_invoice == 2 ? "second" : "n-th", esc(what), target)
              : ""));
      html_.line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(y - 40), px(y + h)));
      html_.line(fmt::format("<path d=\"M{},{} L{},{} L{},{} z\"/>", px(x - 70), px(y - 40), px(x + 70), px(y - 40),
                             px(x), px(y + 70)));
      // Labels to the left of refunds near the right edge, so they stay on the page.
      const bool left = x > plot_left + (plot_right - plot_left) * 3 / 4;
      if (label_refunds)
        html_.line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>", px(left ? x - 100 : x + 100),
                               px(label_y), left ? "end" : "start", esc(label)));
      html_.line("</g>");
    }
    for (const vendor_mark& m : spans_.vendor_marks) {
      if (m.vendor != name) continue;
      html_.line(fmt::format(
          "<circle class=\"vendor-mark mark-{}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{} {}: {}</title></circle>",
          slug(m.kind), px(time_.at(m.at.us())), px(y + 60), secs(m.at), esc(m.kind), esc(m.text)));
    }
    html_.line("</g>");
  }

  void redeliveries() {
    html_.line("<g id=\"redeliveries\">");
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
      // Orange dashes: a lease ran out (something was lost); blue dots: the
      // backoff a nack asked for ended (the message came back as planned).
      const std::string why = rd.after_backoff
                                  ? fmt::format("the backoff after {}'s nack ended", esc(from.worker))
                                  : fmt::format("its lease ran out on {}", esc(from.worker));
      html_.line(fmt::format("<path class=\"{}\" data-job=\"{}\" d=\"{}\" marker-end=\"url(#{})\"><title>{} {} "
                             "redelivered: {}; {} takes delivery {} at {}</title></path>",
                             rd.after_backoff ? "redelivery-after-backoff" : "redelivery", esc(rd.job), d,
                             rd.after_backoff ? "arrowhead-backoff" : "arrowhead", secs(rd.at), esc(rd.job), why,
                             esc(to.worker), to.receive_count, secs(to.start)));
    }
    html_.line("</g>");
  }

  void violation_lines(std::int64_t bottom) {
    std::int64_t n = 0;
    for (const verdict& v : s_.verdicts) {
      if (v.held || !v.first_violation) continue;
      const std::int64_t x = time_.at(v.first_violation->us());
      const bool left = x > plot_left + (plot_right - plot_left) * 3 / 4;
      html_.line(fmt::format(
          "<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>",
          esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail)));
      html_.line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(timeline_top - 60),
                             px(bottom + 40)));
      html_.line(fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{} violated</text>",
                             px(left ? x - 40 : x + 40), px(bottom + 340 + n * 140), left ? "end" : "start",
                             esc(v.name)));
      html_.line("</g>");
      ++n;
    }
  }

  void legend() {
    html_.line("<div class=\"legend\" id=\"timeline-legend\">");
    auto item = [&](std::string_view color, std::string_view border, std::string_view text) {
      html_.line(fmt::format("<span><span class=\"swatch\" style=\"background:{};border-color:{}\"></span>{}</span>",
                             color, border, text));
    };
    item("#cfe2ff", "#6c9bd6", "lease (receive to ack, nack, expiry or crash; the end cap's colour says which)");
    item("#9aa5b1", "#5f6b78", "tool call (read)");
    item("#b9a6e0", "#6d56a8", "model call");
    item("#f2b36b", "#c0392b", "payment call; red outline: it made a refund");
    item("#2e8b46", "#2e8b46", "vendor refund");
    item("#c0392b", "#c0392b", "second refund of one invoice, crash or kill (&#x2715;), violation");
    item("#e09a00", "#8a5a00", "lease expired (&#x25c6;) and its redelivery (dashed arrow)");
    item("#2f6fce", "#2f6fce", "redelivery when a nack's backoff ended (dotted arrow): nothing was lost");
    item("#ffe8a3", "#d6b656", "deploy window");
    item("#eceff2", "#b7c0ca", "pod down");
    html_.line("</div>");
  }

  html_lines& html_;
  const scenario& sc_;
  const run_summary& s_;
  const run_spans& spans_;
  const axis time_;
  std::set<std::string, std::less<>> refund_refs_;
  std::vector<std::string> vendors_;
};

}  // namespace

void write_timeline(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                    const axis& time) {
  timeline_drawing(html, sc, s, spans, time).draw();
}

}  // namespace twice::html_detail
