#pragma once
// Dense ids for strings: the strings in a deque by id, found again through a
// row_index over it (a hashed lookup, not a sorted table's twenty string
// compares). Ids are 0, 1, 2, ... in order of first appearance, until one is
// retired: then the next new string takes the most recently retired id
// (LIFO), so the ids in use, and every table indexed by them, stay as dense
// as the strings alive at once. Nothing iterates the hash table, and which id
// a string gets depends only on the order of interns and retires.
// intern() keeps a view (the caller keeps the string alive); intern_copy()
// keeps a copy of the text (sim/text_slots.hpp), given back when its id is
// retired. Built with keep_hashes, it also keeps each string's
// row_index::hash (8 bytes an id): hash(id) for whoever hashes names by text
// (the event digest), and growth and retirement move index slots without
// hashing any text again.

#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <vector>

#include <twice/sim/check.hpp>
#include <twice/sim/row_index.hpp>
#include <twice/sim/text_slots.hpp>

namespace twice::sim {

class string_ids {
 public:
  struct keep_hashes_t {};
  static constexpr keep_hashes_t keep_hashes{};

  explicit string_ids(std::size_t expected = 0) : index_(expected) {}
  string_ids(keep_hashes_t, std::size_t expected = 0) : index_(expected), keeps_hashes_(true) {}

  // The id of `s`, interning it if new. `s` is hashed once.
  std::uint32_t intern(std::string_view s) {
    const std::uint64_t h = row_index::hash(s);
    if (const auto id = index_.find(s, h, name_of())) return *id;
    return add(s, h, false);
  }

  // The id of `s`, interning a copy of its text if new: for strings that
  // do not outlive the call (a trace record's fields).
  std::uint32_t intern_copy(std::string_view s) {
    const std::uint64_t h = row_index::hash(s);
    if (const auto id = index_.find(s, h, name_of())) return *id;
    return add(texts_.copy(s), h, true);
  }

  std::optional<std::uint32_t> find(std::string_view s) const { return index_.find(s, name_of()); }

  // The string of a live id; a retired id is a check failure (a stale id
  // must stop the run, never read another string).
  std::string_view name(std::uint32_t id) const {
    TWICE_CHECK(live(id));
    return names_[id];
  }
  bool live(std::uint32_t id) const { return id < live_.size() && live_[id]; }
  // row_index::hash(name(id)), kept since intern (keep_hashes only).
  std::uint64_t hash(std::uint32_t id) const {
    TWICE_CHECK(keeps_hashes_);
    TWICE_CHECK(live(id));
    return hashes_[id];
  }

  // `id` is no longer the string's: find() does not find it, name(id)
  // fails, its copied text is given back, and the next new string takes
  // the id (the most recently retired first).
  void retire(std::uint32_t id) {
    TWICE_CHECK(live(id));
    index_.erase(id, hash_of_row(id), [this](std::uint32_t row) { return hash_of_row(row); });
    if (copied_[id]) texts_.give_back(names_[id]);
    names_[id] = {};
    live_[id] = false;
    copied_[id] = false;
    free_ids_.push_back(id);
  }

  // Ids handed out: every id is below it (a table by id needs this many
  // entries), live or retired.
  std::size_t size() const { return names_.size(); }
  std::size_t live_count() const { return names_.size() - free_ids_.size(); }
  std::uint64_t footprint() const {
    return names_.size() * (sizeof(std::string_view) + (keeps_hashes_ ? sizeof(std::uint64_t) : 0)) +
           live_.capacity() / 4 + free_ids_.capacity() * sizeof(std::uint32_t) + index_.footprint() +
           texts_.footprint();
  }

 private:
  struct name_of_id {
    const std::deque<std::string_view>* names;
    std::string_view operator()(std::uint32_t id) const { return (*names)[id]; }
  };
  name_of_id name_of() const { return name_of_id{&names_}; }
  std::uint64_t hash_of_row(std::uint32_t id) const {
    return keeps_hashes_ ? hashes_[id] : row_index::hash(names_[id]);
  }

  std::uint32_t add(std::string_view s, std::uint64_t h, bool copied) {
    std::uint32_t id = 0;
    if (!free_ids_.empty()) {
      id = free_ids_.back();
      free_ids_.pop_back();
      names_[id] = s;
      if (keeps_hashes_) hashes_[id] = h;
      live_[id] = true;
      copied_[id] = copied;
    } else {
      TWICE_CHECK(names_.size() < UINT32_MAX);
      id = static_cast<std::uint32_t>(names_.size());
      names_.push_back(s);
      if (keeps_hashes_) hashes_.push_back(h);
      live_.push_back(true);
      copied_.push_back(copied);
    }
    index_.insert(s, h, id, name_of(), [this](std::uint32_t row) { return hash_of_row(row); });
    return id;
  }

  // A deque, not a vector: a run's names grow to millions, and a vector's
  // doubling would hold the old array and the new one at once (and a
  // quarter of the new one empty on average).
  std::deque<std::string_view> names_;   // by id; empty while retired
  std::deque<std::uint64_t> hashes_;     // by id, keep_hashes only
  std::vector<bool> live_;               // by id: not retired
  std::vector<bool> copied_;             // by id: the text is texts_'s
  std::vector<std::uint32_t> free_ids_;  // retired, the most recent last
  sim::row_index index_;
  text_slots texts_;
  bool keeps_hashes_ = false;
};

}  // namespace twice::sim
