#include "faults/scripted_faults.hpp"

#include "sim/distributions.hpp"

namespace twice {

scripted_faults::scripted_faults(std::vector<point_fault> points, std::vector<queue_fault> queue_faults,
                                 sim::random_stream rng)
    : points_(std::move(points)), fired_(points_.size(), 0), queue_faults_(std::move(queue_faults)), rng_(rng) {
  for (const queue_fault& f : queue_faults_) counts_deletes_ = counts_deletes_ || f.what == queue_fault::kind::lose_delete;
}

bool scripted_faults::matches(const point_fault& f, const point_event& ev) const {
  if (f.point != ev.point) return false;
  if (!f.tool.empty() && f.tool != ev.tool) return false;
  if (f.step != 0 && f.step != ev.step) return false;
  if (!f.job.empty() && f.job != ev.job_id) return false;
  if (f.attempt && *f.attempt != ev.attempt) return false;
  if (!f.worker.empty() && f.worker != ev.worker) return false;
  return true;
}

bool scripted_faults::fires(std::uint32_t probability_ppm) {
  if (probability_ppm >= 1'000'000) return true;  // no draw: certain rules do not disturb the stream
  return sim::bernoulli(rng_, probability_ppm, 1'000'000);
}

point_action scripted_faults::at_point(const point_event& ev) {
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const point_fault& f = points_[i];
    if (!matches(f, ev)) continue;
    if (f.max_times != 0 && fired_[i] >= f.max_times) continue;
    if (!fires(f.probability_ppm)) continue;
    ++fired_[i];
    return f.action;
  }
  return point_action::proceed;
}

bool scripted_faults::queue_rule_fires(queue_fault::kind kind, const std::string& job, std::uint32_t nth) {
  for (const queue_fault& f : queue_faults_) {
    if (f.what != kind) continue;
    if (f.job.empty()) {
      if (f.probability_ppm > 0 && fires(f.probability_ppm)) return true;
    } else if (f.job == job && f.nth == nth) {
      return true;
    }
  }
  return false;
}

bool scripted_faults::duplicate_delivery(const received_message& m) {
  return queue_rule_fires(queue_fault::kind::duplicate_delivery, m.body, m.receive_count);
}

bool scripted_faults::lose_delete(message_id id) {
  if (!counts_deletes_) return false;  // no rule could fire, and none draws
  auto it = jobs_by_message_.find(id);
  const std::string job = it == jobs_by_message_.end() ? std::string() : it->second;
  return queue_rule_fires(queue_fault::kind::lose_delete, job, ++deletes_seen_[id]);
}

}  // namespace twice
