#include "report/timeline_drawing.hpp"

#include <algorithm>
#include <map>

#include "report/html_sections.hpp"
#include "report/overpaid_refunds.hpp"
#include "report/text_width.hpp"
#include "sim/duration_text.hpp"

// A worker's lane on the timeline, or above a few dozen jobs a chosen job's on its own clock: the
// leases, the tool calls, the marks (crashes, acks, dead letters) and the leases that ran out.

namespace twice::html_detail {

// Above a few dozen jobs, a lane per job for the jobs a violation names,
// and a small sample of the rest: the first received and the most
// attempted. Every choice in a fixed order, so the page is the same.
void timeline_drawing::choose_jobs() {
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

void timeline_drawing::worker_lane(std::size_t lane) {
  const std::string& name = lanes_[lane];
  const std::int64_t y = lane_y(lane);
  const std::int64_t h = worker_lane_height - 80;
  html_.line(fmt::format("<g class=\"lane {}\" data-lane=\"{}\" id=\"lane-{}\">", by_job_ ? "job" : "worker", esc(name),
                         slug(name)));
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
void timeline_drawing::zoom_to_job(const std::string& job, std::int64_t y, std::int64_t h) {
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
  html_.line(fmt::format(
      "<text class=\"lane-time\" data-from-us=\"{}\" data-to-us=\"{}\" x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">{}</text>",
      t0, t1, px(plot_left - 100), px(y + h / 2 + (fits ? 200 : 170)),
      fits ? one
           : fmt::format("{} to<tspan x=\"{}\" dy=\"13\">{}</tspan>", millis(t0), px(plot_left - 100), millis(t1))));
  for (const deploy_spec& d : sc_.world.deploys) {
    if (d.at.us() > t1) continue;
    used_.insert("deploy");
    const std::int64_t x0 = x_of(d.at);
    html_.line(fmt::format(
        "<rect class=\"deploy-window\" data-sha=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">"
        "<title>deploy {} from {}</title></rect>",
        esc(d.sha), px(x0), px(y), px(std::max<std::int64_t>(plot_right - x0, 20)), px(h), esc(d.sha), secs(d.at)));
  }
}

// "233.407s", "1h 0m 5.123s": to the millisecond, for the lane's margin.
std::string timeline_drawing::millis(std::int64_t us) { return sim::format_clock(sim::duration::from_us(us), 3); }

// A lane's name, shortened in the middle when the margin is too narrow
// for it (the whole name in its tooltip).
void timeline_drawing::lane_label(const std::string& name, std::int64_t y, std::int64_t h) {
  const std::string shown = shortened_to(name, lane_label_room, label_font, true);
  html_.line(fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}{}</text>",
                         px(plot_left - 100), px(y + h / 2 + 40), esc(shown),
                         shown == name ? "" : "<title>" + esc(name) + "</title>"));
}

// In a job's lane, the moments an invariant first broke within its span.
void timeline_drawing::lane_violations(std::int64_t y, std::int64_t h) {
  for (const verdict& v : s_.verdicts) {
    if (v.held || !v.first_violation) continue;
    const std::int64_t at = v.first_violation->us() - offset_us_;
    if (at < 0 || at > job_time_->span) continue;
    used_.insert("violation");
    const std::int64_t x = x_of(*v.first_violation);
    html_.line(
        fmt::format("<g class=\"violation\" data-invariant=\"{}\" data-at-us=\"{}\"><title>{} {} violated: {}</title>"
                    "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/></g>",
                    esc(v.name), v.first_violation->us(), secs(*v.first_violation), esc(v.name), esc(v.detail), px(x),
                    px(y), px(x), px(y + h)));
  }
}

void timeline_drawing::lease(const lease_span& l, std::int64_t y, std::int64_t h) {
  const std::int64_t x0 = x_of(l.start);
  const std::int64_t x1 = std::max(x_of(l.end), x0 + 20);
  std::string attempts;
  for (std::int64_t a : l.attempts) attempts += (attempts.empty() ? "" : ", ") + std::to_string(a);
  used_.insert("lease");
  used_.insert(end_key(l.ended_by));
  html_.line(fmt::format(
      "<rect class=\"lease ended-{}\" data-job=\"{}\" data-delivery=\"{}\" data-ended-by=\"{}\" x=\"{}\" "
      "y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\"><title>{} holds {} (delivery {}{}) from {} to {}, "
      "ended by {}</title></rect>",
      slug(l.ended_by), esc(l.job), l.receive_count, esc(l.ended_by), px(x0), px(y + 60), px(x1 - x0), px(h - 120),
      esc(l.worker), esc(l.job), l.receive_count, attempts.empty() ? "" : ", attempts " + attempts, secs(l.start),
      secs(l.end), esc(words_.ended_by(l.ended_by))));
  html_.line(fmt::format("<rect class=\"lease-end end-{}\" x=\"{}\" y=\"{}\" width=\"3\" height=\"{}\"/>",
                         slug(l.ended_by), px(x1 - 30), px(y + 60), px(h - 120)));
}

void timeline_drawing::tool(const tool_span& t, std::int64_t y, std::int64_t h, std::vector<pending_label>& labels) {
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
  std::string result = !t.finished     ? std::string("no answer: the pod died first")
                       : t.status == 0 ? std::string("timeout")
                                       : std::to_string(t.status);
  if (!t.error.empty()) result += " " + t.error;
  if (!t.ref.empty()) result += " " + t.ref;
  if (t.replayed) result += " (replayed)";
  html_.line(
      fmt::format("<rect class=\"{}\" data-job=\"{}\" data-tool=\"{}\" data-key=\"{}\" data-attempt=\"{}\" "
                  "data-step=\"{}\" data-ref=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} {} step {} "
                  "attempt {}, key={}, sha {}: {} -&gt; {}{}</title></rect>",
                  cls, esc(t.job), esc(t.tool), esc(t.key), t.attempt, t.step, esc(t.ref), px(x0), px(y + 120),
                  px(x1 - x0), px(h - 240), esc(t.tool), esc(t.job), t.step, t.attempt, esc(key_text(t.key)),
                  esc(t.sha), secs(t.start), esc(result), t.new_write ? " (new write)" : ""));
  // Its label above the lane, centred on it, where there is room.
  if (paid) {
    const std::string text = t.tool + " " + t.ref;
    labels.push_back(
        {keep_within(extent_at((x0 + x1) / 2, text_width(text, label_font, true), "middle"), plot_left, plot_right),
         duplicate ? "paid-label duplicate-effect" : "paid-label", fmt::format(" data-ref=\"{}\"", esc(t.ref)),
         esc(text)});
  }
}

void timeline_drawing::mark(const worker_mark& m, std::int64_t y, std::int64_t h) {
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
    html_.line(
        fmt::format("<rect class=\"dead-letter\" data-job=\"{}\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\">{}</rect>",
                    job, px(x - 45), px(cy - 45), title));
  } else if (m.kind == "job_done" || m.kind == "already_ended") {
    // the ack right after says it
  } else {
    used_.insert("mark");
    html_.line(fmt::format("<circle class=\"mark mark-{}\" data-job=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\">{}</circle>",
                           slug(m.kind), job, px(x), px(y + h - 40), title));
  }
}

