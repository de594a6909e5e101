#pragma once
// One summary per attempt of each job, gathered from the trace as it is
// recorded: who ran it, the key its write carried, whether the write was
// new at the far side, how the attempt ended and the backoff that followed.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

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

class attempt_collector final : public sim::trace_observer {
 public:
  void on_record(const sim::trace_record& r) override;
  // In the order attempts started.
  const std::vector<attempt_summary>& attempts() const { return attempts_; }

 private:
  attempt_summary* current(const sim::trace_record& r);
  std::vector<attempt_summary> attempts_;
  // (job, worker) -> index of that worker's latest attempt of the job
  std::map<std::pair<std::string, std::string>, std::size_t> open_;
};

}  // namespace twice
