#include <twice/report/attempts.hpp>

#include <twice/sim/footprint.hpp>

namespace twice {

// A summary's job id, worker, key and outcome: ~64 bytes of text.
std::uint64_t attempt_collector::footprint() const {
  return sim::tree_footprint(held_) + held_.size() * 64 + sim::tree_footprint(open_) + sim::tree_footprint(per_job_);
}

std::map<std::int64_t, std::int64_t> attempt_collector::jobs_by_attempts() const {
  std::map<std::int64_t, std::int64_t> out;
  for (const auto& [job, n] : per_job_) ++out[n];
  return out;
}

std::vector<attempt_summary> attempt_collector::take_attempts() {
  std::vector<attempt_summary> out;
  out.reserve(held_.size());
  for (auto& [order, h] : held_) out.push_back(std::move(h.summary));
  held_.clear();
  open_.clear();
  return out;
}

attempt_collector::held* attempt_collector::current(ev::name_id job, ev::name_id worker) {
  auto it = open_.find({job, worker});
  return it == open_.end() ? nullptr : &held_.at(it->second);
}

// The job ended in this worker's attempt, which nothing later changes (a
// slice of another worker that overlapped it still finds its own). A first
// attempt done, with none beside it, is what a million-job run is made of:
// past the first few it is let go.
void attempt_collector::job_ended(ev::name_id job, const char* outcome, ev::name_id worker) {
  const auto it = open_.find({job, worker});
  if (it == open_.end()) return;
  const std::uint64_t order = it->second;
  open_.erase(it);
  held& h = held_.at(order);
  h.summary.outcome = outcome;
  if (order >= detail_.every_first && h.summary.attempt == 0 && h.summary.outcome == "done" && !h.beside_another) {
    held_.erase(order);
  }
}

void attempt_collector::on_event(const ev::event& e, const name_table& names) {
  if (detail_.listed_max == 0) {  // counting only: nothing else to follow
    started_ += std::holds_alternative<ev::attempt_start>(e.body) ? 1 : 0;
    return;
  }
  if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) {
    const std::uint64_t order = started_++;
    if (detail_.per_job) ++per_job_[start->job];
    open_.erase({start->job, e.actor});  // not its earlier attempt's any more
    // Another attempt of the job still open in another worker: a duplicate
    // delivery, both kept.
    bool beside = false;
    for (auto it = open_.lower_bound({start->job, ev::name_id{}}); it != open_.end() && it->first.first == start->job;
         ++it) {
      held_.at(it->second).beside_another = true;
      beside = true;
    }
    if (held_.size() >= detail_.listed_max) return;
    held h;
    h.summary.job_id = std::string(names.text(start->job));
    h.summary.attempt = start->attempt;
    h.summary.worker = std::string(names.text(e.actor));
    h.summary.started = e.at;
    h.beside_another = beside;
    open_[{start->job, e.actor}] = order;
    held_.emplace(order, std::move(h));
    return;
  }
  // A pod that dies or is stopped with a slice in flight ends its attempt.
  auto interrupted = [&](bool in_flight, ev::name_id job, const char* outcome) {
    if (!in_flight) return;
    if (held* h = current(job, e.actor); h != nullptr && h->summary.outcome == "running") h->summary.outcome = outcome;
  };
  if (const auto* crash = std::get_if<ev::crash>(&e.body)) return interrupted(crash->in_flight, crash->job, "crashed");
  if (const auto* stop = std::get_if<ev::stop>(&e.body)) return interrupted(stop->in_flight, stop->job, "killed");
  auto ending = [&](ev::name_id job, const char* outcome) { job_ended(job, outcome, e.actor); };
  if (const auto* call = std::get_if<ev::tool_call>(&e.body)) {
    held* h = current(call->job, e.actor);
    if (h == nullptr) return;
    if (call->key != 0) h->summary.key = std::string(names.text(call->key));
    if (call->new_write) h->summary.new_write = true;
  } else if (const auto* b = std::get_if<ev::backoff>(&e.body)) {
    if (held* h = current(b->job, e.actor)) {
      h->summary.outcome = "retry";
      h->summary.backoff_us = b->delay.us();
    }
  } else if (const auto* done = std::get_if<ev::job_done>(&e.body)) {
    ending(done->job, "done");
  } else if (const auto* failed = std::get_if<ev::job_failed>(&e.body)) {
    ending(failed->job, "failed");
  } else if (const auto* dead = std::get_if<ev::dead_letter>(&e.body)) {
    ending(dead->job, "dead_lettered");
  } else if (const auto* abandoned = std::get_if<ev::abandoned>(&e.body)) {
    ending(abandoned->job, "abandoned");
  }
}

}  // namespace twice