void timeline_drawing::expiry(const lease_span& l, sim::instant at, std::int64_t y, std::int64_t h) {
  const std::int64_t x = x_of(at);
  const std::int64_t cy = y + h / 2;
  used_.insert("expiry");
  html_.line(
      fmt::format("<path class=\"expiry\" data-job=\"{}\" d=\"M{},{} L{},{} L{},{} L{},{} z\"><title>{} {} of "
                  "{} (delivery {}) ran out: the message is {}</title></path>",
                  esc(l.job), px(x), px(cy - 80), px(x + 60), px(cy), px(x), px(cy + 80), px(x - 60), px(cy), secs(at),
                  words_.expired_what, esc(l.job), l.receive_count, words_.again));
}

// The tool a step calls by this name changes something at its far side.
bool timeline_drawing::writes_tool(const std::string& tool) const {
  // Steps call the payment vendor "refund"; its far side traces as vendor/payments.
  if (tool == "refund") return true;
  const service_tool_config* c = tool_config_of(sc_, "vendor/" + tool);
  return c != nullptr && c->effect == tool_effect::write;
}

std::string timeline_drawing::end_key(const std::string& ended_by) {
  if (ended_by == "ack" || ended_by == "dead_letter") return "end-done";
  if (ended_by == "nack" || ended_by == "expired") return "end-back";
  if (ended_by == "crash" || ended_by == "stop") return "end-killed";
  return "end-open";
}

}  // namespace twice::html_detail
