#include "report/timeline_drawing.hpp"

#include "report/html_sections.hpp"
#include "report/text_width.hpp"

// What crosses the timeline's lanes: the time axis and its idle stretches, the deploy windows, the
// redeliveries between lanes and the violations' lines.

namespace twice::html_detail {

void timeline_drawing::draw_time_axis(std::int64_t bottom) {
  html_.line(fmt::format("<g class=\"axis\" id=\"time-axis\" data-end-us=\"{}\" data-breaks=\"{}\">",
                         run_time_.end_us(), run_time_.breaks().size()));
  write_time_ticks(html_, run_time_, top_ - 60, bottom + 40, bottom + 200);
  html_.line("</g>");
}

// Under the axis, how long each idle stretch drawn narrow is.
void timeline_drawing::break_labels(std::int64_t bottom) {
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
    html_.line(
        fmt::format("<text class=\"time-break-label\" data-from-us=\"{}\" data-to-us=\"{}\" x=\"{}\" "
                    "y=\"{}\">{}</text>",
                    b.from_us, b.to_us, px(e.left),
                    px(bottom + 340 + static_cast<std::int64_t>(*break_label_rows_[i]) * label_row), esc(text)));
  }
}

void timeline_drawing::deploy_windows(std::int64_t workers_bottom) {
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

// Every redelivery, or in a job's lane only that job's.
void timeline_drawing::redeliveries(const std::string* job) {
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
    const std::string why = rd.after_backoff ? fmt::format("the backoff after {}'s nack ended", esc(from.worker))
                                             : fmt::format("its lease ran out on {}", esc(from.worker));
    html_.line(
        fmt::format("<path class=\"{}\" data-job=\"{}\" d=\"{}\" marker-end=\"url(#{})\"><title>{} {} "
                    "redelivered: {}; {} takes delivery {} at {}</title></path>",
                    rd.after_backoff ? "redelivery-after-backoff" : "redelivery", esc(rd.job), d,
                    rd.after_backoff ? "arrowhead-backoff" : "arrowhead", secs(rd.at), esc(rd.job), why, esc(to.worker),
                    to.receive_count, secs(to.start)));
  }
  html_.line("</g>");
}

void timeline_drawing::violation_lines(std::int64_t bottom) {
  std::size_t n = 0;
  const std::int64_t first_row = bottom + 340 + static_cast<std::int64_t>(break_rows_) * label_row;
  for (const verdict& v : s_.verdicts) {
    if (v.held || !v.first_violation) continue;
    used_.insert("violation");
    const std::int64_t x = x_of(*v.first_violation);
    const std::string text = violation_text(v);
    html_.line(
        fmt::format("<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>",
                    esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail)));
    html_.line(
        fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(top_ - 60), px(bottom + 40)));
    html_.line(fmt::format(
        "<text x=\"{}\" y=\"{}\">{}</text>", px(beside(x, text_width(text, label_font, true), 40, 0, page_width).left),
        px(first_row + static_cast<std::int64_t>(*violation_label_rows_[n]) * label_row), esc(text)));
    html_.line("</g>");
    ++n;
  }
}

}  // namespace twice::html_detail
