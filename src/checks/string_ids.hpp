#pragma once
// Dense ids for strings, in order of first appearance: an open-addressing
// table (linear probing) hashed with FNV-1a, so lookups cost a hash and a
// probe or two instead of a sorted table's twenty string compares, each a
// cache miss at a million jobs. Deterministic by construction: the hash is
// fully specified (never std::hash) and nothing iterates the slots; ids, and
// so every loop over them, follow the order strings were first interned.
// Strings are views: the caller keeps them alive.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "sim/check.hpp"
#include "sim/fnv1a.hpp"

namespace twice {

class string_ids {
 public:
  // Sized for `expected` strings at most half full; it grows past that.
  explicit string_ids(std::size_t expected = 0) { rehash(capacity_for(expected)); }

  // The id of `s`, interning it if new (ids are 0, 1, 2, ... in that order).
  std::uint32_t intern(std::string_view s) {
    const std::uint64_t h = hash(s);
    std::size_t i = h & mask_;
    for (; slots_[i].id_plus_one != 0; i = (i + 1) & mask_)
      if (slots_[i].tag == tag_of(h) && names_[slots_[i].id_plus_one - 1] == s) return slots_[i].id_plus_one - 1;
    TWICE_CHECK(names_.size() < UINT32_MAX);
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.push_back(s);
    slots_[i] = slot{id + 1, tag_of(h)};
    if (2 * names_.size() > slots_.size()) rehash(slots_.size() * 2);
    return id;
  }

  std::optional<std::uint32_t> find(std::string_view s) const {
    const std::uint64_t h = hash(s);
    for (std::size_t i = h & mask_; slots_[i].id_plus_one != 0; i = (i + 1) & mask_)
      if (slots_[i].tag == tag_of(h) && names_[slots_[i].id_plus_one - 1] == s) return slots_[i].id_plus_one - 1;
    return std::nullopt;
  }

  std::string_view name(std::uint32_t id) const { return names_.at(id); }
  std::size_t size() const { return names_.size(); }

 private:
  struct slot {
    std::uint32_t id_plus_one = 0;  // 0: empty
    std::uint32_t tag = 0;          // the hash's high half: most mismatches never touch the string
  };

  // FNV-1a's low bits are weak for strings that differ in their last byte
  // only (job_000001, job_000002): a splitmix64 finaliser spreads them.
  static std::uint64_t hash(std::string_view s) {
    std::uint64_t z = sim::fnv1a64(s);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }

  void rehash(std::size_t capacity) {
    std::vector<slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    for (const slot& s : old) {
      if (s.id_plus_one == 0) continue;
      std::size_t i = hash(names_[s.id_plus_one - 1]) & mask_;
      while (slots_[i].id_plus_one != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<slot> slots_;
  std::size_t mask_ = 0;
  std::vector<std::string_view> names_;
};

}  // namespace twice
