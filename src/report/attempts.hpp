#pragma once
// One summary per attempt of each job, gathered from the run's events as
// they are emitted: who ran it, the key its write carried, whether the write was
// new at the far side, how the attempt ended and the backoff that followed.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "events/event_log.hpp"
#include "sim/trace.hpp"

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

class attempt_collector final : public event_observer {
 public:
  void on_event(const ev::event& e, const name_table& names) override;
  // In the order attempts started.
  const std::vector<attempt_summary>& attempts() const { return attempts_; }

 private:
  attempt_summary* current(ev::name_id job, ev::name_id worker);
  std::vector<attempt_summary> attempts_;
  // (job, worker) -> index of that worker's latest attempt of the job
  std::map<std::pair<ev::name_id, ev::name_id>, std::size_t> open_;
};

}  // namespace twice
