#pragma once
// The settings of an orphan rescue (runtime/orphan_rescue.hpp), apart from
// the process, so the runtime's settings need not include it.

#include <cstdint>

#include <twice/sim/time.hpp>

namespace twice {

// What a rescue does with a stuck job that has used all its attempts.
// discard: ends it (Oban's Lifeline: "transitions exhausted jobs to the
// discarded state", so a job that kills its node is not run forever).
// retry: grants it one more attempt and queues it (Lifeline's
// retry_exhausted, which raises max_attempts by one; the
// oban_plugins_lazarus fork does the same for single-attempt jobs): a job
// that kills its worker every time runs, and kills, forever.
enum class exhausted_orphans : std::uint8_t { discard, retry };

struct orphan_rescue_config {
  // A running row claimed longer ago than this is taken for an orphan.
  // Oban's Lifeline: rescue_after, default 60 minutes, "purely based on
  // time, rather than any heuristic about the job's expected execution time
  // or whether the node is still alive".
  sim::duration rescue_after = sim::duration::from_s(3600);
  sim::duration interval = sim::duration::from_s(60);  // Lifeline's default: every minute
  exhausted_orphans exhausted = exhausted_orphans::discard;
  friend bool operator==(const orphan_rescue_config&, const orphan_rescue_config&) = default;
};

}  // namespace twice
