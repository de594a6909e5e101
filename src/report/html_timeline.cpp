#include "report/html_timeline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <optional>
#include <set>
#include <string>

#include "report/broker_words.hpp"
#include "report/html_sections.hpp"
#include "report/label_rows.hpp"
#include "report/overpaid_refunds.hpp"
#include <twice/report/run_summary.hpp>
#include <twice/report/spans.hpp>
#include "report/text_width.hpp"
#include "report/time_axis.hpp"
#include "report/timeline_legend.hpp"
#include <twice/scenario/scenario.hpp>
#include "sim/duration_text.hpp"

namespace twice::html_detail {

namespace {

// Tenths of a pixel, as every coordinate.
constexpr std::int64_t worker_lane_height = 640;
constexpr std::int64_t vendor_lane_height = 460;  // with two rows of labels; 160 more a row
constexpr std::size_t vendor_label_rows = 4;
// The lanes start here when the deploys' labels take two rows or fewer.
constexpr std::int64_t lanes_top_min = 640;
constexpr std::int64_t label_row = 140;  // one row of 12 px labels
constexpr std::int64_t label_font = 12;  // px, as the page's svg text
constexpr std::int64_t label_gap = 100;  // between two labels on a row
constexpr std::size_t deploy_label_rows = 4;

// A label waiting for its row: its text, its box and what to write.
struct pending_label {
  label_extent at;
  std::string cls;   // its class attribute
  std::string attrs;  // more attributes (data-ref...)
  std::string text;   // escaped
};

class timeline_drawing {
 public:
  timeline_drawing(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                   const time_axis& time, const std::set<std::string, std::less<>>& overpaying)
      : html_(html), sc_(sc), s_(s), spans_(spans), run_time_(time), duplicate_refs_(overpaying) {
    for (const refund_mark& r : spans_.refunds) refund_refs_.insert(r.ref);
    by_job_ = s_.jobs_total > lane_per_worker_jobs_max;
    if (by_job_) choose_jobs();
    else lanes_ = spans_.lanes;
  }

  // ---- timeline -----------------------------------------------------------------
  void draw() {
    const std::int64_t end_us = run_time_.end_us();
    if (!by_job_) vendors_ = spans_.vendors;
    // The payment vendor (refunds) first: it is the lane people look for.
    std::stable_partition(vendors_.begin(), vendors_.end(), [&](const std::string& v) {
      return std::any_of(spans_.refunds.begin(), spans_.refunds.end(), [&](const refund_mark& r) { return r.vendor == v; });
    });
    // The labels above and below the lanes first: the lanes start under
    // the deploys' rows, and the picture ends under the violations'.
    if (!by_job_) {
      lay_out_deploy_labels();
      lay_out_break_labels();
      lay_out_violation_labels();
    }
    // A vendor's lane is as tall as the rows its flags' labels take.
    for (const std::string& v : vendors_) {
      std::size_t rows = 2;
      for (const auto& row : stack_labels(extents_of(refund_labels(v)), vendor_label_rows, label_gap))
        if (row) rows = std::max(rows, *row + 1);
      vendor_heights_.push_back(vendor_lane_height + static_cast<std::int64_t>(rows - 2) * 160);
    }
    const std::size_t lanes = lanes_.size() + vendors_.size();
    const std::int64_t workers_bottom = lane_y(lanes_.size()) - 120;
    const std::int64_t bottom = lanes == 0 ? top_ : lane_y(lanes - 1) + lane_height(lanes - 1);
    const std::int64_t label_rows = static_cast<std::int64_t>(break_rows_ + violation_rows_);
    const std::int64_t height = bottom + std::max<std::int64_t>(500, 340 + label_rows * label_row + 60);

    html_.line("<section id=\"timeline-section\">");
    html_.line("<h2>Timeline</h2>");
    std::string violated;
    for (const verdict& v : s_.verdicts)
      if (!v.held)
        violated += fmt::format("{}<a class=\"violated-name\" href=\"#invariant-{}\">{}</a>", violated.empty() ? "" : ", ",
                                slug(v.name), esc(v.name));
    if (!violated.empty()) html_.line("<p class=\"timeline-violations\">Violated: " + violated + "</p>");
    if (spans_.end.us() > end_us)
      html_.line(fmt::format("<p class=\"meta\" id=\"after-story\" data-end-us=\"{}\" data-last-event-us=\"{}\">The "
                             "axis ends where the story ended, at {}; what the models did after it, until {} (work "
                             "nobody waited for, a retention running out), is not drawn.</p>",
                             end_us, spans_.end.us(), secs(end_us), secs(spans_.end)));
    if (by_job_)
      html_.line(fmt::format(
          "<p class=\"meta\" id=\"timeline-jobs\" data-shown=\"{}\" data-jobs=\"{}\">A lane per job, for {} of the "
          "{} jobs: {} named by a violation, and a sample of {} (the first received and the most attempted). The "
          "charts below count every job.</p>",
          lanes_.size(), s_.jobs_total, lanes_.size(), s_.jobs_total, violating_jobs_, lanes_.size() - violating_jobs_));
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
    html_.line("<pattern id=\"outage-hatch\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(-45)\"><rect width=\"8\" height=\"8\" fill=\"#dfe6ee\"/>"
               "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#7d8b9b\" stroke-width=\"3\"/></pattern>");
    html_.line("</defs>");

    if (!by_job_) draw_time_axis(bottom);
    // Lane backgrounds under the deploy windows, the windows under what happened.
    html_.line("<g id=\"lane-backgrounds\">");
    for (std::size_t i = 0; i < lanes; ++i)
      html_.line(fmt::format("<rect class=\"lane-bg{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                             i < lanes_.size() ? "" : " vendor-bg", px(plot_left), px(lane_y(i)),
                             px(plot_right - plot_left),
                             px(lane_height(i) - 80)));
    html_.line("</g>");
    // The idle stretches drawn narrow, under what crosses them.
    if (!by_job_) write_time_breaks(html_, run_time_, top_ - 60, bottom + 40);
    if (!by_job_) deploy_windows(workers_bottom);
    for (std::size_t i = 0; i < lanes_.size(); ++i) worker_lane(i);
    for (std::size_t i = 0; i < vendors_.size(); ++i) vendor_lane(lanes_.size() + i, vendors_[i]);
    if (!by_job_) {
      redeliveries(nullptr);
      break_labels(bottom);
      violation_lines(bottom);
    }
    html_.line("</svg>");
    legend();
    html_.line("</section>");
  }

