#pragma once
// `twice demo`: a small story on the bare kernel (a producer, two consumers,
// one crash), printed as its trace and digest. Same seed, same digest.

#include <cstdint>
#include <string>
#include <vector>

#include <twice/sim/kernel.hpp>

namespace twice::cli {

struct kernel_story {
  sim::run_result result;
  std::vector<std::string> lines;  // the trace, one readable line per record
  std::uint64_t digest = 0;
};

kernel_story run_kernel_story(std::uint64_t seed);
int print_kernel_demo(std::uint64_t seed, bool quiet);
// "12.000250s": seconds with microsecond precision, for timelines.
std::string format_clock(sim::instant t);

}  // namespace twice::cli
