#pragma once
// [explore]: what `twice explore` may vary from one run to the next (see
// docs/scenario-format.md and docs/explore.md). `twice run` ignores it: a
// file runs exactly as written there.
//
//   [explore]
//   swarm = true                          # each run keeps a random subset of the fault kinds present
//   [explore.vary]
//   "crash[0].at" = ["1s", "30s"]         # drawn per run, whole microseconds
//   "vendor.error_rates.lost_response" = [0, 0.5]
//
// The seed is always varied. The loader checks the table's shape, that each
// key path names a value explore knows how to vary (with "did you mean"),
// that the array element it names exists, and that each range is well
// formed; explore itself checks that each bound gives a scenario that loads.

#include <cstdint>
#include <string>
#include <vector>

namespace twice {

// How a varied value is drawn and written back.
enum class explore_value : std::uint8_t {
  time,         // a time since the start; bounds and draws in microseconds
  duration,     // a duration; microseconds
  probability,  // parts per million
  integer,
};

struct explore_range {
  std::string path;  // the key path, as in error messages: "crash[0].at"
  explore_value kind = explore_value::integer;
  std::int64_t lo = 0;     // inclusive, in the kind's unit
  std::int64_t hi = 0;     // inclusive; lo <= hi
  std::uint32_t line = 0;  // where the range is written (for messages)
  std::uint32_t column = 0;
};

struct explore_spec {
  bool present = false;             // the file has an [explore] table
  bool swarm = true;                // each run keeps each fault kind present with probability 1/2
  std::vector<explore_range> vary;  // in file (key) order
};

}  // namespace twice
