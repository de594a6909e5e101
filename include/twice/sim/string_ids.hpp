#pragma once
// Dense ids for strings, in order of first appearance: the strings in a
// deque, found again through a row_index over it (a hashed lookup, not a
// sorted table's twenty string compares). Ids, and so every loop over them,
// follow the order strings were first interned; nothing iterates the hash
// table. intern() keeps a view (the caller keeps the string alive);
// intern_copy() keeps a copy of the text, packed with the others in blocks.
// Built with keep_hashes, it also keeps each string's row_index::hash (8
// bytes an id): hash(id) for whoever hashes names by text (the event
// digest), and growth moves slots without hashing any text again.

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
  struct keep_hashes_t {};
  static constexpr keep_hashes_t keep_hashes{};

  explicit string_ids(std::size_t expected = 0) : index_(expected) {}
  string_ids(keep_hashes_t, std::size_t expected = 0) : index_(expected), keeps_hashes_(true) {}

  // The id of `s`, interning it if new (ids are 0, 1, 2, ... in that order).
  // `s` is hashed once.
  std::uint32_t intern(std::string_view s) {
    const std::uint64_t h = row_index::hash(s);
    if (const auto id = index_.find(s, h, name_of())) return *id;
    return add(s, h);
  }

  // The id of `s`, interning a copy of its text if new: for strings that
  // do not outlive the call (a trace record's fields).
  std::uint32_t intern_copy(std::string_view s) {
    const std::uint64_t h = row_index::hash(s);
    if (const auto id = index_.find(s, h, name_of())) return *id;
    return add(copy_text(s), h);
  }

  std::optional<std::uint32_t> find(std::string_view s) const { return index_.find(s, name_of()); }

  std::string_view name(std::uint32_t id) const { return names_.at(id); }
  // row_index::hash(name(id)), kept since intern (keep_hashes only).
  std::uint64_t hash(std::uint32_t id) const {
    TWICE_CHECK(keeps_hashes_);
    return hashes_.at(id);
  }
  std::size_t size() const { return names_.size(); }
  std::uint64_t footprint() const {
    return names_.size() * (sizeof(std::string_view) + (keeps_hashes_ ? sizeof(std::uint64_t) : 0)) +
           index_.footprint() + blocks_.size() * block_size_;
  }

 private:
  struct name_of_id {
    const std::deque<std::string_view>* names;
    std::string_view operator()(std::uint32_t id) const { return (*names)[id]; }
  };
  name_of_id name_of() const { return name_of_id{&names_}; }

  std::uint32_t add(std::string_view s, std::uint64_t h) {
    TWICE_CHECK(names_.size() < UINT32_MAX);
    const auto id = static_cast<std::uint32_t>(names_.size());
    names_.push_back(s);
    if (keeps_hashes_) {
      hashes_.push_back(h);
      index_.insert(s, h, id, name_of(), [this](std::uint32_t row) { return hashes_[row]; });
    } else {
      index_.insert(s, h, id, name_of(), [this](std::uint32_t row) { return row_index::hash(names_[row]); });
    }
    return id;
  }

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
  std::deque<std::uint64_t> hashes_;  // by id, keep_hashes only
  sim::row_index index_;
  bool keeps_hashes_ = false;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_size_ = 0;
  std::size_t block_used_ = 0;
};

}  // namespace twice::sim
