#include "checks/job_watch.hpp"

#include <algorithm>

#include <twice/runtime/retry_policy.hpp>
#include <twice/sim/checked.hpp>
#include <twice/sim/footprint.hpp>
#include <twice/world/world.hpp>

namespace twice {

bool job_watch_table::counts_failures(const world_config& config) {
  return config.runtime.count_attempts == attempt_counting::at_failure;
}

// Every event that names a job some invariant watches: the watch is made on
// the first, so ids follow the trace whichever invariants run.
event_kinds job_watch_table::kinds() {
  return event_kinds::of<ev::tool_call, ev::attempt_start, ev::slice_end, ev::backoff, ev::stop, ev::job_done,
                         ev::job_failed, ev::dead_letter, ev::send, ev::produced, ev::message_delete,
                         ev::lost_with_process, ev::pushed_back, ev::orphan_recovered, ev::crash, ev::retention_expired,
                         ev::moved_out>();
}

void job_watch_table::on_event(const ev::event& e, const name_table& names) {
  if (const auto* call = std::get_if<ev::tool_call>(&e.body)) return on_tool_call(e, *call);
  if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) return on_attempt_start(e, *start, names);
  if (const auto* end = std::get_if<ev::slice_end>(&e.body)) return on_slice_end(e, *end);
  if (const auto* b = std::get_if<ev::backoff>(&e.body)) {
    job_id(b->job);
    return;
  }
  if (const auto* stop = std::get_if<ev::stop>(&e.body)) {
    if (!stop->in_flight) return;
    const std::uint32_t id = job_id(stop->job);
    if (stop->why == ev::stop_reason::shutdown) jobs_[id].cut = true;  // the run's end, not the world, stopped it
    return;
  }
  if (const auto* done = std::get_if<ev::job_done>(&e.body)) {
    job_watch& jw = jobs_[job_id(done->job)];
    jw.ended = true;
    if (!jw.done) {
      jw.done = true;
      jw.done_at_ = e.at;
    }
    return;
  }
  if (const auto* failed = std::get_if<ev::job_failed>(&e.body)) {
    jobs_[job_id(failed->job)].ended = true;
    return;
  }
  if (const auto* dead = std::get_if<ev::dead_letter>(&e.body)) {
    job_id(dead->job);
    return;
  }
  if (const auto* send = std::get_if<ev::send>(&e.body)) {
    jobs_[job_id(send->body)].sent = true;
    return;
  }
  if (const auto* produced = std::get_if<ev::produced>(&e.body)) {
    jobs_[job_id(produced->body)].sent = true;
    return;
  }
  if (const auto* deleted = std::get_if<ev::message_delete>(&e.body)) {
    if (deleted->applied) job_id(deleted->body);
    return;
  }
  if (const auto* lost = std::get_if<ev::lost_with_process>(&e.body)) {
    job_id(lost->body);
    return;
  }
  if (const auto* back = std::get_if<ev::pushed_back>(&e.body)) {
    jobs_[job_id(back->body)].rerun_owed = true;
    return;
  }
  if (const auto* rescued = std::get_if<ev::orphan_recovered>(&e.body)) {
    jobs_[job_id(rescued->body)].rerun_owed = true;
    return;
  }
  if (const auto* crash = std::get_if<ev::crash>(&e.body)) {
    if (crash->in_flight) job_id(crash->job);
    return;
  }
  if (const auto* gone = std::get_if<ev::retention_expired>(&e.body)) {
    job_id(gone->body);
    return;
  }
  if (const auto* moved = std::get_if<ev::moved_out>(&e.body)) job_id(moved->body);
}

// A fixed-size watch per job seen, and the open work of the jobs with a
// slice open (as many as run at once, a few rows each).
std::uint64_t job_watch_table::footprint() const {
  std::uint64_t open = sim::footprint_of(open_) + sim::footprint_of(free_open_);
  for (const open_work& w : open_)
    open += sim::footprint_of(w.start_index) + sim::footprint_of(w.slices) + 2 * sim::heap_block_overhead;
  return sim::footprint_of(jobs_) + sim::footprint_of(job_of_name_) + open;
}

std::uint32_t job_watch_table::job_id(ev::name_id job) {
  if (job >= job_of_name_.size()) job_of_name_.resize(std::max<std::size_t>(job + 1, 2 * job_of_name_.size()), no_job);
  std::uint32_t& id = job_of_name_[job];
  if (id == no_job) {
    TWICE_CHECK(jobs_.size() < no_job);
    id = static_cast<std::uint32_t>(jobs_.size());
    jobs_.emplace_back().name = job;
  }
  return id;
}