 private:
  std::int64_t lane_y(std::size_t lane) const {
    const std::size_t workers = lanes_.size();
    if (lane < workers) return top_ + static_cast<std::int64_t>(lane) * worker_lane_height;
    std::int64_t y = top_ + static_cast<std::int64_t>(workers) * worker_lane_height + 120;
    for (std::size_t v = workers; v < lane; ++v) y += lane_height(v);
    return y;
  }

  std::int64_t lane_height(std::size_t lane) const {
    return lane < lanes_.size() ? worker_lane_height : vendor_heights_[lane - lanes_.size()];
  }

  static std::vector<label_extent> extents_of(const std::vector<pending_label>& labels) {
    std::vector<label_extent> out;
    for (const pending_label& l : labels) out.push_back(l.at);
    return out;
  }

  // On the run's axis, or in a job's lane on the job's own clock.
  std::int64_t x_of(sim::instant t) const {
    return job_time_ ? job_time_->at(t.us() - offset_us_) : run_time_.at(t.us());
  }

  // Labels, most important first, onto `rows` rows; the ones placed written
  // at `row_y(row)`, the others left out (their marks keep their tooltips).
  template <class RowY>
  void write_labels(const std::vector<pending_label>& labels, std::size_t rows, RowY row_y) {
    const auto placed = stack_labels(extents_of(labels), rows, label_gap);
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (!placed[i]) {
        ++labels_left_out_;
        continue;
      }
      html_.line(fmt::format("<text class=\"{}\"{} x=\"{}\" y=\"{}\">{}</text>", labels[i].cls, labels[i].attrs,
                             px(labels[i].at.left), px(row_y(*placed[i])), labels[i].text));
    }
  }

  // A label starting `offset` right of x, or ending `offset` left of it when
  // it would leave the plot there, and within the plot either way.
  static label_extent beside(std::int64_t x, std::int64_t width, std::int64_t offset, std::int64_t lo,
                             std::int64_t hi) {
    label_extent e = extent_at(x + offset, width, "start");
    if (e.right > hi) e = extent_at(x - offset, width, "end");
    return keep_within(e, lo, hi);
  }

  void lay_out_deploy_labels() {
    std::vector<label_extent> extents;
    for (const deploy_spec& d : sc_.world.deploys)
      extents.push_back(beside(run_time_.at(d.at.us()), text_width(deploy_text(d), label_font, true), 40, plot_left,
                               plot_right));
    deploy_label_rows_ = stack_labels(extents, deploy_label_rows, label_gap);
    std::size_t used = 0;
    for (const auto& row : deploy_label_rows_)
      if (row) used = std::max(used, *row + 1);
    top_ = lanes_top_min + static_cast<std::int64_t>(used > 2 ? used - 2 : 0) * label_row;
  }

