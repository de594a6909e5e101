#pragma once
// The swimlane timeline as it is drawn (report/html_timeline.hpp writes it):
// one drawing, its parts by concept in their own files:
//   report/html_timeline.cpp          the frame: the order of the parts, the svg, the lanes' geometry
//   report/timeline_labels.cpp        the labels' layout: their text and rows above, below and in the lanes
//   report/timeline_worker_lanes.cpp  a worker's (or a job's) lane: leases, tool calls, marks, expiries
//   report/timeline_vendor_lanes.cpp  a vendor's lane: executions, refunds, outages and spikes
//   report/timeline_overlays.cpp      what crosses the lanes: the time axis, deploys, redeliveries, violations
// Internal to those files.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "report/broker_words.hpp"
#include "report/html_format.hpp"
#include "report/label_rows.hpp"
#include <twice/report/run_summary.hpp>
#include <twice/report/spans.hpp>
#include "report/time_axis.hpp"
#include <twice/scenario/scenario.hpp>

namespace twice::html_detail {

// A label waiting for its row: its text, its box and what to write.
struct pending_label {
  label_extent at;
  std::string cls;    // its class attribute
  std::string attrs;  // more attributes (data-ref...)
  std::string text;   // escaped
};

class timeline_drawing {
 public:
  timeline_drawing(html_lines& html, const scenario& sc, const run_summary& s, const run_spans& spans,
                   const time_axis& time, const std::set<std::string, std::less<>>& overpaying);

  void draw();

 private:
  // Tenths of a pixel, as every coordinate.
  static constexpr std::int64_t worker_lane_height = 640;
  static constexpr std::int64_t vendor_lane_height = 460;  // with two rows of labels; 160 more a row
  static constexpr std::size_t vendor_label_rows = 4;
  // The lanes start here when the deploys' labels take two rows or fewer.
  static constexpr std::int64_t lanes_top_min = 640;
  static constexpr std::int64_t label_row = 140;  // one row of 12 px labels
  static constexpr std::int64_t label_font = 12;  // px, as the page's svg text
  static constexpr std::int64_t label_gap = 100;  // between two labels on a row
  static constexpr std::size_t deploy_label_rows = 4;

  // ---- the frame (html_timeline.cpp) ----
  std::int64_t lane_y(std::size_t lane) const;
  std::int64_t lane_height(std::size_t lane) const;
  // On the run's axis, or in a job's lane on the job's own clock.
  std::int64_t x_of(sim::instant t) const;
  std::optional<std::size_t> lane_of(const std::string& actor) const;
  void legend();

  // ---- the labels (timeline_labels.cpp) ----
  static std::vector<label_extent> extents_of(const std::vector<pending_label>& labels);
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
  static label_extent beside(std::int64_t x, std::int64_t width, std::int64_t offset, std::int64_t lo, std::int64_t hi);
  void lay_out_deploy_labels();
  static std::string deploy_text(const deploy_spec& d);
  static std::string idle_text(const time_break& b);
  void lay_out_break_labels();
  std::string violation_text(const verdict& v) const;
  void lay_out_violation_labels();
  static std::string refund_word(const refund_mark& r);
  std::vector<pending_label> refund_labels(const std::string& vendor) const;

  // ---- what crosses the lanes (timeline_overlays.cpp) ----
  void draw_time_axis(std::int64_t bottom);
  void break_labels(std::int64_t bottom);
  void deploy_windows(std::int64_t workers_bottom);
  void redeliveries(const std::string* job);
  void violation_lines(std::int64_t bottom);

  // ---- a worker's or a job's lane (timeline_worker_lanes.cpp) ----
  void choose_jobs();
  void worker_lane(std::size_t lane);
  void zoom_to_job(const std::string& job, std::int64_t y, std::int64_t h);
  static std::string millis(std::int64_t us);
  // The room left of the plot for a lane's name and times.
  static constexpr std::int64_t lane_label_room = plot_left - 100 - 40;
  void lane_label(const std::string& name, std::int64_t y, std::int64_t h);
  void lane_violations(std::int64_t y, std::int64_t h);
  void lease(const lease_span& l, std::int64_t y, std::int64_t h);
  void tool(const tool_span& t, std::int64_t y, std::int64_t h, std::vector<pending_label>& labels);
  void mark(const worker_mark& m, std::int64_t y, std::int64_t h);
  void expiry(const lease_span& l, sim::instant at, std::int64_t y, std::int64_t h);
  bool writes_tool(const std::string& tool) const;
  static std::string end_key(const std::string& ended_by);

  // ---- a vendor's lane (timeline_vendor_lanes.cpp) ----
  void vendor_lane(std::size_t lane, const std::string& name);
  void fault_windows(const std::string& lane, std::int64_t y, std::int64_t h);

  html_lines& html_;
  const scenario& sc_;
  const broker_words words_ = words_of(sc_.world);
  const run_summary& s_;
  const run_spans& spans_;
  const time_axis& run_time_;     // the run's, idle stretches compressed
  std::optional<axis> job_time_;  // in a job's lane, the job's own span
  std::int64_t offset_us_ = 0;    // the job's time at its axis's left end
  std::set<std::string, std::less<>> refund_refs_;
  const std::set<std::string, std::less<>>& duplicate_refs_;  // refunds of an invoice found overpaid
  std::int64_t top_ = lanes_top_min;                          // the first lane's top
  std::vector<std::optional<std::size_t>> deploy_label_rows_, break_label_rows_, violation_label_rows_;
  std::size_t break_rows_ = 0, violation_rows_ = 0;
  std::size_t labels_left_out_ = 0;           // for want of room
  std::vector<std::int64_t> vendor_heights_;  // a lane's, by its labels' rows
  std::set<std::string, std::less<>> used_;   // the legend's keys of what was drawn
  // A lane per worker up to this many jobs; above, a lane per chosen job.
  static constexpr std::size_t lane_per_worker_jobs_max = 40;
  static constexpr std::size_t violating_lanes_max = 24;
  static constexpr std::size_t sample_lanes = 6;
  bool by_job_ = false;
  std::vector<std::string> lanes_;  // worker actors, or chosen jobs
  std::size_t violating_jobs_ = 0;
  std::vector<std::string> vendors_;
};

}  // namespace twice::html_detail
