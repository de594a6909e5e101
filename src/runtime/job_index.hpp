#pragma once
// A table keyed by job id, built once and then only looked up (and its
// values changed): one sorted array of (id, value), so a million jobs cost
// 16 bytes of key each rather than a tree node apiece. Ids are views of
// strings the owner keeps (the world's job specs). Iteration is in id
// order, the order a std::map<std::string, V> would give, so nothing that
// reads it (reports, checkers) sees a difference.

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/sim/check.hpp>

namespace twice {

template <class V>
class job_index {
 public:
  using entry = std::pair<std::string_view, V>;
  using iterator = typename std::vector<entry>::iterator;
  using const_iterator = typename std::vector<entry>::const_iterator;

  // Building: add every id once, then seal(); a repeated id is a check
  // failure (the loader rejects duplicate job ids).
  void reserve(std::size_t n) { entries_.reserve(n); }
  void add(std::string_view id, V value) {
    TWICE_CHECK(!sealed_);
    entries_.emplace_back(id, std::move(value));
  }
  void seal() {
    std::sort(entries_.begin(), entries_.end(), [](const entry& a, const entry& b) { return a.first < b.first; });
    const auto twin = std::adjacent_find(entries_.begin(), entries_.end(),
                                         [](const entry& a, const entry& b) { return a.first == b.first; });
    TWICE_CHECK(twin == entries_.end());
    sealed_ = true;
  }

  iterator find(std::string_view id) {
    const auto it = lower_bound(id);
    return it != entries_.end() && it->first == id ? it : entries_.end();
  }
  const_iterator find(std::string_view id) const { return const_cast<job_index*>(this)->find(id); }
  const V& at(std::string_view id) const {
    const auto it = find(id);
    TWICE_CHECK(it != entries_.end());
    return it->second;
  }

  std::size_t size() const { return entries_.size(); }
  std::uint64_t footprint() const { return entries_.capacity() * sizeof(entry); }
  bool empty() const { return entries_.empty(); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

 private:
  iterator lower_bound(std::string_view id) {
    TWICE_CHECK(sealed_);
    return std::lower_bound(entries_.begin(), entries_.end(), id,
                            [](const entry& e, std::string_view key) { return e.first < key; });
  }

  std::vector<entry> entries_;
  bool sealed_ = false;
};

}  // namespace twice
