#include "report/timeline_drawing.hpp"

#include "report/text_width.hpp"
#include "sim/duration_text.hpp"

// The timeline's labels: their words and their rows above, below and in the lanes (report/label_rows.hpp).

namespace twice::html_detail {

std::vector<label_extent> timeline_drawing::extents_of(const std::vector<pending_label>& labels) {
  std::vector<label_extent> out;
  for (const pending_label& l : labels) out.push_back(l.at);
  return out;
}

// A label starting `offset` right of x, or ending `offset` left of it when
// it would leave the plot there, and within the plot either way.
label_extent timeline_drawing::beside(std::int64_t x, std::int64_t width, std::int64_t offset, std::int64_t lo,
                                      std::int64_t hi) {
  label_extent e = extent_at(x + offset, width, "start");
  if (e.right > hi) e = extent_at(x - offset, width, "end");
  return keep_within(e, lo, hi);
}

void timeline_drawing::lay_out_deploy_labels() {
  std::vector<label_extent> extents;
  for (const deploy_spec& d : sc_.world.deploys)
    extents.push_back(
        beside(run_time_.at(d.at.us()), text_width(deploy_text(d), label_font, true), 40, plot_left, plot_right));
  deploy_label_rows_ = stack_labels(extents, deploy_label_rows, label_gap);
  std::size_t used = 0;
  for (const auto& row : deploy_label_rows_)
    if (row) used = std::max(used, *row + 1);
  top_ = lanes_top_min + static_cast<std::int64_t>(used > 2 ? used - 2 : 0) * label_row;
}

std::string timeline_drawing::deploy_text(const deploy_spec& d) {
  return fmt::format("deploy {} ({})", d.sha, d.strategy == deploy_strategy::drain ? "drain" : "rolling kill");
}

// "17.584s idle", "59m 55s idle": to the millisecond below a minute.
std::string timeline_drawing::idle_text(const time_break& b) {
  const std::int64_t gap = b.to_us - b.from_us;
  return sim::format_clock(sim::duration::from_us(gap), gap >= 60'000'000 ? 0 : 3, true) + " idle";
}

void timeline_drawing::lay_out_break_labels() {
  std::vector<label_extent> extents;
  for (const time_break& b : run_time_.breaks())
    extents.push_back(
        keep_within(extent_at((b.x0 + b.x1) / 2, text_width(idle_text(b), label_font), "middle"), 0, page_width));
  break_label_rows_ = stack_labels(extents, 2, label_gap);
  for (const auto& row : break_label_rows_)
    if (row) break_rows_ = std::max(break_rows_, *row + 1);
}

std::string timeline_drawing::violation_text(const verdict& v) const { return v.name + " violated"; }

void timeline_drawing::lay_out_violation_labels() {
  std::vector<label_extent> extents;
  for (const verdict& v : s_.verdicts) {
    if (v.held || !v.first_violation) continue;
    extents.push_back(
        beside(x_of(*v.first_violation), text_width(violation_text(v), label_font, true), 40, 0, page_width));
  }
  // A row for each if need be: a violation's name is never left out.
  violation_label_rows_ = stack_labels(extents, extents.size(), label_gap);
  for (const auto& row : violation_label_rows_)
    if (row) violation_rows_ = std::max(violation_rows_, *row + 1);
}

// The payment vendor's rows are refunds of invoices; a money tool of the
// scenario's own ("vendor/charge") says its own name.
std::string timeline_drawing::refund_word(const refund_mark& r) {
  return r.vendor == "vendor/payments" ? "refund" : r.vendor.substr(r.vendor.find('/') + 1);
}

// The labels of a vendor's flags, each right of its flag (left of it near
// the right edge), the red ones first: "re_2 inv_17 1999 cents — refund
// #2 of inv_17".
std::vector<pending_label> timeline_drawing::refund_labels(const std::string& vendor) const {
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

}  // namespace twice::html_detail
