#pragma once
// [sweep]: the grid `twice sweep` runs by default (see docs/sweep.md).
// `twice run` ignores it: a file runs exactly as written there.
//
//   [sweep]
//   seeds = 20                                   # runs per cell: the file's seed, then derived ones
//   [sweep.vary]
//   "retry.jitter" = ["none", "full", "equal"]   # each value as the file would write it
//   "workers.count" = [10, 50, 200]
//   strategy = [                                 # an axis of cases: each sets keys of its own
//     { name = "no_retries", "retry.maximum_attempts" = 1 },
//     { name = "three_retries", "retry.maximum_attempts" = 4 },
//   ]
//
// The loader checks the table's shape: each key a key path, each value a
// scalar, no key or value twice. Whether each value loads is checked by
// `twice sweep` itself, by loading the scenario with it, and reported where
// the value is written.

#include <cstdint>
#include <string>
#include <vector>

namespace twice {

namespace scenario_detail {
struct doc_node;  // the parsed document's node (src/scenario/document.hpp), not part of the API
}

struct sweep_axis {
  // Special members out of line, where a document node is a complete type.
  sweep_axis(std::string path, std::uint32_t line, std::uint32_t column);
  sweep_axis(const sweep_axis&);
  sweep_axis(sweep_axis&&) noexcept;
  sweep_axis& operator=(const sweep_axis&);
  sweep_axis& operator=(sweep_axis&&) noexcept;
  ~sweep_axis();

  std::string path;  // the key path, as error messages print it: "retry.jitter"; a case axis's name
  // Scalars, in the order given; or, for an axis of cases, tables: `name`
  // and the key paths the case sets.
  std::vector<scenario_detail::doc_node> values;
  std::uint32_t line = 0;  // where the axis is written (0: on the command line)
  std::uint32_t column = 0;
};

struct sweep_spec {
  bool present = false;  // the file has a [sweep] table
  std::uint32_t seeds = 1;
  std::vector<sweep_axis> vary;  // in file order; the last varies fastest
};

inline constexpr std::uint32_t sweep_seeds_max = 10'000;

}  // namespace twice