const job_watch_table::job_watch* job_watch_table::watch_of(std::string_view job, const name_table& names) const {
  const std::optional<ev::name_id> name = names.find(job);
  if (!name || *name >= job_of_name_.size() || job_of_name_[*name] == no_job) return nullptr;
  return &jobs_[job_of_name_[*name]];
}

const std::vector<job_watch_table::slice_span>& job_watch_table::slices(const job_watch& jw) const {
  static const std::vector<slice_span> none;
  return jw.open == no_open ? none : open_[jw.open].slices;
}

const job_watch_table::start_places& job_watch_table::start_index(const job_watch& jw) const {
  static const start_places none;
  return jw.open == no_open ? none : open_[jw.open].start_index;
}

job_watch_table::slice_span* job_watch_table::open_slice(const job_watch& jw, ev::name_id actor) {
  if (jw.open == no_open) return nullptr;
  std::vector<slice_span>& slices = open_[jw.open].slices;
  for (auto it = slices.rbegin(); it != slices.rend(); ++it)
    if (it->actor_name == actor && !it->end) return &*it;
  return nullptr;
}

// A free row if there is one (which row a job gets changes nothing any
// invariant reads: rows are only reached through their job).
job_watch_table::open_work& job_watch_table::open_of(job_watch& jw) {
  if (jw.open != no_open) return open_[jw.open];
  if (free_open_.empty()) {
    TWICE_CHECK(open_.size() < no_open);
    jw.open = static_cast<std::uint32_t>(open_.size());
    return open_.emplace_back();
  }
  jw.open = free_open_.back();
  free_open_.pop_back();
  return open_[jw.open];
}

// The row's vectors are freed, not kept for the next job: a job redelivered
// without end leaves no thousand-slice buffer behind.
void job_watch_table::close(job_watch& jw) {
  if (jw.open == no_open) return;
  open_work& w = open_[jw.open];
  std::vector<slice_span>().swap(w.slices);
  start_places().swap(w.start_index);
  free_open_.push_back(jw.open);
  jw.open = no_open;
}

void job_watch_table::on_attempt_start(const ev::event& e, const ev::attempt_start& start_event,
                                       const name_table& names) {
  job_watch& jw = jobs_[job_id(start_event.job)];
  open_work& work = open_of(jw);
  const std::int64_t attempt = start_event.attempt;
  // Counting failures, a job the broker gave back runs again under its number
  // (Sidekiq's retry_test.rb: "shuts down without retrying work-in-progress").
  last_start_ = {jw.attempts_started > 0, jw.last_attempt, counts_failures_ && jw.rerun_owed};
  jw.rerun_owed = false;
  if (last_start_.free_rerun) ++jw.free_starts;
  jw.last_attempt = attempt;
  ++jw.attempts_started;
  auto start =
      std::find_if(work.start_index.begin(), work.start_index.end(), [&](const auto& p) { return p.first == attempt; });
  if (start == work.start_index.end())
    work.start_index.emplace_back(attempt, starts_++);
  else
    start->second = starts_++;
  work.slices.push_back(slice_span{std::string(names.text(e.actor)), e.actor, attempt, e.at, std::nullopt, {}});
}

// With no slice of a job open, every span so far ended at or before now,
// and any later slice starts at or after now: none can overlap it (overlap
// is end > start). Nor will a closed slice record another backoff, so the
// attempts' places go too. A finished job then keeps only its last
// attempt, not a span per delivery for the rest of the run. (The
// invariants that settle something once a job's slices close see its
// slices empty after this event.)
void job_watch_table::on_slice_end(const ev::event& e, const ev::slice_end& end) {
  job_watch& jw = jobs_[job_id(end.job)];
  if (slice_span* open = open_slice(jw, e.actor)) open->end = e.at;
  const std::vector<slice_span>& all = slices(jw);
  const bool any_open = std::any_of(all.begin(), all.end(), [](const slice_span& s) { return !s.end; });
  if (!any_open) close(jw);
}

// A worker's tool call (the relay's sends are no slice of a job, so its
// relay_tool_call events are not watched here): a new write belongs to the
// open slice of its actor for its job.
void job_watch_table::on_tool_call(const ev::event& e, const ev::tool_call& call) {
  if (!call.new_write && !non_retryable_status(call.status)) return;
  job_watch& jw = jobs_[job_id(call.job)];
  if (!call.new_write) return;
  slice_span* mine = open_slice(jw, e.actor);
  if (mine == nullptr) return;
  const std::int64_t step = call.step;
  if (std::none_of(mine->new_writes.begin(), mine->new_writes.end(),
                   [step](const step_write& w) { return w.step == step; }))
    mine->new_writes.push_back({step, e.at});
}

}  // namespace twice
