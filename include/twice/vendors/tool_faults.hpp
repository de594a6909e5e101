#pragma once
// How a simulated tool fails: windows of outage and of extra latency, error
// rates as exact parts per million, and the error codes every tool answers
// with.

#include <cstdint>
#include <string_view>

#include <twice/sim/distributions.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// [begin, end): half open, so back-to-back windows never overlap.
struct time_window {
  sim::instant begin;
  sim::instant end;
  bool contains(sim::instant t) const { return begin <= t && t < end; }
};

// Extra latency for executions that *arrive* inside the window.
struct latency_spike {
  time_window window;
  sim::duration extra = sim::duration::zero();
};

using sim::ppm_denominator;

// True with probability ppm / 1e6; always exactly one bernoulli draw.
bool draw_ppm(sim::random_stream& rng, std::uint32_t ppm);

// error_code values shared by every simulated tool.
namespace error_codes {
inline constexpr std::string_view timeout = "timeout";          // status 0: no answer in time
inline constexpr std::string_view unavailable = "unavailable";  // 503 before any effect
}  // namespace error_codes

}  // namespace twice