  static std::string deploy_text(const deploy_spec& d) {
    return fmt::format("deploy {} ({})", d.sha, d.strategy == deploy_strategy::drain ? "drain" : "rolling kill");
  }

  // "17.584s idle", "59m 55s idle": to the millisecond below a minute.
  static std::string idle_text(const time_break& b) {
    const std::int64_t gap = b.to_us - b.from_us;
    return sim::format_clock(sim::duration::from_us(gap), gap >= 60'000'000 ? 0 : 3, true) + " idle";
  }

  void lay_out_break_labels() {
    std::vector<label_extent> extents;
    for (const time_break& b : run_time_.breaks())
      extents.push_back(keep_within(extent_at((b.x0 + b.x1) / 2, text_width(idle_text(b), label_font), "middle"), 0,
                                    page_width));
    break_label_rows_ = stack_labels(extents, 2, label_gap);
    for (const auto& row : break_label_rows_)
      if (row) break_rows_ = std::max(break_rows_, *row + 1);
  }

  std::string violation_text(const verdict& v) const { return v.name + " violated"; }

  void lay_out_violation_labels() {
    std::vector<label_extent> extents;
    for (const verdict& v : s_.verdicts) {
      if (v.held || !v.first_violation) continue;
      extents.push_back(beside(x_of(*v.first_violation), text_width(violation_text(v), label_font, true), 40, 0,
                               page_width));
    }
    // A row for each if need be: a violation's name is never left out.
    violation_label_rows_ = stack_labels(extents, extents.size(), label_gap);
    for (const auto& row : violation_label_rows_)
      if (row) violation_rows_ = std::max(violation_rows_, *row + 1);
  }

  std::optional<std::size_t> lane_of(const std::string& actor) const {
    for (std::size_t i = 0; i < lanes_.size(); ++i)
      if (lanes_[i] == actor) return i;
    return std::nullopt;
  }

  void draw_time_axis(std::int64_t bottom) {
    html_.line(fmt::format("<g class=\"axis\" id=\"time-axis\" data-end-us=\"{}\" data-breaks=\"{}\">",
                           run_time_.end_us(), run_time_.breaks().size()));
    write_time_ticks(html_, run_time_, top_ - 60, bottom + 40, bottom + 200);
    html_.line("</g>");
  }

  // Under the axis, how long each idle stretch drawn narrow is.
  void break_labels(std::int64_t bottom) {
    const auto& breaks = run_time_.breaks();
    for (std::size_t i = 0; i < breaks.size(); ++i) {
      if (!break_label_rows_[i]) {
        ++labels_left_out_;
        continue;
      }
      const time_break& b = breaks[i];
      const std::string text = idle_text(b);
      const label_extent e =
          keep_within(extent_at((b.x0 + b.x1) / 2, text_width(text, label_font), "middle"), 0, page_width);
      html_.line(fmt::format("<text class=\"time-break-label\" data-from-us=\"{}\" data-to-us=\"{}\" x=\"{}\" "
                             "y=\"{}\">{}</text>",
                             b.from_us, b.to_us, px(e.left),
                             px(bottom + 340 + static_cast<std::int64_t>(*break_label_rows_[i]) * label_row),
                             esc(text)));
    }
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
      const std::int64_t x0 = x_of(d.at);
      const std::int64_t x1 = std::max(x_of(done), x0 + 20);
      used_.insert("deploy");
      const std::string what = deploy_text(d);
      html_.line(
          fmt::format("<g class=\"deploy\" data-sha=\"{}\"><rect class=\"deploy-window\" data-sha=\"{}\" x=\"{}\" "
                      "y=\"{}\" width=\"{}\" height=\"{}\"><title>{} from {} to {}</title></rect>",
                      esc(d.sha), esc(d.sha), px(x0), px(top_ - 60), px(x1 - x0), px(workers_bottom - top_ + 60),
                      esc(what), secs(d.at), secs(done)));
      if (const auto row = deploy_label_rows_[i])
        html_.line(fmt::format("<text class=\"deploy-label\" x=\"{}\" y=\"{}\">{}</text>",
                               px(beside(x0, text_width(what, label_font, true), 40, plot_left, plot_right).left),
                               px(top_ - 340 - static_cast<std::int64_t>(*row) * label_row), esc(what)));
      else
        ++labels_left_out_;
      html_.line("</g>");
    }
  }

