#pragma once
// The invariants, as observers apart from the system under test: they read
// the trace as it is recorded and the world's final state, and never change
// either. Names are stable: the CLI, the properties and the reports share
// them (see invariant_names()).
//
// Each verdict explains itself: on a violation, the first records that show
// it (time, actor, job, attempt, key), not just "false".

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/string_ids.hpp>
#include <twice/sim/trace.hpp>
#include <twice/world/queue_health.hpp>

namespace twice {

class world;
struct world_config;
struct world_result;

struct verdict {
  std::string name;
  bool held = true;  // false: violated
  std::string detail;                 // one sentence: what was checked, or what went wrong
  std::vector<std::string> evidence;  // the first records that show a violation, readable lines
  std::optional<sim::instant> first_violation;  // when a safety invariant first broke
  // False when the run stopped at a budget before the invariant could be
  // decided (messages still held that retention may yet delete): `detail`
  // says what was pending. A verdict not judged never passes as held.
  bool judged = true;
};

// "held", "VIOLATED" or "UNJUDGED", as the outputs print a verdict.
std::string_view verdict_word(const verdict& v);

// The stable invariant names, in report order: the built-in ones, then
// those a program registered (checks/invariant.hpp) in name order.
std::vector<std::string_view> invariant_names();
bool is_invariant_name(std::string_view name);

struct check_options {
  // The database counts as stalled when a transaction waits longer than this
  // for a connection.
  sim::duration stall_bound = sim::duration::from_s(5);
  // Keep this many explaining records per violation.
  std::size_t evidence_max = 4;
};

class invariant_checker final : public event_observer {
 public:
  // From `config`, what its settings ask of the run: the retry policy's
  // maximum attempts (attempts_within_limit) and the queue's alarms
  // (backlog_within_bound).
  invariant_checker(check_options options, const world_config& config);

  // Streaming: called for every event as it is emitted (world::events()).
  void on_event(const ev::event& e, const name_table& names) override;

  // Bytes held (sim/footprint.hpp): a watch per job seen, the backoffs of
  // jobs with a slice open, the emails sent per step.
  std::uint64_t footprint() const override;

  // Final state checks, then every verdict in invariant_names() order.
  std::vector<verdict> finish(const world& w, const world_result& result);

 private:
  struct step_write {
    std::int64_t step = 0;
    sim::instant at;
  };
  struct slice_span {
    std::string actor;
    ev::name_id actor_name = 0;
    std::int64_t attempt = 0;
    sim::instant start;
    std::optional<sim::instant> end;
    std::vector<step_write> new_writes;  // few: a job has a handful of write steps
  };
  struct violation_log {
    std::uint64_t count = 0;  // every violation seen, not only those kept as evidence
    std::optional<sim::instant> first;
    // The earliest lines, in time order, at most evidence_max of them.
    std::vector<std::pair<sim::instant, std::string>> evidence;
  };

  void note(std::string_view invariant, const ev::event& e, std::string_view why);
  violation_log& log_of(std::string_view invariant);
  static void count_violation(violation_log& log, sim::instant at);
  // Whether a line at `at` would be among the earliest evidence_max lines.
  bool worth_keeping(const violation_log& log, sim::instant at) const;
  void keep(violation_log& log, sim::instant at, std::string line);
  void on_tool_call(const ev::event& e, const ev::tool_call& call);
  static std::string overlap_why(std::int64_t step, const slice_span& other, sim::instant other_wrote,
                                 sim::instant mine_started);
  void on_attempt_start(const ev::event& e, const ev::attempt_start& start);
  void on_slice_end(const ev::event& e, const ev::slice_end& end);
  void on_backoff(const ev::event& e, const ev::backoff& b);
  void on_effect_done(const ev::event& e, const ev::effect_done& done);
  verdict effects_of_done_jobs(const world& w) const;
  verdict tenants_served(const world& w, const world_result& result) const;
  void on_retention_expired(const ev::event& e, const ev::retention_expired& gone);
  // An event that may have taken the last thing holding a job's work (an
  // ack before the job ended, a message lost with its process, a slice
  // killed or crashed): kept while the job is open, as evidence should
  // nothing hold the job at the end.
  void note_release(ev::name_id job, const ev::event& e);
  void on_job_ended(ev::name_id job, std::optional<sim::instant> done_at = std::nullopt);
  // The final pass of no_message_lost: an open job nothing holds any more
  // (no queue, retry set, topic or pending resend) was lost; a job the run
  // stopped with messages still held cannot be judged yet. Returns why the
  // verdict could not be judged, or nothing.
  std::optional<std::string> lost_messages(const world& w, const world_result& result);
  void on_queue_sample(const ev::event& e, const ev::queue_sample& q);
  // The event as an evidence line.
  std::string describe(const ev::event& e) const;

