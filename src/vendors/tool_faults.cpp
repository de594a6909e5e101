#include <twice/vendors/tool_faults.hpp>

#include <twice/sim/check.hpp>
#include <twice/sim/distributions.hpp>

namespace twice {

bool draw_ppm(sim::random_stream& rng, std::uint32_t ppm) {
  TWICE_CHECK(ppm <= ppm_denominator);
  return sim::bernoulli(rng, ppm, ppm_denominator);
}

}  // namespace twice
