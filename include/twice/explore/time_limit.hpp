#pragma once
// `--time-limit D` split between the runs and shrinking: no run starts after
// four fifths of D, and the last fifth is kept for shrinking what the runs
// found (before, runs could use D whole and leave a finding unshrunk).
// Fixed shares rather than measured ones: the output says the split before
// anything runs, and the same limit always gives the same split. A deadline
// only changes how many runs count and how far a shrink got, and both are
// said (explore_result::deadline_hit, shrink_outcome::cut_short).

#include <twice/sim/time.hpp>

namespace twice::explore {

struct time_split {
  sim::duration limit;   // D, the whole budget
  sim::duration runs;    // from the start: no run starts after it
  sim::duration shrink;  // D - runs: kept for shrinking
  bool operator==(const time_split&) const = default;
};

// Four fifths of D for the runs (rounded down to a microsecond), the rest for shrinking.
constexpr time_split split_time_limit(sim::duration limit) {
  const std::int64_t d = limit.us() < 0 ? 0 : limit.us();
  const sim::duration runs = sim::duration::from_us(d / 5 * 4 + d % 5 * 4 / 5);
  return {sim::duration::from_us(d), runs, sim::duration::from_us(d) - runs};
}

}  // namespace twice::explore