  check_options options_;
  std::map<std::string, violation_log, std::less<>> logs_;
  struct envelope_point {
    std::uint64_t start_index;  // the attempt's place in the job's start order
    std::int64_t attempt;       // the number it carried (a counter reset repeats numbers)
    std::int64_t envelope_us;
    sim::instant at;
    ev::event backoff;  // described only if it is evidence
  };
  // The non-retryable answer a slice heard (cleared when its actor starts an attempt).
  struct heard_answer {
    ev::name_id actor = 0;
    std::string error;   // as a retry would name it: "400 invoice_not_found"
    std::string record;  // the tool call, described
  };
  // What every job needs watched, found with one lookup per record; what
  // only some jobs need (backoffs, 4xx answers) is kept apart, by job id, so
  // a million jobs cost a few dozen bytes each here.
  struct job_watch {
    ev::name_id name = 0;                 // the job's id in the run's names
    std::int64_t last_attempt = 0;        // meaningful once attempts_started > 0
    std::uint64_t attempts_started = 0;   // every attempt_start seen, whatever numbers they carried
    std::vector<std::pair<std::int64_t, std::uint64_t>> start_index;  // attempt -> place in the start order
    std::vector<slice_span> slices;
    bool ended = false;  // done or failed: its messages were processed
    bool sent = false;   // a message of it was sent (or a record produced)
    bool cut = false;    // a slice of it was running when the run's end stopped every pod
    bool rerun_owed = false;        // the broker gave it back (pushed back, rescued) since its last start
    std::uint64_t free_starts = 0;  // starts of such re-runs, counting failures: no attempt spent
    std::optional<sim::instant> done_at;  // when it first ended done
  };
  std::uint32_t job_id(ev::name_id job);  // the job's watch, made on its first event
  const job_watch* watch_of(std::string_view job) const;  // null: no event named it
  static constexpr std::uint32_t no_job = UINT32_MAX;
  void settle_envelopes(std::uint32_t id);
  void check_envelopes();
  std::string open_job_line(const world& w, std::string_view job) const;
  std::uint64_t starts_ = 0;
  // Every job seen, by a dense id in order of first event, found from the
  // event's name id (names are dense too): an index, not a hashed string.
  std::vector<std::uint32_t> job_of_name_;  // name id -> job id; no_job where none
  std::deque<job_watch> jobs_;  // by id (a deque grows without copying a million watches)
  std::map<std::uint32_t, std::vector<envelope_point>> envelopes_;  // by job id: the jobs that backed off
  std::uint64_t envelope_points_ = 0;                                // in all of envelopes_
  std::map<std::uint32_t, std::vector<heard_answer>> heard_;        // by job id: the jobs that heard a 4xx
  struct effects_seen {
    std::uint32_t count = 0;
    sim::instant first;
  };
  std::map<std::string, effects_seen, std::less<>> effects_;  // reference (job:step:tool) -> its effects at the far side
  std::map<std::string, sim::instant, std::less<>> timed_out_;  // reference -> its first call that timed out
  std::uint32_t attempt_limit_ = 0;  // 0: unlimited
  // runtime.count_attempts = at_failure (Sidekiq's retry_count): a job the
  // broker itself gives back, pushed back at a shutdown or rescued from a dead
  // process, runs again under the same number and spends no attempt. (A crash
  // loop that never records a failure still repeats its number: the bug.)
  bool counts_failures_ = false;
  queue_alarms alarms_;
  std::map<std::uint32_t, std::uint32_t> redriven_;  // by job id: the jobs redriven from the dead-letter queue, how often
  std::map<std::uint32_t, std::vector<ev::event>> releases_;  // by job id, open jobs only: the last two releases
  std::set<std::uint32_t> expired_;  // by job id: the jobs a retention delete was noted for already
  const name_table* names_ = nullptr;  // the run's, from its first event
};

// A record as one readable line: "12.000250s worker/0 tool_call job=... key=...".
std::string describe(const sim::trace_record& r);

}  // namespace twice
