#pragma once
// A money tool's own ledger (the payment vendor's refunds), kept compact: a
// row is ids and numbers (40 bytes), its texts (invoice, key) held once in
// the run's name table, where the trace already put them, and its id
// ("re_N") its position. A million refunds cost 40 MB here rather than
// ~190 MB of strings. Rows are read as vendor_refund values, made when asked
// for (reports, checkers).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/time.hpp>
#include <twice/sim/value_iterator.hpp>
#include <twice/vendors/vendor_refund.hpp>

namespace twice {

class refund_ledger {
 public:
  struct row {
    ev::name_id invoice = 0;
    ev::name_id key = 0;
    bool has_key = false;
    std::int64_t amount_cents = 0;
    sim::instant committed_at;
    std::uint64_t request_id = 0;
  };

  using iterator = sim::value_iterator<refund_ledger, vendor_refund>;

  // Rows' ids are "<prefix>_<n>".
  refund_ledger(const name_table& names, std::string prefix) : names_(&names), prefix_(std::move(prefix)) {}

  void push(const row& r) { rows_.push_back(r); }
  // The id of the row at `position` ("re_1" for the first).
  std::string id_of(std::size_t position) const { return prefix_ + "_" + std::to_string(position + 1); }

  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  vendor_refund operator[](std::size_t i) const;
  // The row as kept, for a reader that wants names, not texts (checkers).
  const row& raw(std::size_t i) const { return rows_.at(i); }
  vendor_refund back() const { return (*this)[rows_.size() - 1]; }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, rows_.size()}; }
  std::uint64_t footprint() const { return rows_.capacity() * sizeof(row); }

 private:
  const name_table* names_;
  std::string prefix_;
  std::vector<row> rows_;
};

}  // namespace twice
