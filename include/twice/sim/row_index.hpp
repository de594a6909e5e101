#pragma once
// Rows of a table found by a text column: an open-addressing table (linear
// probing) of row numbers, hashed with XXH3-64 (libxxhash), compared against
// the rows themselves, so no key is stored twice and a lookup is a hash and a
// probe or two rather than a walk down a tree of string keys (twenty
// compares, each a cache miss, at a million rows). Deterministic by
// construction: the hash is fully specified (never std::hash) and nothing
// iterates the slots. The caller owns the rows and passes `key_of(row)`, the
// row's key as text, to lookups, and `hash_of(row)`, that key's hash(), to
// whatever moves slots (growth, erasure): a caller that keeps each row's hash
// moves slots without reading a row's text. A key maps to one row at most
// (insert the first, find it again); a row erased leaves no tombstone
// (backward-shift deletion), so probes stay as short as if it had never been
// inserted, and the slots depend only on the operations, in their order.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <twice/sim/check.hpp>

namespace twice::sim {

class row_index {
 public:
  // Sized for `expected` rows at most half full; it grows past that.
  explicit row_index(std::size_t expected = 0) { rehash(capacity_for(expected)); }

  // `h` is hash(key), for a caller that has it already.
  template <class KeyOf>
  std::optional<std::uint32_t> find(std::string_view key, std::uint64_t h, KeyOf&& key_of) const {
    for (std::size_t i = h & mask_; slots_[i].row_plus_one != 0; i = (i + 1) & mask_)
      if (slots_[i].tag == tag_of(h) && key_of(slots_[i].row_plus_one - 1) == key) return slots_[i].row_plus_one - 1;
    return std::nullopt;
  }
  template <class KeyOf>
  std::optional<std::uint32_t> find(std::string_view key, KeyOf&& key_of) const {
    return find(key, hash(key), key_of);
  }

  // Adds `row` under `key` (hash h), which no row in the index has yet (a
  // check).
  template <class KeyOf, class HashOf>
  void insert(std::string_view key, std::uint64_t h, std::uint32_t row, KeyOf&& key_of, HashOf&& hash_of) {
    TWICE_CHECK(row < UINT32_MAX);
    std::size_t i = h & mask_;
    for (; slots_[i].row_plus_one != 0; i = (i + 1) & mask_)
      TWICE_CHECK(slots_[i].tag != tag_of(h) || key_of(slots_[i].row_plus_one - 1) != key);
    slots_[i] = slot{row + 1, tag_of(h)};
    if (2 * ++size_ > slots_.size()) grow(hash_of);
  }
  // The same, for a caller that keeps no hashes: growth hashes each row's key again.
  template <class KeyOf>
  void insert(std::string_view key, std::uint32_t row, KeyOf&& key_of) {
    insert(key, hash(key), row, key_of, [&key_of](std::uint32_t r) { return hash(key_of(r)); });
  }

  // Removes `row`, whose key hashes to `h` and which the index holds (a
  // check). Each row after it in its probe run whose home slot is not
  // between the hole and itself moves back into the hole (Knuth, TAOCP
  // vol. 3, 6.4, Algorithm R), so every remaining row is still found
  // from its home slot without crossing an empty one.
  template <class HashOf>
  void erase(std::uint32_t row, std::uint64_t h, HashOf&& hash_of) {
    std::size_t hole = h & mask_;
    while (slots_[hole].row_plus_one != row + 1) {
      TWICE_CHECK(slots_[hole].row_plus_one != 0);
      hole = (hole + 1) & mask_;
    }
    for (std::size_t j = (hole + 1) & mask_; slots_[j].row_plus_one != 0; j = (j + 1) & mask_) {
      const std::size_t home = hash_of(slots_[j].row_plus_one - 1) & mask_;
      // Stays if its home lies cyclically in (hole, j]: the hole is not on its probe path.
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = slot{};
    --size_;
  }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }
  std::uint64_t footprint() const { return slots_.capacity() * sizeof(slot); }

  // XXH3 rather than FNV-1a: a key is hashed at every lookup, and FNV-1a's
  // chain of dependent multiplies, a byte at a time, was a tenth of a steady
  // run (idempotency keys are 20 to 30 bytes). Out of line, so that this
  // header does not pull xxhash.h into every file that includes it. The
  // event digest hashes a name with the same function (XXH3-64, seed 0).
  static std::uint64_t hash(std::string_view key);

 private:
  struct slot {
    std::uint32_t row_plus_one = 0;  // 0: empty
    std::uint32_t tag = 0;           // the hash's high half: most mismatches never read the row
  };

  static std::uint32_t tag_of(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }

  void rehash(std::size_t capacity) {
    slots_.assign(capacity, slot{});
    mask_ = capacity - 1;
  }

  template <class HashOf>
  void grow(HashOf&& hash_of) {
    std::vector<slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const slot& s : old) {
      if (s.row_plus_one == 0) continue;
      std::size_t i = hash_of(s.row_plus_one - 1) & mask_;
      while (slots_[i].row_plus_one != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace twice::sim
