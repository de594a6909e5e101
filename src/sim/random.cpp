#include <twice/sim/random.hpp>

#include "sim/fnv1a.hpp"

namespace twice::sim {

xoshiro256ss::xoshiro256ss(std::uint64_t seed) {
  splitmix64 sm(seed);
  for (std::uint64_t& word : s_) word = sm.next();
}

// Derivation formula (part of the replay contract: changing it changes every
// run's draws):
//
//   h       = fnv1a64(name)   (default offset basis, over the name's bytes)
//   derived = splitmix64(root_seed ^ splitmix64(h).next()).next()
//
// i.e. the first output of a splitmix64 seeded with h is xored into the root
// seed, and the first output of a splitmix64 seeded with that is the stream's
// seed (which xoshiro256ss then expands through splitmix64 once more).
//
// Why scramble h before xoring it in: FNV-1a hashes of related names
// ("worker/0", "worker/1") differ by structured amounts (multiples of the FNV
// prime), so with root ^ h two runs whose roots differ by that same pattern
// would swap streams. After the splitmix64 finaliser such coincidences are as
// unlikely as for random 64-bit values. The outer splitmix64 makes nearby
// roots (42, 43) give unrelated seeds for the same name.
std::uint64_t derive_stream_seed(std::uint64_t root_seed, std::string_view name) {
  const std::uint64_t name_key = splitmix64(fnv1a64(name)).next();
  return splitmix64(root_seed ^ name_key).next();
}

random_stream random_root::stream(std::string_view name) const {
  return random_stream(derive_stream_seed(seed_, name));
}

}  // namespace twice::sim