  void worker_lane(std::size_t lane) {
    const std::string& name = lanes_[lane];
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = worker_lane_height - 80;
    html_.line(fmt::format("<g class=\"lane {}\" data-lane=\"{}\" id=\"lane-{}\">", by_job_ ? "job" : "worker",
                           esc(name), slug(name)));
    if (by_job_) zoom_to_job(name, y, h);
    lane_label(name, y, h);
    for (const pod_down& d : spans_.pods_down) {
      if (by_job_ || d.worker != name) continue;
      used_.insert("pod-down");
      const std::int64_t x0 = x_of(d.from);
      const std::int64_t x1 = std::max(x_of(d.to), x0 + 10);
      html_.line(fmt::format(
          "<rect class=\"pod-down{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>pod down ({}): "
          "{} to {}</title></rect>",
          d.deploy ? " deploy" : "", px(x0), px(y), px(x1 - x0), px(h), esc(d.why), secs(d.from), secs(d.to)));
    }
    for (const lease_span& l : spans_.leases)
      if ((by_job_ ? l.job : l.worker) == name) lease(l, y, h);
    std::vector<pending_label> paid, paid_twice;
    for (const tool_span& t : spans_.tools)
      if ((by_job_ ? t.job : t.actor) == name) tool(t, y, h, duplicate_refs_.contains(t.ref) ? paid_twice : paid);
    // The red ones first: a label that does not fit is left out.
    paid_twice.insert(paid_twice.end(), paid.begin(), paid.end());
    write_labels(paid_twice, 1, [&](std::size_t) { return y - 30; });
    for (const worker_mark& m : spans_.marks)
      if ((by_job_ ? m.job : m.actor) == name) mark(m, y, h);
    for (const lease_span& l : spans_.leases)
      if ((by_job_ ? l.job : l.worker) == name && l.expired_at) expiry(l, *l.expired_at, y, h);
    if (by_job_) {
      redeliveries(&name);
      lane_violations(y, h);
      job_time_.reset();
      offset_us_ = 0;
    }
    html_.line("</g>");
  }

