#pragma once
// What a run of `twice explore` draws, apart from the document it makes:
// its world seed, each range's value (spec.vary order) and, per fault kind
// present, whether it is kept. `--guide coverage` varies these of a run
// that reached something rare.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace twice::explore {

struct run_genes {
  std::uint64_t world_seed = 0;
  std::vector<std::int64_t> values;
  std::vector<std::pair<std::string, bool>> kinds;  // fault kind -> kept, in name order
};

}  // namespace twice::explore
