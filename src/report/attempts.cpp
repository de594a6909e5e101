#include "report/attempts.hpp"

namespace twice {

attempt_summary* attempt_collector::current(const sim::trace_record& r) {
  const auto job = r.get_string("job");
  if (!job) return nullptr;
  auto it = open_.find({std::string(*job), r.actor});
  return it == open_.end() ? nullptr : &attempts_[it->second];
}

void attempt_collector::on_record(const sim::trace_record& r) {
  if (!r.actor.starts_with("worker/")) return;
  const std::string_view kind = r.kind;
  if (kind == "attempt_start") {
    attempt_summary a;
    a.job_id = std::string(r.get_string("job").value_or(""));
    a.attempt = r.get_int("attempt").value_or(0);
    a.worker = r.actor;
    a.started = r.time;
    open_[{a.job_id, a.worker}] = attempts_.size();
    attempts_.push_back(std::move(a));
    return;
  }
  if (kind == "crash" || kind == "stop") {
    if (r.get_bool("in_flight") != true) return;
    if (attempt_summary* a = current(r); a != nullptr && a->outcome == "running")
      a->outcome = kind == "crash" ? "crashed" : "killed";
    return;
  }
  attempt_summary* a = current(r);
  if (a == nullptr) return;
  if (kind == "tool_call") {
    const auto key = r.get_string("key");
    if (key && !key->empty()) a->key = std::string(*key);
    if (r.get_bool("new_write") == true) a->new_write = true;
  } else if (kind == "backoff") {
    a->outcome = "retry";
    a->backoff_us = r.get_int("delay_us").value_or(0);
  } else if (kind == "job_done") {
    a->outcome = "done";
  } else if (kind == "job_failed") {
    a->outcome = "failed";
  } else if (kind == "dead_letter") {
    a->outcome = "dead_lettered";
  } else if (kind == "abandoned") {
    a->outcome = "abandoned";
  }
}

}  // namespace twice
