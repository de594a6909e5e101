#pragma once
// One summary per attempt of each job, gathered from the run's events as
// they are emitted: who ran it, the key its write carried, whether the write was
// new at the far side, how the attempt ended and the backoff that followed.

#include <cstdint>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/trace.hpp>

namespace twice {

struct attempt_summary {
  std::string job_id;
  std::int64_t attempt = 0;
  std::string worker;
  std::string key;                  // of the attempt's last write tool call ("" if none or keyless)
  bool new_write = false;           // any write of this attempt acted anew at the far side
  std::string outcome = "running";  // done, failed, retry, dead_lettered, crashed, killed, abandoned, running
  std::int64_t backoff_us = 0;
  sim::instant started;
};

// Which attempts are summarised. Every attempt is counted; a million-job run
// would hold a summary of each to the end, so past the first `every_first`
// (all of a small run, in start order) only the attempts a reader looks for
// are kept: a first attempt that ended done, with no other attempt of its job
// open beside it, is counted and let go; a retry, a crash, a duplicate
// delivery, an attempt still running, are kept. At most `listed_max` are held
// at once (open ones included); an attempt that starts past that is counted only.
struct attempt_detail {
  std::size_t every_first = SIZE_MAX;
  std::size_t listed_max = SIZE_MAX;
  // Count every job's attempts (a small integer per job), for the HTML
  // report's histogram, exact when the summaries are not.
  bool per_job = false;
  static constexpr attempt_detail none() { return {0, 0, false}; }
};

class attempt_collector final : public event_observer {
 public:
  explicit attempt_collector(attempt_detail detail = {}) : detail_(detail) {}
  void on_event(const ev::event& e, const name_table& names) override;
  // Those kept, in the order they started (read omitted() first: it counts
  // only what is still held).
  std::vector<attempt_summary> take_attempts();
  // Every attempt that started, summarised or not.
  std::uint64_t started() const { return started_; }
  // Attempts that started and are not (or no longer) summarised.
  std::uint64_t omitted() const { return started_ - held_.size(); }
  // With attempt_detail::per_job: attempts -> jobs that started that many
  // (jobs that started none are not in it).
  std::map<std::int64_t, std::int64_t> jobs_by_attempts() const;
  // Bytes held (sim/footprint.hpp): the summaries and the open attempts.
  std::uint64_t footprint() const override;

 private:
  struct held {
    attempt_summary summary;
    bool beside_another = false;  // another attempt of its job started while it was open
  };
  held* current(ev::name_id job, ev::name_id worker);
  void job_ended(ev::name_id job, const char* outcome, ev::name_id worker);
  attempt_detail detail_;
  std::uint64_t started_ = 0;
  std::map<ev::name_id, std::int64_t> per_job_;  // job -> attempts started, with detail_.per_job
  // By start order (the attempt's number among all that started).
  std::map<std::uint64_t, held> held_;
  // (job, worker) -> start order of that worker's latest attempt of the job,
  // while it is held and the job is open in that worker
  std::map<std::pair<ev::name_id, ev::name_id>, std::uint64_t> open_;
};

}  // namespace twice
