#include "broker/tombstone_table.hpp"

#include <algorithm>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

const tombstone_table::row* tombstone_table::row_of(std::uint64_t id) const {
  const auto it =
      std::lower_bound(rows_.begin(), rows_.end(), id, [](const row& r, std::uint64_t i) { return r.id < i; });
  return it != rows_.end() && it->id == id ? &*it : nullptr;
}

const tombstone_table::tombstone* tombstone_table::find(std::uint64_t id) const {
  if (const row* r = row_of(id); r != nullptr && r->t.handles_issued != 0) return &r->t;
  const auto it = stragglers_.find(id);
  return it != stragglers_.end() ? &it->second : nullptr;
}

void tombstone_table::insert(std::uint64_t id, const tombstone& t) {
  TWICE_CHECK(t.handles_issued != 0);
  const auto at =
      std::lower_bound(rows_.begin(), rows_.end(), id, [](const row& r, std::uint64_t i) { return r.id < i; });
  if (at != rows_.end() && at->id == id) {
    // Its forgotten row, not yet dropped (an id is never in both parts).
    TWICE_CHECK(at->t.handles_issued == 0);
    at->t = t;
    --marked_;
    return;
  }
  if (static_cast<std::size_t>(rows_.end() - at) <= near_end) {
    rows_.insert(at, row{id, t});
    return;
  }
  const bool inserted = stragglers_.emplace(id, t).second;
  TWICE_CHECK(inserted);
}

tombstone_table::tombstone tombstone_table::erase(std::uint64_t id) {
  const auto at =
      std::lower_bound(rows_.begin(), rows_.end(), id, [](const row& r, std::uint64_t i) { return r.id < i; });
  if (at != rows_.end() && at->id == id && at->t.handles_issued != 0) {
    const tombstone t = at->t;
    at->t.handles_issued = 0;
    if (++marked_ >= 1024 && 2 * marked_ >= rows_.size()) compact();
    return t;
  }
  const auto it = stragglers_.find(id);
  TWICE_CHECK(it != stragglers_.end());
  const tombstone t = it->second;
  stragglers_.erase(it);
  return t;
}

void tombstone_table::compact() {
  std::erase_if(rows_, [](const row& r) { return r.t.handles_issued == 0; });
  marked_ = 0;
  if (rows_.capacity() > 4 * rows_.size() + 1024) rows_.shrink_to_fit();
}

std::uint64_t tombstone_table::footprint() const { return sim::footprint_of(rows_) + sim::tree_footprint(stragglers_); }

}  // namespace twice
