#pragma once
// The few phrases every invariant's detail and evidence share, so the
// checkers split by concept (invariants.cpp, attempt_checks.cpp,
// effect_checks.cpp, queue_checks.cpp) word them alike.

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "sim/count_text.hpp"
#include <twice/sim/time.hpp>

namespace twice::check_text {

// "12.000250s": a trace time, to the microsecond.
inline std::string clock(sim::instant t) { return fmt::format("{}.{:06}s", t.us() / 1'000'000, t.us() % 1'000'000); }

// "1 job", "3 jobs".
inline std::string count_of(std::uint64_t n, std::string_view one, std::string_view many) {
  return sim::counted(n, one, many);
}

// A verdict's detail names the first thing found wrong; this says how many
// more there were, so a reader never takes the first for the only one.
inline std::string and_more(std::uint64_t more, std::string_view one, std::string_view many) {
  return more == 0 ? std::string() : fmt::format(" (and {} more {})", more, more == 1 ? one : many);
}

}  // namespace twice::check_text
