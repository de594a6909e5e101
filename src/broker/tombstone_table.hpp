#pragma once
// A queue's tombstones (broker/queue.hpp): for each message that was received
// here and has gone, the handles it was given and when they are forgotten.
// Most live for the message's whole retention (four days by default), so a
// run of a million jobs ends holding a million of them: 32 bytes a row in a
// vector sorted by message id, where a tree node per row was 80.
//
// Messages leave about in the order they were sent (ids grow with sending),
// so a new row goes at or near the end of the vector. One that would land
// further back (a message held for hours, redriven away and back) goes to a
// small tree beside it instead, so no insert shifts more than a few kilobytes
// of rows. A forgotten row in the vector is only marked and dropped in
// batches, once the marked are half of them (each row is moved O(1) times on
// average). Nothing iterates either part in an order that could reach the
// schedule: rows are only ever found by id.

#include <cstdint>
#include <map>
#include <vector>

#include <twice/sim/time.hpp>

namespace twice {

class tombstone_table {
 public:
  struct tombstone {
    std::uint64_t handles_from = 0;  // its handles here are those from this one on
    sim::instant forget_at;
    std::uint32_t handles_issued = 0;  // how many: never 0 (a message never received leaves none)
  };

  // Null when `id` has no tombstone.
  const tombstone* find(std::uint64_t id) const;
  bool contains(std::uint64_t id) const { return find(id) != nullptr; }
  // `id` must have none yet.
  void insert(std::uint64_t id, const tombstone& t);
  // Removes `id`'s tombstone, which must exist; returns it.
  tombstone erase(std::uint64_t id);

  std::size_t size() const { return rows_.size() - marked_ + stragglers_.size(); }
  // Bytes held (sim/footprint.hpp).
  std::uint64_t footprint() const;

  // An insert at most this many rows from the end shifts them; further back it goes to the tree.
  static constexpr std::size_t near_end = 256;

 private:
  struct row {
    std::uint64_t id = 0;
    tombstone t;  // handles_issued 0: forgotten, waiting to be dropped
  };
  // The vector row for `id`, forgotten or not, or null.
  const row* row_of(std::uint64_t id) const;
  void compact();

  std::vector<row> rows_;                          // ascending by id, each id at most once
  std::size_t marked_ = 0;                         // rows of rows_ forgotten
  std::map<std::uint64_t, tombstone> stragglers_;  // ids in none of rows_' live rows
};

}  // namespace twice
