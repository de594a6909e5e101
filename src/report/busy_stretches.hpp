#pragma once
// When something was drawn, as disjoint stretches of time: what a long run's
// dropped spans covered (span_bound), so the report's axis compresses only
// what really was idle without the spans themselves being kept. Internal to
// the report layer.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace twice {

// [from_us, to_us], in time order, none touching the next.
using busy_stretch = std::pair<std::int64_t, std::int64_t>;

// Adds [from_us, to_us] (a point when equal), merging what it overlaps or
// touches. Past `max_stretches`, the two stretches with the shortest gap
// between them (the earliest of equal gaps) become one: the axis compresses
// only the few longest idle gaps (time_axis::max_breaks, each longer than
// everything still drawn to scale), never one among a thousand shorter ones.
void add_busy(std::vector<busy_stretch>& stretches, std::int64_t from_us, std::int64_t to_us,
              std::size_t max_stretches);

}  // namespace twice
