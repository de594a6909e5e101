#pragma once
// Seeded random streams. The simulator has one root seed; every component
// draws from its own named stream derived from (root seed, name), so adding a
// worker never shifts the vendor's latencies. The generators are fully
// specified (Vigna's SplitMix64 and xoshiro256** 1.0) and use only 64-bit
// integer arithmetic, so a stream yields the same bits with any compiler,
// standard library or optimisation level. Never std::mt19937 and friends:
// their seeding and the std distributions on top differ between libraries.

#include <bit>
#include <cstdint>
#include <string_view>

namespace twice::sim {

// SplitMix64 (Vigna, http://prng.di.unimi.it/splitmix64.c). Used to expand
// one 64-bit seed into generator state and to mix stream names into seeds;
// its output function is a bijection of the counter, so distinct counters
// give distinct outputs.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// xoshiro256** 1.0 (Blackman & Vigna, http://prng.di.unimi.it/xoshiro256starstar.c).
// Seeded, as the authors recommend, with four consecutive splitmix64(seed)
// outputs. Those are four distinct values, so the forbidden all-zero state
// cannot occur.
class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed);

  std::uint64_t next() {
    const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

 private:
  std::uint64_t s_[4];
};

// What components draw from. A plain value (32 bytes of state plus the seed):
// copying it copies its position, which is what cloning a world needs.
// Normally obtained from random_root::stream; the seed constructor exists for
// tests and tools that replay one stream in isolation.
class random_stream {
 public:
  explicit random_stream(std::uint64_t seed) : seed_(seed), gen_(seed) {}

  std::uint64_t next_u64() { return gen_.next(); }

  // The derived seed this stream started from (for diagnostics and replay).
  std::uint64_t seed() const { return seed_; }

 private:
  std::uint64_t seed_;
  xoshiro256ss gen_;
};

// The one root seed of a run. Streams are derived, not drawn from shared
// state, so the order in which streams are requested (or whether another
// stream exists at all) never changes any stream's values.
class random_root {
 public:
  explicit random_root(std::uint64_t seed) : seed_(seed) {}

  std::uint64_t seed() const { return seed_; }

  // derived seed = splitmix64(root ^ splitmix64(fnv1a64(name)).next()).next()
  // (see derive_stream_seed). Same (seed, name) => same stream.
  random_stream stream(std::string_view name) const;

 private:
  std::uint64_t seed_;
};

// The derivation behind random_root::stream, exposed so tools can print or
// check a stream's seed without building a root.
std::uint64_t derive_stream_seed(std::uint64_t root_seed, std::string_view name);

}  // namespace twice::sim
