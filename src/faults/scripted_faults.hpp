#pragma once
// Faults a scenario scripts: crashes and slice errors at named points (on a
// given job, attempt, step, tool or worker, always or with a probability),
// and broker misbehaviour (a duplicate delivery, a lost ack). They are
// applied from outside the models through the seams the models expose
// (fault_plan for workers, queue_faults for the broker).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/faults/fault_specs.hpp>
#include <twice/runtime/faults.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

#include "broker/queue.hpp"

namespace twice {

class scripted_faults final : public fault_plan, public queue_faults {
 public:
  scripted_faults(std::vector<point_fault> points, std::vector<queue_fault> queue_faults,
                  const sim::random_root& random);

  point_action at_point(const point_event& ev) override;
  bool duplicate_delivery(const received_message& m) override;
  bool lose_delete(message_id id) override;
  // The producer's side: whether this send of `job` (counted per job) times
  // out after the broker accepted it, and when the producer sends again.
  std::optional<sim::duration> send_times_out(std::string_view job);

  // Remember which job a message carries (the broker's seam speaks ids).
  // Only a lose_delete rule asks, so without one nothing is kept: a million
  // messages would otherwise hold a million job names for nobody.
  void note_message(message_id id, std::string_view job) {
    if (counts_deletes_) jobs_by_message_.emplace(id, std::string(job));
  }

 private:
  bool matches(const point_fault& f, const point_event& ev) const;
  static bool fires(sim::random_stream& rng, std::uint32_t probability_ppm);
  // The first rule of `kind` that fires (in scenario order), or none.
  const queue_fault* queue_rule_fires(queue_fault::kind kind, std::string_view job, std::uint32_t nth);

  std::vector<point_fault> points_;
  std::vector<std::uint32_t> fired_;            // per point rule
  std::vector<sim::random_stream> point_rngs_;  // per point rule
  std::vector<queue_fault> queue_faults_;
  std::vector<sim::random_stream> queue_rngs_;                    // per queue rule (only those without a job draw)
  bool counts_deletes_ = false;                                   // some rule is a lose_delete
  bool counts_sends_ = false;                                     // some rule is a send_timeout
  std::map<std::string, std::uint32_t, std::less<>> sends_seen_;  // per job, with a send_timeout rule only
  std::map<message_id, std::string> jobs_by_message_;
  std::map<message_id, std::uint32_t> deletes_seen_;
};

}  // namespace twice
