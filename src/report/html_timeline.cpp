#include "report/html_timeline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "report/html_sections.hpp"
#include "report/timeline_drawing.hpp"
#include "report/timeline_legend.hpp"

// The frame of the timeline: the parts in the order they are drawn (labels
// laid out first, the svg and its markers, lanes, what crosses them, the
// legend), and where each lane lies.

namespace twice::html_detail {

timeline_drawing::timeline_drawing(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                                   const time_axis& time, const std::set<std::string, std::less<>>& overpaying)
    : html_(html), sc_(sc), s_(s), spans_(spans), run_time_(time), duplicate_refs_(overpaying) {
  for (const refund_mark& r : spans_.refunds) refund_refs_.insert(r.ref);
  by_job_ = s_.jobs_total > lane_per_worker_jobs_max;
  if (by_job_)
    choose_jobs();
  else
    lanes_ = spans_.lanes;
}

void timeline_drawing::draw() {
  const std::int64_t end_us = run_time_.end_us();
  if (!by_job_) vendors_ = spans_.vendors;
  // The payment vendor (refunds) first: it is the lane people look for.
  std::stable_partition(vendors_.begin(), vendors_.end(), [&](const std::string& v) {
    return std::any_of(spans_.refunds.begin(), spans_.refunds.end(),
                       [&](const refund_mark& r) { return r.vendor == v; });
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
      violated += fmt::format("{}<a class=\"violated-name\" href=\"#invariant-{}\">{}</a>",
                              violated.empty() ? "" : ", ", slug(v.name), esc(v.name));
  if (!violated.empty()) html_.line("<p class=\"timeline-violations\">Violated: " + violated + "</p>");
  if (spans_.end.us() > end_us)
    html_.line(
        fmt::format("<p class=\"meta\" id=\"after-story\" data-end-us=\"{}\" data-last-event-us=\"{}\">The "
                    "axis ends where the story ended, at {}; what the models did after it, until {} (work "
                    "nobody waited for, a retention running out), is not drawn.</p>",
                    end_us, spans_.end.us(), secs(end_us), secs(spans_.end)));
  if (by_job_)
    html_.line(fmt::format(
        "<p class=\"meta\" id=\"timeline-jobs\" data-shown=\"{}\" data-jobs=\"{}\">A lane per job, for {} of the "
        "{} jobs: {} named by a violation, and a sample of {} (the first received and the most attempted). The "
        "charts below count every job.</p>",
        lanes_.size(), s_.jobs_total, lanes_.size(), s_.jobs_total, violating_jobs_, lanes_.size() - violating_jobs_));
  if (spans_.omitted.jobs > 0) {
    // A bounded collector (span_bound) kept the spans of a sample of the
    // jobs: the lanes above are chosen among them.
    std::set<std::string_view, std::less<>> kept;
    for (const lease_span& l : spans_.leases) kept.insert(l.job);
    const std::size_t omitted = s_.jobs_total > kept.size() ? s_.jobs_total - kept.size() : 0;
    const span_bound& b = spans_.omitted.bound;
    html_.line(fmt::format(
        "<p class=\"meta\" id=\"timeline-omitted\" data-jobs-kept=\"{}\" data-jobs-omitted=\"{}\">The lanes are "
        "chosen among the {} jobs whose spans were kept; the spans of the other {} were dropped as they ended, so "
        "the page's memory follows the open work. Past {} jobs, the spans kept are those of the first {} jobs, of up "
        "to {} jobs each retried, crashed, dead-lettered or paid twice (the most attempted first), and of the jobs "
        "still open.</p>",
        kept.size(), omitted, kept.size(), omitted, b.all_jobs, b.first_jobs, b.per_kind));
  }
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
  html_.line(
      "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eceff2\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b7c0ca\" stroke-width=\"2\"/></pattern>");
  html_.line(
      "<pattern id=\"outage-hatch\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(-45)\"><rect width=\"8\" height=\"8\" fill=\"#dfe6ee\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#7d8b9b\" stroke-width=\"3\"/></pattern>");
  html_.line("</defs>");

  if (!by_job_) draw_time_axis(bottom);
  // Lane backgrounds under the deploy windows, the windows under what happened.
  html_.line("<g id=\"lane-backgrounds\">");
  for (std::size_t i = 0; i < lanes; ++i)
    html_.line(fmt::format("<rect class=\"lane-bg{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                           i < lanes_.size() ? "" : " vendor-bg", px(plot_left), px(lane_y(i)),
                           px(plot_right - plot_left), px(lane_height(i) - 80)));
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

std::int64_t timeline_drawing::lane_y(std::size_t lane) const {
  const std::size_t workers = lanes_.size();
  if (lane < workers) return top_ + static_cast<std::int64_t>(lane) * worker_lane_height;
  std::int64_t y = top_ + static_cast<std::int64_t>(workers) * worker_lane_height + 120;
  for (std::size_t v = workers; v < lane; ++v) y += lane_height(v);
  return y;
}

std::int64_t timeline_drawing::lane_height(std::size_t lane) const {
  return lane < lanes_.size() ? worker_lane_height : vendor_heights_[lane - lanes_.size()];
}

std::int64_t timeline_drawing::x_of(sim::instant t) const {
  return job_time_ ? job_time_->at(t.us() - offset_us_) : run_time_.at(t.us());
}

std::optional<std::size_t> timeline_drawing::lane_of(const std::string& actor) const {
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    if (lanes_[i] == actor) return i;
  return std::nullopt;
}

void timeline_drawing::legend() { write_timeline_legend(html_, words_, used_, labels_left_out_); }

void write_timeline(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                    const time_axis& time, const std::set<std::string, std::less<>>& overpaying) {
  timeline_drawing(html, sc, s, spans, time, overpaying).draw();
}

}  // namespace twice::html_detail
