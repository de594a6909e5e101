#pragma once
// What a shrunk scenario is measured by: the fewer, the easier to read.

#include <cstddef>
#include <cstdint>
#include <string>

namespace twice {
struct world_config;  // <twice/world/world.hpp>
}

namespace twice::explore {

struct scenario_size {
  std::size_t jobs = 0;
  std::uint32_t workers = 0;
  // [[fault]], [[crash]], [[deploy]] and [[queue_fault]] rules, outage and
  // latency spike windows, and non-zero error rates.
  std::size_t faults = 0;
};

scenario_size size_of(const world_config& c);
// "1 job, 1 worker, 2 faults"
std::string describe(const scenario_size& s);

}  // namespace twice::explore
