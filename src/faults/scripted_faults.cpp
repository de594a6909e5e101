#include "faults/scripted_faults.hpp"

#include <map>

#include <twice/sim/distributions.hpp>

namespace twice {

namespace {

// "<key>=<length>:<text>": a field whose text may contain '/', '=' or '#'
// without two different rules ever spelling the same name.
std::string text_field(std::string_view key, std::string_view text) {
  return std::string(key) + "=" + std::to_string(text.size()) + ":" + std::string(text);
}

std::string_view action_name(point_action a) {
  switch (a) {
    case point_action::proceed:
      return "proceed";
    case point_action::crash:
      return "crash";
    case point_action::error:
      return "error";
  }
  return "?";
}

std::string_view kind_name(queue_fault::kind k) {
  switch (k) {
    case queue_fault::kind::duplicate_delivery:
      return "duplicate_delivery";
    case queue_fault::kind::lose_delete:
      return "lose_delete";
    case queue_fault::kind::send_timeout:
      return "send_timeout";
  }
  return "?";
}

std::string point_fault_name(const point_fault& f) {
  return "fault/" + text_field("point", f.point) + "/" + text_field("tool", f.tool) +
         "/step=" + std::to_string(f.step) + "/" + text_field("job", f.job) +
         "/attempt=" + (f.attempt ? std::to_string(*f.attempt) : std::string("any")) + "/" +
         text_field("worker", f.worker) + "/action=" + std::string(action_name(f.action));
}

std::string queue_fault_name(const queue_fault& f) {
  return "queue_fault/kind=" + std::string(kind_name(f.what)) + "/" + text_field("job", f.job) +
         "/nth=" + std::to_string(f.nth);
}

// Appends "#k", k = how many earlier rules had the same base name.
template <class Rule, class Name>
std::vector<std::string> numbered_names(const std::vector<Rule>& rules, Name name_of) {
  std::vector<std::string> names;
  names.reserve(rules.size());
  std::map<std::string, std::size_t> seen;
  for (const Rule& r : rules) {
    std::string base = name_of(r);
    const std::size_t k = seen[base]++;
    names.push_back(std::move(base) + "#" + std::to_string(k));
  }
  return names;
}

std::vector<sim::random_stream> streams_named(const sim::random_root& random, const std::vector<std::string>& names) {
  std::vector<sim::random_stream> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(random.stream(n));
  return out;
}

}  // namespace

std::vector<std::string> point_fault_stream_names(const std::vector<point_fault>& points) {
  return numbered_names(points, point_fault_name);
}

std::vector<std::string> queue_fault_stream_names(const std::vector<queue_fault>& queue_faults) {
  return numbered_names(queue_faults, queue_fault_name);
}

scripted_faults::scripted_faults(std::vector<point_fault> points, std::vector<queue_fault> queue_faults,
                                 const sim::random_root& random)
    : points_(std::move(points)),
      fired_(points_.size(), 0),
      point_rngs_(streams_named(random, point_fault_stream_names(points_))),
      queue_faults_(std::move(queue_faults)),
      queue_rngs_(streams_named(random, queue_fault_stream_names(queue_faults_))) {
  for (const queue_fault& f : queue_faults_) {
    counts_deletes_ = counts_deletes_ || f.what == queue_fault::kind::lose_delete;
    counts_sends_ = counts_sends_ || f.what == queue_fault::kind::send_timeout;
  }
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

bool scripted_faults::fires(sim::random_stream& rng, std::uint32_t probability_ppm) {
  if (probability_ppm >= 1'000'000) return true;  // no draw: a certain rule leaves its stream alone
  return sim::bernoulli(rng, probability_ppm, 1'000'000);
}

// Every matching rule that is not used up draws, even after an earlier rule
// has fired at this point, so a rule's n-th draw always belongs to its n-th
// matching point whatever rules come before it. The first rule that fires
// (in scenario order) is the one applied and counted.
point_action scripted_faults::at_point(const point_event& ev) {
  point_action result = point_action::proceed;
  bool applied = false;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const point_fault& f = points_[i];
    if (!matches(f, ev)) continue;
    if (f.max_times != 0 && fired_[i] >= f.max_times) continue;
    if (!fires(point_rngs_[i], f.probability_ppm) || applied) continue;
    ++fired_[i];
    result = f.action;
    applied = true;
  }
  return result;
}

// As at_point: every probabilistic rule of the kind draws on every call,
// whether or not another rule already fired.
const queue_fault* scripted_faults::queue_rule_fires(queue_fault::kind kind, std::string_view job, std::uint32_t nth) {
  const queue_fault* fired = nullptr;
  for (std::size_t i = 0; i < queue_faults_.size(); ++i) {
    const queue_fault& f = queue_faults_[i];
    if (f.what != kind) continue;
    if (f.job.empty()) {
      if (f.probability_ppm > 0 && fires(queue_rngs_[i], f.probability_ppm) && fired == nullptr) fired = &f;
    } else if (f.job == job && f.nth == nth && fired == nullptr) {
      fired = &f;
    }
  }
  return fired;
}

bool scripted_faults::duplicate_delivery(const received_message& m) {
  return queue_rule_fires(queue_fault::kind::duplicate_delivery, m.body, m.receive_count) != nullptr;
}

bool scripted_faults::lose_delete(message_id id) {
  if (!counts_deletes_) return false;  // no rule could fire, and none draws
  auto it = jobs_by_message_.find(id);
  const std::string job = it == jobs_by_message_.end() ? std::string() : it->second;
  return queue_rule_fires(queue_fault::kind::lose_delete, job, ++deletes_seen_[id]) != nullptr;
}

std::optional<sim::duration> scripted_faults::send_times_out(std::string_view job) {
  if (!counts_sends_) return std::nullopt;  // no rule could fire, and none draws
  auto it = sends_seen_.find(job);
  if (it == sends_seen_.end()) it = sends_seen_.emplace(std::string(job), 0).first;
  const queue_fault* f = queue_rule_fires(queue_fault::kind::send_timeout, job, ++it->second);
  if (f == nullptr) return std::nullopt;
  return f->resend_after;
}

}  // namespace twice