  // A job's lane runs on the job's own clock, from a little before its first
  // receive to a little after its end, and says so under its name: on the
  // run's clock a job of seconds in a run of hours is a hairline. The deploy
  // windows that overlap it are drawn inside it.
  void zoom_to_job(const std::string& job, std::int64_t y, std::int64_t h) {
    std::optional<sim::instant> from, to;
    auto cover = [&](sim::instant a, sim::instant b) {
      from = from ? std::min(*from, a) : a;
      to = to ? std::max(*to, b) : b;
    };
    for (const lease_span& l : spans_.leases)
      if (l.job == job) cover(l.start, l.end);
    for (const tool_span& t : spans_.tools)
      if (t.job == job) cover(t.start, t.end);
    for (const worker_mark& m : spans_.marks)
      if (m.job == job) cover(m.at, m.at);
    if (!from) return;
    const std::int64_t span = std::max<std::int64_t>((*to - *from).us(), 1'000);
    const std::int64_t t0 = std::max<std::int64_t>(from->us() - span / 20, 0);
    const std::int64_t t1 = to->us() + span / 20;
    job_time_ = axis{plot_left, plot_right - plot_left, t1 - t0};
    offset_us_ = t0;
    // One line when it fits the margin, else the start and the end on two.
    const std::string one = millis(t0) + " to " + millis(t1);
    const bool fits = text_width(one, 11) <= lane_label_room;
    html_.line(fmt::format("<text class=\"lane-time\" data-from-us=\"{}\" data-to-us=\"{}\" x=\"{}\" y=\"{}\" "
                           "text-anchor=\"end\">{}</text>",
                           t0, t1, px(plot_left - 100), px(y + h / 2 + (fits ? 200 : 170)),
                           fits ? one
                                : fmt::format("{} to<tspan x=\"{}\" dy=\"13\">{}</tspan>", millis(t0),
                                              px(plot_left - 100), millis(t1))));
    for (const deploy_spec& d : sc_.world.deploys) {
      if (d.at.us() > t1) continue;
      used_.insert("deploy");
      const std::int64_t x0 = x_of(d.at);
      html_.line(fmt::format("<rect class=\"deploy-window\" data-sha=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
                             "<title>deploy {} from {}</title></rect>",
                             esc(d.sha), px(x0), px(y), px(std::max<std::int64_t>(plot_right - x0, 20)), px(h),
                             esc(d.sha), secs(d.at)));
    }
  }

  // "233.407s", "1h 0m 5.123s": to the millisecond, for the lane's margin.
  static std::string millis(std::int64_t us) { return sim::format_clock(sim::duration::from_us(us), 3); }

  // The room left of the plot for a lane's name and times.
  static constexpr std::int64_t lane_label_room = plot_left - 100 - 40;

  // A lane's name, shortened in the middle when the margin is too narrow
  // for it (the whole name in its tooltip).
  void lane_label(const std::string& name, std::int64_t y, std::int64_t h) {
    const std::string shown = shortened_to(name, lane_label_room, label_font, true);
    html_.line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>",
                           px(plot_left - 100), px(y + h / 2 + 40), esc(shown),
                           shown == name ? "" : "<title>" + esc(name) + "</title>"));
  }

  // In a job's lane, the moments an invariant first broke within its span.
  void lane_violations(std::int64_t y, std::int64_t h) {
    for (const verdict& v : s_.verdicts) {
      if (v.held || !v.first_violation) continue;
      const std::int64_t at = v.first_violation->us() - offset_us_;
      if (at < 0 || at > job_time_->span) continue;
      used_.insert("violation");
      const std::int64_t x = x_of(*v.first_violation);
      html_.line(fmt::format("<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>"
                             "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/></g>",
                             esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail),
                             px(x), px(y), px(x), px(y + h)));
    }
  }

  void lease(const lease_span& l, std::int64_t y, std::int64_t h) {
    const std::int64_t x0 = x_of(l.start);
    const std::int64_t x1 = std::max(x_of(l.end), x0 + 20);
    std::string attempts;
    for (std::int64_t a : l.attempts) attempts += (attempts.empty() ? "" : ", ") + std::to_string(a);
    used_.insert("lease");
    used_.insert(end_key(l.ended_by));
    html_.line(
        fmt::format("<rect class=\"lease ended-{}\" data-job=\"{}\" data-delivery=\"{}\" data-ended-by=\"{}\" x=\"{}\" "
                    "y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"><title>{} holds {} (delivery {}{}) from {} to {}, "
                    "ended by {}</title></rect>",
                    slug(l.ended_by), esc(l.job), l.receive_count, esc(l.ended_by), px(x0), px(y + 60), px(x1 - x0),
                    px(h - 120), esc(l.worker), esc(l.job), l.receive_count,
                    attempts.empty() ? "" : ", attempts " + attempts, secs(l.start), secs(l.end),
                    esc(words_.ended_by(l.ended_by))));
    html_.line(fmt::format("<rect class=\"lease-end end-{}\" x=\"{}\" y=\"{}\" width=\"3\" height=\"{}\"/>",
                           slug(l.ended_by), px(x1 - 30), px(y + 60), px(h - 120)));
  }

  void tool(const tool_span& t, std::int64_t y, std::int64_t h, std::vector<pending_label>& labels) {
    const std::int64_t x0 = x_of(t.start);
    const std::int64_t x1 = std::max(x_of(t.end), x0 + 20);
    const bool paid = t.new_write && refund_refs_.contains(t.ref);
    const bool duplicate = paid && duplicate_refs_.contains(t.ref);
    const bool writes = writes_tool(t.tool);
    std::string cls = "tool tool-" + slug(t.tool);
    if (writes) cls += " writes";
    if (t.new_write) cls += " new-write";
    if (paid) cls += " paid";
    if (duplicate) cls += " duplicate-effect";
    if (!t.finished) cls += " interrupted";
    used_.insert(t.tool == "model" ? "tool-model" : writes ? "tool-write" : "tool-read");
    if (t.new_write) used_.insert("new-write");
    if (paid) used_.insert(duplicate ? "paid-duplicate" : "paid");
    if (!t.finished) used_.insert("interrupted");
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
    // Its label above the lane, centred on it, where there is room.
    if (paid) {
      const std::string text = t.tool + " " + t.ref;
      labels.push_back({keep_within(extent_at((x0 + x1) / 2, text_width(text, label_font, true), "middle"),
                                    plot_left, plot_right),
                        duplicate ? "paid-label duplicate-effect" : "paid-label",
                        fmt::format(" data-ref=\"{}\"", esc(t.ref)), esc(text)});
    }
  }

  void mark(const worker_mark& m, std::int64_t y, std::int64_t h) {
    const std::int64_t x = x_of(m.at);
    const std::int64_t cy = y + h / 2;
    const std::string title = "<title>" + secs(m.at) + " " + esc(m.text) + "</title>";
    const std::string job = esc(m.job);
    const bool in_flight = m.text.find("in flight") != std::string::npos;
    if (m.kind == "crash" || (m.kind == "stop" && in_flight)) {
      used_.insert("crash");
      const std::int64_t r = 90;
      html_.line(fmt::format("<g class=\"{}\" data-job=\"{}\">{}<path d=\"M{},{} L{},{} M{},{} L{},{}\"/></g>",
                             m.kind == "crash" ? "crash" : "kill", job, title, px(x - r), px(cy - r), px(x + r),
                             px(cy + r), px(x - r), px(cy + r), px(x + r), px(cy - r)));
    } else if (m.kind == "stop" || m.kind == "start" || m.kind == "drain") {
      used_.insert("start-stop");
      html_.line(fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\">{}</line>",
                             m.kind == "drain" ? "stop drain" : m.kind, px(x), px(y), px(x), px(y + h), title));
    } else if (m.kind == "ack" || m.kind == "nack") {
      used_.insert(m.kind);
      html_.line(fmt::format("<circle class=\"{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"4.5\">{}</circle>", m.kind,
                             job, px(x), px(cy), title));
    } else if (m.kind == "dead_letter") {
      used_.insert("dead-letter");
      html_.line(fmt::format(
          "<rect class=\"dead-letter\" data-job=\"{}\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\">{}</rect>", job,
          px(x - 45), px(cy - 45), title));
    } else if (m.kind == "job_done" || m.kind == "already_ended") {
      // the ack right after says it
    } else {
      used_.insert("mark");
      html_.line(fmt::format("<circle class=\"mark mark-{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\">{}</circle>",
                             slug(m.kind), job, px(x), px(y + h - 40), title));
    }
  }

  void expiry(const lease_span& l, sim::instant at, std::int64_t y, std::int64_t h) {
    const std::int64_t x = x_of(at);
    const std::int64_t cy = y + h / 2;
    used_.insert("expiry");
    html_.line(
        fmt::format("<path class=\"expiry\" data-job=\"{}\" d=\"M{},{} L{},{} L{},{} L{},{} z\"><title>{} {} of "
                    "{} (delivery {}) ran out: the message is {}</title></path>",
                    esc(l.job), px(x), px(cy - 80), px(x + 60), px(cy), px(x), px(cy + 80), px(x - 60), px(cy),
                    secs(at), words_.expired_what, esc(l.job), l.receive_count, words_.again));
  }

  // The payment vendor's rows are refunds of invoices; a money tool of the
  // scenario's own ("vendor/charge") says its own name.
  static std::string refund_word(const refund_mark& r) {
    return r.vendor == "vendor/payments" ? "refund" : r.vendor.substr(r.vendor.find('/') + 1);
  }

  // The labels of a vendor's flags, each right of its flag (left of it near
  // the right edge), the red ones first: "re_2 inv_17 1999 cents — refund
  // #2 of inv_17".
  std::vector<pending_label> refund_labels(const std::string& vendor) const {
    std::vector<pending_label> labels, red;
    for (const refund_mark& r : spans_.refunds) {
      if (r.vendor != vendor) continue;
      std::string label = fmt::format("{} {} {}", r.ref, r.invoice, cents(r.amount_cents));
      if (r.nth_for_invoice > 1)
        label += fmt::format(" \xe2\x80\x94 {} #{} of {}", refund_word(r), r.nth_for_invoice, r.invoice);
      const bool dup = duplicate_refs_.contains(r.ref);
      (dup ? red : labels)
          .push_back({beside(x_of(r.at), text_width(label, label_font, true), 100, plot_left, plot_right),
                      dup ? "refund-label duplicate" : "refund-label", fmt::format(" data-ref=\"{}\"", esc(r.ref)),
                      esc(label)});
    }
    red.insert(red.end(), labels.begin(), labels.end());
    return red;
  }

  void vendor_lane(std::size_t lane, const std::string& name) {
    const std::int64_t y = lane_y(lane);
    const std::int64_t h = lane_height(lane) - 80;
    html_.line(fmt::format("<g class=\"lane vendor\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
    lane_label(name, y, h);
    fault_windows(name, y, h);
    for (const vendor_execution& e : spans_.executions) {
      if (e.vendor != name) continue;
      used_.insert(e.outcome == "committed" ? "execution-committed"
                   : e.outcome == "error"   ? "execution-error"
                                            : "execution");
      const std::int64_t x0 = x_of(e.start);
      const std::int64_t x1 = std::max(x_of(e.end), x0 + 20);
      html_.line(fmt::format(
          "<rect class=\"execution outcome-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>request "
          "{}: executes from {} to {}, {}{}</title></rect>",
          slug(e.outcome), px(x0), px(y + h - 130), px(x1 - x0), px(90), e.req, secs(e.start), secs(e.end),
          esc(e.outcome), e.ref.empty() ? "" : " " + esc(e.ref)));
    }
    for (const refund_mark& r : spans_.refunds) {
      if (r.vendor != name) continue;
      const std::int64_t x = x_of(r.at);
      const bool dup = duplicate_refs_.contains(r.ref);
      used_.insert(dup ? "refund-duplicate" : "refund");
      const std::string what = refund_word(r);
      const std::string target = r.vendor == "vendor/payments" ? "invoice" : "target";
      html_.line(fmt::format(
          "<g class=\"refund{}\" data-ref=\"{}\" data-invoice=\"{}\" data-amount-cents=\"{}\" data-key=\"{}\" "
          "data-nth=\"{}\" data-at-us=\"{}\"><title>{} the vendor commits {} {}: {} {}, {}, key={}{}"
          "</title>",
          dup ? " duplicate" : "", esc(r.ref), esc(r.invoice), r.amount_cents, esc(r.key), r.nth_for_invoice, r.at.us(),
          secs(r.at), esc(what), esc(r.ref), target, esc(r.invoice), cents(r.amount_cents), esc(key_text(r.key)),
          r.nth_for_invoice > 1 ? fmt::format(" (the {} {} of this {})", r.nth_for_invoice == 2 ? "second" : "n-th", esc(what), target)
              : ""));
      html_.line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(y - 40), px(y + h)));
      html_.line(fmt::format("<path d=\"M{},{} L{},{} L{},{} z\"/>", px(x - 70), px(y - 40), px(x + 70), px(y - 40),
                             px(x), px(y + 70)));
      html_.line("</g>");
    }
    write_labels(refund_labels(name), vendor_label_rows,
                 [&](std::size_t row) { return y + 150 + static_cast<std::int64_t>(row) * 160; });
    for (const vendor_mark& m : spans_.vendor_marks) {
      if (m.vendor != name) continue;
      used_.insert(m.kind == "reject" ? "reject" : m.kind == "replay" ? "replay" : "vendor-mark");
      html_.line(fmt::format(
          "<circle class=\"vendor-mark mark-{}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{} {}: {}</title></circle>",
          slug(m.kind), px(x_of(m.at)), px(y + 60), secs(m.at), esc(m.kind), esc(m.text)));
    }
    html_.line("</g>");
  }

  // Every redelivery, or in a job's lane only that job's.
  void redeliveries(const std::string* job) {
    html_.line(job == nullptr ? "<g id=\"redeliveries\">" : "<g class=\"redeliveries\">");
    for (const redelivery& rd : spans_.redeliveries) {
      if (!rd.from_lease || !rd.to_lease || (job != nullptr && rd.job != *job)) continue;
      const lease_span& from = spans_.leases[*rd.from_lease];
      const lease_span& to = spans_.leases[*rd.to_lease];
      const auto from_lane = lane_of(by_job_ ? from.job : from.worker);
      const auto to_lane = lane_of(by_job_ ? to.job : to.worker);
      if (!from_lane || !to_lane) continue;
      const std::int64_t half = (worker_lane_height - 80) / 2;
      const std::int64_t x1 = x_of(rd.at);
      const std::int64_t y1 = lane_y(*from_lane) + half;
      const std::int64_t x2 = x_of(to.start);
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
      used_.insert(rd.after_backoff ? "redelivery-after-backoff" : "expiry");
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
    std::size_t n = 0;
    const std::int64_t first_row = bottom + 340 + static_cast<std::int64_t>(break_rows_) * label_row;
    for (const verdict& v : s_.verdicts) {
      if (v.held || !v.first_violation) continue;
      used_.insert("violation");
      const std::int64_t x = x_of(*v.first_violation);
      const std::string text = violation_text(v);
      html_.line(fmt::format(
          "<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>",
          esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail)));
      html_.line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(top_ - 60),
                             px(bottom + 40)));
      html_.line(fmt::format("<text x=\"{}\" y=\"{}\">{}</text>",
                             px(beside(x, text_width(text, label_font, true), 40, 0, page_width).left),
                             px(first_row + static_cast<std::int64_t>(*violation_label_rows_[n]) * label_row),
                             esc(text)));
      html_.line("</g>");
      ++n;
    }
  }

  // Above a few dozen jobs, a lane per job for the jobs a violation names,
  // and a small sample of the rest: the first received and the most
  // attempted. Every choice in a fixed order, so the page is the same.
  void choose_jobs() {
    std::vector<std::string> jobs;  // in the order first received
    std::map<std::string, std::size_t, std::less<>> attempts;
    for (const lease_span& l : spans_.leases) {
      if (!attempts.contains(l.job)) jobs.push_back(l.job);
      attempts[l.job] += std::max<std::size_t>(l.attempts.size(), 1);
    }
    auto add = [&](const std::string& job) {
      if (std::find(lanes_.begin(), lanes_.end(), job) == lanes_.end()) lanes_.push_back(job);
    };
    for (const verdict& v : s_.verdicts) {
      if (v.held) continue;
      for (const std::string& job : jobs) {
        if (lanes_.size() >= violating_lanes_max) break;
        if (names_word(v.detail, job) ||
            std::any_of(v.evidence.begin(), v.evidence.end(), [&](const std::string& e) { return names_word(e, job); }))
          add(job);
      }
    }
    violating_jobs_ = lanes_.size();
    for (std::size_t i = 0; i < jobs.size() && i < sample_lanes / 2; ++i) add(jobs[i]);
    std::vector<std::string> most = jobs;
    std::stable_sort(most.begin(), most.end(),
                     [&](const std::string& a, const std::string& b) { return attempts[a] > attempts[b]; });
    for (std::size_t i = 0; i < most.size() && lanes_.size() < violating_jobs_ + sample_lanes; ++i) add(most[i]);
  }

  // The far side's outages and latency spikes, from the tool's settings,
  // across its lane.
  void fault_windows(const std::string& lane, std::int64_t y, std::int64_t h) {
    const service_tool_config* c = tool_config_of(sc_, lane);
    if (c == nullptr) return;
    auto band = [&](const time_window& w, std::string_view cls, const std::string& what) {
      const std::int64_t x0 = x_of(w.begin);
      const std::int64_t x1 = std::max(x_of(w.end), x0 + 20);
      html_.line(fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} from {} to "
                             "{}</title></rect>",
                             cls, px(x0), px(y), px(x1 - x0), px(h), esc(what), secs(w.begin), secs(w.end)));
    };
    for (const time_window& w : c->outages) {
      used_.insert("outage");
      band(w, "outage-window", lane + " outage: every request answers 503");
    }
    for (const latency_spike& sp : c->latency_spikes) {
      used_.insert("spike");
      band(sp.window, "spike-window",
           fmt::format("{} latency spike: executions starting inside take {} more", lane,
                       sim::format_duration(sp.extra)));
    }
  }


  // The tool a step calls by this name changes something at its far side.
  bool writes_tool(const std::string& tool) const {
    // Steps call the payment vendor "refund"; its far side traces as vendor/payments.
    if (tool == "refund") return true;
    const service_tool_config* c = tool_config_of(sc_, "vendor/" + tool);
    return c != nullptr && c->effect == tool_effect::write;
  }

  static std::string end_key(const std::string& ended_by) {
    if (ended_by == "ack" || ended_by == "dead_letter") return "end-done";
    if (ended_by == "nack" || ended_by == "expired") return "end-back";
    if (ended_by == "crash" || ended_by == "stop") return "end-killed";
    return "end-open";
  }

  void legend() { write_timeline_legend(html_, words_, used_, labels_left_out_); }

  html_lines& html_;
  const scenario& sc_;
  const broker_words words_ = words_of(sc_.world);
  const run_summary& s_;
  const run_spans& spans_;
  const time_axis& run_time_;   // the run's, idle stretches compressed
  std::optional<axis> job_time_;  // in a job's lane, the job's own span
  std::int64_t offset_us_ = 0;  // the job's time at its axis's left end
  std::set<std::string, std::less<>> refund_refs_;
  const std::set<std::string, std::less<>>& duplicate_refs_;  // refunds of an invoice found overpaid
  std::int64_t top_ = lanes_top_min;  // the first lane's top
  std::vector<std::optional<std::size_t>> deploy_label_rows_, break_label_rows_, violation_label_rows_;
  std::size_t break_rows_ = 0, violation_rows_ = 0;
  std::size_t labels_left_out_ = 0;  // for want of room
  std::vector<std::int64_t> vendor_heights_;  // a lane's, by its labels' rows
  std::set<std::string, std::less<>> used_;  // the legend's keys of what was drawn
  // A lane per worker up to this many jobs; above, a lane per chosen job.
  static constexpr std::size_t lane_per_worker_jobs_max = 40;
  static constexpr std::size_t violating_lanes_max = 24;
  static constexpr std::size_t sample_lanes = 6;
  bool by_job_ = false;
  std::vector<std::string> lanes_;  // worker actors, or chosen jobs
  std::size_t violating_jobs_ = 0;
  std::vector<std::string> vendors_;
};

}  // namespace

void write_timeline(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                    const time_axis& time, const std::set<std::string, std::less<>>& overpaying) {
  timeline_drawing(html, sc, s, spans, time, overpaying).draw();
}

}  // namespace twice::html_detail
