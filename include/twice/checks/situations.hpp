#pragma once
// The situations a run may reach: the moments the invariants exist for (a
// crash between a write and its ack, a lease that ran out under a running
// slice, a duplicate a key absorbed). A green exploration is worth only what
// it reached, so explore counts the runs that reached each and names those
// that never did (Antithesis's "sometimes" assertions; coverage in fuzzing),
// and `[expect] reach = [...]` makes an unreached one a failure.
//
// They are read off the typed events as they are emitted, like the
// invariants, by an observer that never changes the run. The list below is
// the one place they are named and described, in report order.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include <twice/events/event_log.hpp>

namespace twice {

struct situation_info {
  std::string_view name;
  std::string_view sentence;  // what happened, as "never happened in N runs: <sentence>" reads it
};

// Every situation, in report order (at most 64: a run's are one bitmask).
std::span<const situation_info> situations();
std::optional<std::size_t> situation_index(std::string_view name);

// Bit i set: situations()[i] was reached.
using situation_set = std::uint64_t;

class situation_tracker final : public event_observer {
 public:
  void on_event(const ev::event& e, const name_table& names) override;
  std::uint64_t footprint() const override;
  situation_set reached() const { return reached_; }

 private:
  struct open_slice {
    ev::name_id job = 0;
    bool wrote = false;  // a write of this slice took effect at the far side
  };
  void reach(std::size_t situation);
  bool slice_open_for(ev::name_id job) const;

  situation_set reached_ = 0;
  std::map<ev::name_id, open_slice> slices_;  // by actor: the slice each worker runs
  std::vector<ev::name_id> last_actor_;       // by job: who started its last attempt (0: none)
  std::set<std::tuple<ev::name_id, std::int64_t, ev::name_id>> failed_5xx_;  // (job, step, tool) awaiting a success
};

}  // namespace twice
