#pragma once
// The committed money ledger, kept row: a row is three name ids (key,
// job, vendor reference) and two numbers, 32 bytes, its texts held once in
// the run's name table (the trace has named them all before a row commits).
// The first row of each non-empty key is found by the key's name id. Rows
// are read as ledger_row values, made when asked for.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/check.hpp>
#include <twice/sim/value_iterator.hpp>
#include <twice/store/rows.hpp>

namespace twice {

class ledger_table {
 public:
  using iterator = sim::value_iterator<ledger_table, ledger_row>;
  // A row as kept: its texts are names in the run's name table.
  struct row {
    ev::name_id key = 0;  // 0: the empty text, no key
    ev::name_id job = 0;
    ev::name_id vendor_ref = 0;
    std::int64_t amount_cents = 0;
    sim::instant at;
  };

  explicit ledger_table(event_log& events) : events_(&events) {}

  void push(const ledger_row& r) {
    TWICE_CHECK(rows_.size() < UINT32_MAX);
    // In the order the fields are declared, so a text new to the run is
    // named the same way every time.
    const row c{events_->name(r.key), events_->name(r.job_id), events_->name(r.vendor_ref), r.amount_cents, r.at};
    if (!r.key.empty()) {
      if (c.key >= first_by_key_.size())
        first_by_key_.resize(std::max<std::size_t>(c.key + 1, first_by_key_.size() * 2), 0);
      if (first_by_key_[c.key] == 0) first_by_key_[c.key] = static_cast<std::uint32_t>(rows_.size()) + 1;
    }
    rows_.push_back(c);
  }
  // The first row with this non-empty key, if any.
  std::optional<std::uint32_t> first_of_key(std::string_view key) const {
    const std::optional<ev::name_id> name = events_->names().find(key);
    if (!name || *name >= first_by_key_.size() || first_by_key_[*name] == 0) return std::nullopt;
    return first_by_key_[*name] - 1;
  }

  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  ledger_row operator[](std::size_t i) const {
    TWICE_CHECK(i < rows_.size());
    const row& c = rows_[i];
    const name_table& names = events_->names();
    return {std::string(names.text(c.key)), c.amount_cents, std::string(names.text(c.job)),
            std::string(names.text(c.vendor_ref)), c.at};
  }
  // The row as kept, for a reader that wants names, not texts (checkers).
  const row& raw(std::size_t i) const { return rows_.at(i); }
  ledger_row back() const { return (*this)[rows_.size() - 1]; }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, rows_.size()}; }
  std::uint64_t footprint() const {
    return rows_.capacity() * sizeof(row) + first_by_key_.capacity() * sizeof(std::uint32_t);
  }

 private:
  event_log* events_;
  std::vector<row> rows_;
  std::vector<std::uint32_t> first_by_key_;  // by key name: 1 + the first row's position (0: none)
};

}  // namespace twice
