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
  std::string key;          // of the attempt's last write tool call ("" if none or keyless)
  bool new_write = false;   // any write of this attempt acted anew at the far side
  std::string outcome = "running";  // done, failed, retry, dead_lettered, crashed, killed, abandoned, running
  std::int64_t backoff_us = 0;
  sim::instant started;
};

// Every attempt is counted; the first `detail_max` are summarised (a runaway
// retry loop makes millions, and only an output that lists them wants them).
class attempt_collector final : public event_observer {
 public:
  explicit attempt_collector(std::size_t detail_max = SIZE_MAX) : detail_max_(detail_max) {}
  void on_event(const ev::event& e, const name_table& names) override;
  // In the order attempts started.
  const std::vector<attempt_summary>& attempts() const { return attempts_; }
  std::vector<attempt_summary> take_attempts() { return std::move(attempts_); }
  // Every attempt that started, summarised or not.
  std::uint64_t started() const { return started_; }
  // Bytes held (sim/footprint.hpp): the summaries and the open attempts.
  std::uint64_t footprint() const override;

 private:
  attempt_summary* current(ev::name_id job, ev::name_id worker);
  void job_ended(ev::name_id job, const char* outcome, ev::name_id worker);
  std::size_t detail_max_;
  std::uint64_t started_ = 0;
  std::vector<attempt_summary> attempts_;
  // (job, worker) -> index of that worker's latest attempt of the job, while
  // the job is open
  std::map<std::pair<ev::name_id, ev::name_id>, std::size_t> open_;
};

}  // namespace twice
