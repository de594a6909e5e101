#pragma once
// The story of a run as people read it: one line per thing that matters
// (attempts, tool calls with their key and new_write, crashes, backoff
// delays, redeliveries, acks, dead letters), chosen from the trace.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <twice/sim/trace.hpp>

namespace twice {

struct timeline_line {
  sim::instant at;
  std::string actor;
  std::string text;
};

// Why a message became visible again. The broker does the same thing after
// a lease that ran out and after a nack (a nack is ChangeMessageVisibility to
// the backoff delay, and the backoff then "expires"), so its lease_expired
// record cannot tell them apart; the worker's nack just before can. Fed
// every record in order, it answers for each lease_expired.
class redelivery_causes {
 public:
  struct backoff_ended {
    std::string worker;
    std::int64_t attempt = 0;
    std::int64_t delay_us = 0;
    std::int64_t nacked_us = 0;  // when the broker took the retry (its delay counts from then)
  };

  // Call for every record, in order, before asking about it.
  void observe(const sim::trace_record& r);
  // For a lease_expired record: the nack whose backoff just ended, or
  // nothing when the lease ran out (nobody gave the message back).
  std::optional<backoff_ended> backoff_for(const sim::trace_record& lease_expired) const;

 private:
  std::map<std::string, backoff_ended, std::less<>> last_backoff_;  // worker -> its last nack backoff
  std::map<std::string, backoff_ended, std::less<>> nacked_;        // message body (the job id) -> its open backoff
  std::optional<backoff_ended> ended_;                              // answer for the record just observed
};

// The line for one record, or nothing when the record is too fine-grained
// for a timeline (heartbeats that succeed, store transactions, samples).
// `backoff`: for a lease_expired record, the backoff that ended (see
// redelivery_causes); without it the line says the lease ran out.
std::optional<timeline_line> timeline_entry(const sim::trace_record& r,
                                            const std::optional<redelivery_causes::backoff_ended>& backoff = {});
std::vector<timeline_line> build_timeline(const std::vector<sim::trace_record>& records);
// "      2.423000s  worker/0         refund job_17 step 3 ..."
std::string format_timeline_line(const timeline_line& line);

}  // namespace twice
