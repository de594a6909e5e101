#pragma once
// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
// A fully specified hash with the same result on every compiler and machine,
// used to name random streams and to digest traces. Never std::hash, whose
// values differ between standard libraries.

#include <cstdint>
#include <string_view>

namespace twice::sim {

inline constexpr std::uint64_t fnv1a64_offset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t fnv1a64_prime = 0x100000001b3ULL;

constexpr std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t state = fnv1a64_offset) {
  for (char c : bytes) {
    state ^= static_cast<unsigned char>(c);
    state *= fnv1a64_prime;
  }
  return state;
}

}  // namespace twice::sim
