// libFuzzer target: scenario text (TOML) to a validated world, which then
// runs for a bounded budget. See fuzz/input_checks.hpp for what must hold
// and scripts/fuzz.sh for how to run it.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/input_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string problem = twice::fuzz::check_scenario_text(text);
  if (!problem.empty()) {
    std::fprintf(stderr, "fuzz_scenario_loader: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
