// libFuzzer target: the duration parser (sim/duration_text.hpp) on any
// bytes, and format_duration on any microsecond count read from the first
// eight. See fuzz/input_checks.hpp for what must hold.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz/input_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string problem = twice::fuzz::check_duration_text(std::string_view(reinterpret_cast<const char*>(data), size));
  if (problem.empty() && size >= sizeof(std::int64_t)) {
    std::int64_t us = 0;
    std::memcpy(&us, data, sizeof us);
    problem = twice::fuzz::check_duration_value(us);
  }
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_duration_parser: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
