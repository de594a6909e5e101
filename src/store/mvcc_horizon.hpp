#pragma once
// What Postgres' MVCC costs a hot job table while a transaction stays open.
// Every UPDATE of a row leaves its old version behind, dead. A version that
// died before the oldest open transaction began is dead to every snapshot:
// index scans mark its entries dead and pages prune it on access, so it costs
// next to nothing. One that died after must be kept, and every index scan
// over the table visits it and skips it. A transaction held open for an hour
// (an analyst's query, a pg_dump, a session idle in transaction) makes every
// version that dies meanwhile one more entry each job fetch walks: the
// fetch slows, the queue backs up, and the backlog clears "in the blink of
// an eye" once the transaction is killed (brandur, "Postgres Job Queues &
// Failure By MVCC", 2015: at ~50 jobs/s, hopeless within 15 minutes).
// PlanetScale measured the fetch's lock time at 2-3 ms with none and 180 ms
// at 24,000 such versions ("Keeping a Postgres queue healthy", 2025): about
// 7 us a version, the default of store.dead_row_cost.
//
// Tracked only while store.dead_row_cost is set: the open transactions by
// the time they began, and the versions that died since the oldest of them,
// by the instant they died. Both are plain ordered containers in time order.

#include <cstdint>
#include <deque>
#include <set>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/time.hpp>

namespace twice {

class mvcc_horizon {
 public:
  void transaction_began(std::uint64_t id, sim::instant at) { open_.emplace(at.us(), id); }
  void transaction_ended(std::uint64_t id, sim::instant began) {
    const std::size_t erased = open_.erase({began.us(), id});
    TWICE_CHECK(erased == 1);
  }
  // `versions` row versions died at `at` (a commit that updated that many rows).
  void versions_died(sim::instant at, std::uint64_t versions) {
    if (versions == 0 || open_.empty()) return;  // dead to every snapshot at once
    if (!died_.empty() && died_.back().first == at.us())
      died_.back().second += versions;
    else
      died_.emplace_back(at.us(), versions);
    kept_ += versions;
  }
  // The dead versions some open transaction may still see: what a scan of
  // the job table walks past. Forgets those no transaction can see any more.
  std::uint64_t visible_dead_versions() {
    const std::int64_t horizon = open_.empty() ? INT64_MAX : open_.begin()->first;
    while (!died_.empty() && died_.front().first < horizon) {
      kept_ -= died_.front().second;
      died_.pop_front();
    }
    return kept_;
  }
  std::uint64_t footprint() const { return open_.size() * 48 + died_.size() * sizeof(died_.front()); }

 private:
  std::set<std::pair<std::int64_t, std::uint64_t>> open_;    // (began, transaction id)
  std::deque<std::pair<std::int64_t, std::uint64_t>> died_;  // (died at, versions), oldest first
  std::uint64_t kept_ = 0;                                   // versions in died_
};

}  // namespace twice
