#include <twice/report/attempts.hpp>

#include <twice/sim/footprint.hpp>

namespace twice {

// A summary's job id, worker, key and outcome: ~64 bytes of text.
std::uint64_t attempt_collector::footprint() const {
  return sim::footprint_of(attempts_) + attempts_.size() * 64 + sim::tree_footprint(open_);
}

attempt_summary* attempt_collector::current(ev::name_id job, ev::name_id worker) {
  auto it = open_.find({job, worker});
  return it == open_.end() ? nullptr : &attempts_[it->second];
}

// The job ended in this worker's attempt, which nothing later changes (a
// slice of another worker that overlapped it still finds its own).
void attempt_collector::job_ended(ev::name_id job, const char* outcome, ev::name_id worker) {
  if (attempt_summary* a = current(job, worker)) a->outcome = outcome;
  open_.erase({job, worker});
}

void attempt_collector::on_event(const ev::event& e, const name_table& names) {
  if (detail_max_ == 0) {  // counting only: nothing else to follow
    started_ += std::holds_alternative<ev::attempt_start>(e.body) ? 1 : 0;
    return;
  }
  if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) {
    ++started_;
    if (attempts_.size() >= detail_max_) {
      open_.erase({start->job, e.actor});  // not its earlier attempt's any more
      return;
    }
    attempt_summary a;
    a.job_id = std::string(names.text(start->job));
    a.attempt = start->attempt;
    a.worker = std::string(names.text(e.actor));
    a.started = e.at;
    open_[{start->job, e.actor}] = attempts_.size();
    attempts_.push_back(std::move(a));
    return;
  }
  // A pod that dies or is stopped with a slice in flight ends its attempt.
  auto interrupted = [&](bool in_flight, ev::name_id job, const char* outcome) {
    if (!in_flight) return;
    if (attempt_summary* a = current(job, e.actor); a != nullptr && a->outcome == "running") a->outcome = outcome;
  };
  if (const auto* crash = std::get_if<ev::crash>(&e.body)) return interrupted(crash->in_flight, crash->job, "crashed");
  if (const auto* stop = std::get_if<ev::stop>(&e.body)) return interrupted(stop->in_flight, stop->job, "killed");
  auto ending = [&](ev::name_id job, const char* outcome) { job_ended(job, outcome, e.actor); };
  if (const auto* call = std::get_if<ev::tool_call>(&e.body)) {
    attempt_summary* a = current(call->job, e.actor);
    if (a == nullptr) return;
    if (call->key != 0) a->key = std::string(names.text(call->key));
    if (call->new_write) a->new_write = true;
  } else if (const auto* b = std::get_if<ev::backoff>(&e.body)) {
    if (attempt_summary* a = current(b->job, e.actor)) {
      a->outcome = "retry";
      a->backoff_us = b->delay.us();
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
