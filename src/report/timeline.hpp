#pragma once
// The story of a run as people read it: one line per thing that matters
// (attempts, tool calls with their key and new_write, crashes, backoff
// delays, redeliveries, acks, dead letters), chosen from the trace.

#include <optional>
#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace twice {

struct timeline_line {
  sim::instant at;
  std::string actor;
  std::string text;
};

// The line for one record, or nothing when the record is too fine-grained
// for a timeline (heartbeats that succeed, store transactions, samples).
std::optional<timeline_line> timeline_entry(const sim::trace_record& r);
std::vector<timeline_line> build_timeline(const std::vector<sim::trace_record>& records);
// "      2.423000s  worker/0         refund job_17 step 3 ..."
std::string format_timeline_line(const timeline_line& line);

}  // namespace twice
