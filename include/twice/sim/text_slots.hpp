#pragma once
// Copies of texts that can be given back one at a time (sim/string_ids.hpp
// retiring a name): a text of up to 64 bytes gets a slot of its size rounded
// up to 8 bytes, carved from 64 KiB blocks that are never moved or freed; a
// slot given back goes on its size class's free list (intrusive: the slot
// holds the next one's address), and the next text of that class takes the
// most recent one. A longer text gets an allocation of its own, freed when
// given back. So the bytes held follow the texts held at once, not every
// text ever copied; the price is up to 7 bytes of rounding a text.

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include <twice/sim/check.hpp>

namespace twice::sim {

class text_slots {
 public:
  text_slots() = default;
  text_slots(const text_slots&) = delete;
  text_slots& operator=(const text_slots&) = delete;
  ~text_slots() {
    for (char* big : big_) delete[] big;
  }

  // A copy of `s` that stays where it is until given back (the empty text
  // needs no bytes).
  std::string_view copy(std::string_view s) {
    if (s.empty()) return {};
    char* at = nullptr;
    if (s.size() > max_small) {
      at = new char[s.size()];
      big_.insert(at);
      big_bytes_ += s.size();
    } else {
      at = take(class_of(s.size()));
    }
    std::memcpy(at, s.data(), s.size());
    return {at, s.size()};
  }

  // Gives back a copy made by copy(); its bytes are reused.
  void give_back(std::string_view copied) {
    if (copied.empty()) return;
    char* at = const_cast<char*>(copied.data());
    if (copied.size() > max_small) {
      TWICE_CHECK(big_.erase(at) == 1);  // a copy of this table's
      delete[] at;
      big_bytes_ -= copied.size();
      return;
    }
    const std::size_t c = class_of(copied.size());
    std::memcpy(at, &free_[c], sizeof(char*));
    free_[c] = at;
  }

  // Bytes held: every block, and every long text with its node in big_.
  std::uint64_t footprint() const {
    return blocks_.size() * block_bytes + blocks_.capacity() * sizeof(std::unique_ptr<char[]>) + big_bytes_ +
           big_.size() * 48;
  }

 private:
  static constexpr std::size_t class_bytes = 8;
  static constexpr std::size_t max_small = 64;
  static constexpr std::size_t block_bytes = 64 * 1024;
  static constexpr std::size_t classes = max_small / class_bytes;  // 1..8 bytes is class 0

  static std::size_t class_of(std::size_t size) { return (size - 1) / class_bytes; }

  char* take(std::size_t c) {
    if (char* slot = free_[c]) {
      std::memcpy(&free_[c], slot, sizeof(char*));
      return slot;
    }
    const std::size_t bytes = (c + 1) * class_bytes;
    if (blocks_.empty() || used_ + bytes > block_bytes) {
      blocks_.push_back(std::make_unique<char[]>(block_bytes));
      used_ = 0;
    }
    char* at = blocks_.back().get() + used_;
    used_ += bytes;
    return at;
  }

  std::array<char*, classes> free_{};
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t used_ = 0;
  // Long texts, by address: only ever looked up or erased, never walked
  // but to free them, so the address order decides nothing.
  std::set<char*> big_;
  std::uint64_t big_bytes_ = 0;
};

}  // namespace twice::sim
