#pragma once
// Dense ids for strings, in order of first appearance: the strings in a
// deque, found again through a row_index over it (a hashed lookup, not a
// sorted table's twenty string compares). Ids, and so every loop over them,
// follow the order strings were first interned; nothing iterates the hash
// table. intern() keeps a view (the caller keeps the string alive);
// intern_copy() keeps a copy of the text, packed with the others in blocks.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <twice/sim/check.hpp>
#include <twice/sim/row_index.hpp>

namespace twice::sim {

class string_ids {
 public:
  explicit string_ids(std::size_t expected = 0) : index_(expected) {}

  // The id of `s`, interning it if new (ids are 0, 1, 2, ... in that order).
  std::uint32_t intern(std::string_view s) {
    if (const auto id = find(s)) return *id;
    TWICE_CHECK(names_.size() < UINT32_MAX);
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.push_back(s);
    index_.insert(s, id, name_of());
    return id;
  }

  // The id of `s`, interning a copy of its text if new: for strings that
  // do not outlive the call (a trace record's fields).
  std::uint32_t intern_copy(std::string_view s) {
    if (const auto id = find(s)) return *id;
    return intern(copy_text(s));
  }

  std::optional<std::uint32_t> find(std::string_view s) const { return index_.find(s, name_of()); }

  std::string_view name(std::uint32_t id) const { return names_.at(id); }
  std::size_t size() const { return names_.size(); }
  std::uint64_t footprint() const {
    return names_.size() * sizeof(std::string_view) + index_.footprint() + blocks_.size() * block_size_;
  }

 private:
  struct name_of_id {
    const std::deque<std::string_view>* names;
    std::string_view operator()(std::uint32_t id) const { return (*names)[id]; }
  };
  name_of_id name_of() const { return name_of_id{&names_}; }

  // Copies live in blocks that never move: a job id costs its length, not a
  // std::string's 32 bytes.
  std::string_view copy_text(std::string_view s) {
    if (s.empty()) return {};
    if (blocks_.empty() || block_used_ + s.size() > block_size_) {
      block_size_ = std::max<std::size_t>(64 * 1024, s.size());
      blocks_.push_back(std::make_unique<char[]>(block_size_));
      block_used_ = 0;
    }
    char* at = blocks_.back().get() + block_used_;
    std::memcpy(at, s.data(), s.size());
    block_used_ += s.size();
    return {at, s.size()};
  }

  // A deque, not a vector: a run's names grow to millions, and a vector's
  // doubling would hold the old array and the new one at once (and a
  // quarter of the new one empty on average).
  std::deque<std::string_view> names_;
  sim::row_index index_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_size_ = 0;
  std::size_t block_used_ = 0;
};

}  // namespace twice::sim
