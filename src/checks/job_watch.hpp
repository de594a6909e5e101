#pragma once
// What several built-in invariants watch of every job, kept once per run and
// read by them all (checks/check_context.hpp): its slices (who ran it when,
// which new writes each made), the attempts it started, whether a message
// of it was sent, whether it ended, whether the run's end cut a slice of
// it. It sees each event before the invariants do.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/checks/invariant.hpp>
#include <twice/events/event_log.hpp>

namespace twice {

struct world_config;

// 4xx other than 409 (key in use: retry later) and 429 (rate limited).
inline bool non_retryable_status(std::int64_t status) {
  return status >= 400 && status < 500 && status != 409 && status != 429;
}

class job_watch_table final : public event_observer {
 public:
  static constexpr std::uint32_t no_job = UINT32_MAX;
  static constexpr std::uint32_t no_open = UINT32_MAX;
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
  // What every job needs watched, found with one lookup per record; what
  // only some jobs need (backoffs, 4xx answers, releases) the invariants
  // keep apart, by job id, so a million jobs cost a few dozen bytes each here.
  // Fixed size: what a job keeps for the rest of the run once no slice of it
  // is open is these 48 bytes; its slices and its attempts' places live apart
  // (open_work) only while a slice is open.
  struct job_watch {
    std::int64_t last_attempt = 0;       // meaningful once attempts_started > 0
    std::uint64_t attempts_started = 0;  // every attempt_start seen, whatever numbers they carried
    std::uint64_t free_starts = 0;       // starts of re-runs the broker owed, counting failures: no attempt spent
    ev::name_id name = 0;                // the job's id in the run's names
    std::uint32_t open = no_open;        // its open work in open_, while a slice of it is open
    bool ended = false;                  // done or failed: its messages were processed
    bool sent = false;                   // a message of it was sent (or a record produced)
    bool cut = false;                    // a slice of it was running when the run's end stopped every pod
    bool rerun_owed = false;             // the broker gave it back (pushed back, rescued) since its last start
    bool done = false;                   // it ended done at least once, first at done_at_

    // When it first ended done.
    std::optional<sim::instant> done_at() const { return done ? std::optional(done_at_) : std::nullopt; }

   private:
    friend class job_watch_table;
    sim::instant done_at_;
  };
  using start_places = std::vector<std::pair<std::int64_t, std::uint64_t>>;  // attempt -> place in the start order
  // The attempt_start just seen (the invariants judge it against what came before).
  struct start_seen {
    bool after_another = false;         // the job had started an attempt before
    std::int64_t previous_attempt = 0;  // that attempt's number
    bool free_rerun = false;            // a re-run the broker owed: no attempt spent
  };

  explicit job_watch_table(bool counts_failures) : counts_failures_(counts_failures) {}
  // Whether `config` counts attempts at failures (below).
  static bool counts_failures(const world_config& config);

  void on_event(const ev::event& e, const name_table& names) override;
  // A watch per job seen (with room for a slice) and the index by name.
  std::uint64_t footprint() const override;
  static event_kinds kinds();

  // The job's id (dense, in order of first event), its watch made on first sight.
  std::uint32_t job_id(ev::name_id job);
  job_watch& operator[](std::uint32_t id) { return jobs_[id]; }
  const job_watch& operator[](std::uint32_t id) const { return jobs_[id]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(jobs_.size()); }
  // Null when no event named the job.
  const job_watch* watch_of(std::string_view job, const name_table& names) const;
  const start_seen& last_start() const { return last_start_; }
  // The job's slices while one is open (none once all have ended), and the
  // places of the attempts they started.
  const std::vector<slice_span>& slices(const job_watch& jw) const;
  const start_places& start_index(const job_watch& jw) const;
  // The open slice of `actor` for the job, if any.
  slice_span* open_slice(const job_watch& jw, ev::name_id actor);

 private:
  void on_attempt_start(const ev::event& e, const ev::attempt_start& start, const name_table& names);
  void on_slice_end(const ev::event& e, const ev::slice_end& end);
  void on_tool_call(const ev::event& e, const ev::tool_call& call);

  // runtime.count_attempts = at_failure (Sidekiq's retry_count): a job the
  // broker itself gives back, pushed back at a shutdown or rescued from a dead
  // process, runs again under the same number and spends no attempt. (A crash
  // loop that never records a failure still repeats its number: the bug.)
  bool counts_failures_ = false;
  std::uint64_t starts_ = 0;
  start_seen last_start_;
  // Every job seen, by a dense id in order of first event, found from the
  // event's name id (names are dense too): an index, not a hashed string.
  // A job's slices and its attempts' places, from its first attempt_start
  // until none of its slices is open; then the row is freed for another job.
  struct open_work {
    start_places start_index;
    std::vector<slice_span> slices;  // few: one per delivery running at once
  };
  open_work& open_of(job_watch& jw);
  void close(job_watch& jw);

  std::vector<std::uint32_t> job_of_name_;  // name id -> job id; no_job where none
  std::deque<job_watch> jobs_;              // by id (a deque grows without copying a million watches)
  std::deque<open_work> open_;              // rows in use are those some job's `open` names
  std::vector<std::uint32_t> free_open_;    // rows of open_ no job uses
};

}  // namespace twice
