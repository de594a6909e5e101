#include <twice/sim/row_index.hpp>

#include <xxhash.h>

namespace twice::sim {

std::uint64_t row_index::hash(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

}  // namespace twice::sim
