#pragma once
// The story of a run as people read it: one line per thing that matters
// (attempts, tool calls with their key and new_write, crashes, backoff
// delays, redeliveries, acks, dead letters), chosen from the trace.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <twice/events/event_log.hpp>
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

// The same lines made as the run goes, each event as it is emitted: the
// first `kept_max` are kept, all are counted. An output that shows only the
// first lines (the HTML report's story) needs the run's records kept no longer.
class timeline_collector final : public event_observer {
 public:
  explicit timeline_collector(std::size_t kept_max) : kept_max_(kept_max) {}
  void on_event(const ev::event& e, const name_table& names) override;
  std::uint64_t footprint() const override;
  std::vector<timeline_line> take_lines() { return std::move(lines_); }
  std::size_t total() const { return total_; }

 private:
  std::size_t kept_max_;
  std::size_t total_ = 0;
  redelivery_causes causes_;
  std::vector<timeline_line> lines_;
};
// "      2.423000s  worker/0         refund job_17 step 3 ..."
std::string format_timeline_line(const timeline_line& line);

}  // namespace twice
