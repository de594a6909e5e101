#pragma once
// The committed job rows, kept compact: a row is its numbers (24 bytes),
// found by the job id's dense id in a table of the ids' texts, and its last
// error an id in a table of the few distinct error texts. A million jobs
// cost ~65 bytes each here where a deque of job_row (two std::strings a
// row) and an index over it cost ~125. Rows are never deleted. Rows are
// read as job_row values and changed through job_update, applied to the
// row as it is then. Two rare columns live beside the rows, keyed by
// position: the claim time of a row that is running (an index of the
// running rows, which is what an orphan rescue's query reads), attempts
// granted by a rescue, and the first failure's time (Sidekiq's failed_at,
// kept only with retry_for).

#include <cstdint>
#include <deque>
#include <map>
#include <vector>
#include <optional>
#include <string>
#include <string_view>

#include <twice/sim/check.hpp>
#include <twice/sim/string_ids.hpp>
#include <twice/store/rows.hpp>

namespace twice {

class job_rows {
 public:
  job_rows() { errors_.intern_copy({}); }

  std::optional<job_row> find(std::string_view id) const {
    const std::optional<std::uint32_t> at = ids_.find(id);
    if (!at) return std::nullopt;
    return row_of(*at);
  }
  // The lease token on the row `id` names, which must exist.
  std::uint64_t lease_token_of(std::string_view id) const { return rows_.at(at_of(id)).lease_token; }
  // Adds a row whose id is new; false (and nothing changes) if it is not.
  bool insert(const job_row& row) {
    if (ids_.find(row.job_id)) return false;
    const std::uint32_t at = ids_.intern_copy(row.job_id);
    TWICE_CHECK(at == rows_.size());
    rows_.push_back(kept_of(at, row));
    return true;
  }
  // Replaces the row with the same id, or adds it.
  void put(const job_row& row) {
    if (const std::optional<std::uint32_t> at = ids_.find(row.job_id))
      rows_[*at] = kept_of(*at, row);
    else
      insert(row);
  }
  // Applies `change` to the row `id` names, which must exist.
  void update(std::string_view id, const job_update& change) {
    const std::uint32_t at = at_of(id);
    job_row row = row_of(at);
    change.apply_to(row);
    rows_[at] = kept_of(at, row);
  }
  std::size_t size() const { return rows_.size(); }
  // The rows running since before `cutoff`, in the order they were added:
  // `WHERE status = 'running' AND attempted_at < $cutoff`.
  std::vector<job_row> running_before(sim::instant cutoff) const {
    std::vector<job_row> out;
    for (const auto& [at, since] : running_since_)
      if (since < cutoff) out.push_back(row_of(at));
    return out;
  }
  std::uint64_t footprint() const {
    // A map node: the pair and three pointers and a colour, rounded up.
    constexpr std::uint64_t node = 48;
    return rows_.size() * sizeof(kept) + ids_.footprint() + errors_.footprint() +
           (running_since_.size() + granted_.size() + failed_at_.size()) * node;
  }

 private:
  struct kept {
    std::uint64_t lease_token = 0;
    std::uint32_t attempts = 0;
    std::int32_t checkpoint_step = -1;
    std::uint32_t last_error = 0;  // in errors_; 0 is ""
    job_status status = job_status::queued;
    std::uint16_t redrives = 0;  // in the padding: at most dead_letter_queue.redrives (1000)
  };
  std::uint32_t at_of(std::string_view id) const {
    const std::optional<std::uint32_t> at = ids_.find(id);
    TWICE_CHECK(at.has_value());
    return *at;
  }
  job_row row_of(std::uint32_t at) const {
    const kept& k = rows_[at];
    job_row row;
    row.job_id = std::string(ids_.name(at));
    row.status = k.status;
    row.attempts = k.attempts;
    row.checkpoint_step = k.checkpoint_step;
    row.lease_token = k.lease_token;
    if (k.last_error != 0) row.last_error = std::string(errors_.name(k.last_error));
    row.redrives = k.redrives;
    if (!granted_.empty())
      if (const auto g = granted_.find(at); g != granted_.end()) row.attempts_granted = g->second;
    if (!failed_at_.empty())
      if (const auto f = failed_at_.find(at); f != failed_at_.end()) row.failed_at = f->second;
    if (k.status == job_status::running)
      if (const auto r = running_since_.find(at); r != running_since_.end()) row.attempted_at = r->second;
    return row;
  }
  // The row at position `at` as kept, its rare columns set aside.
  kept kept_of(std::uint32_t at, const job_row& row) {
    TWICE_CHECK(row.redrives <= UINT16_MAX);
    if (row.status == job_status::running && row.attempted_at)
      running_since_.insert_or_assign(at, *row.attempted_at);
    else if (!running_since_.empty())
      running_since_.erase(at);
    if (row.attempts_granted != 0)
      granted_.insert_or_assign(at, row.attempts_granted);
    else if (!granted_.empty())
      granted_.erase(at);
    if (row.failed_at)
      failed_at_.insert_or_assign(at, *row.failed_at);
    else if (!failed_at_.empty())
      failed_at_.erase(at);
    // Most rows carry no error: "" is id 0 from the start, no lookup needed.
    const std::uint32_t last_error = row.last_error.empty() ? 0 : errors_.intern_copy(row.last_error);
    return {row.lease_token, row.attempts, row.checkpoint_step,
            last_error,      row.status,   static_cast<std::uint16_t>(row.redrives)};
  }

  sim::string_ids ids_;     // job ids; a row's position is its id's
  sim::string_ids errors_;  // last errors, "" first
  std::deque<kept> rows_;
  std::map<std::uint32_t, sim::instant> running_since_;  // running rows that carry a claim time
  std::map<std::uint32_t, std::uint32_t> granted_;       // rows with attempts granted
  std::map<std::uint32_t, sim::instant> failed_at_;      // rows with a first failure's time
};

}  // namespace twice
