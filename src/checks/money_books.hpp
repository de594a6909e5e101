#pragma once
// What the money invariants (one_ledger_row_per_key, no_double_payment,
// ledgers_agree, done_jobs_paid_in_full) weigh once a run has ended: per
// tool that moves money (the refund tool, a charge of the scenario's own),
// its ledger and, per target, what the story's steps asked and what the
// far side paid. Built once per run from the world's final state
// (checks/check_context.hpp) and read by all four.
//
// The tables are keyed by dense ids (string_ids), not sorted strings: at a
// million jobs, sorting a table of string views costs twenty million
// compares, each a cache miss into a row somewhere on the heap. Only what is
// found wrong, a handful of keys in a bad run, is sorted, so the report
// lists it in the ascending order a reader (and the goldens) expect.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/string_ids.hpp>
#include <twice/vendors/vendor_refund.hpp>
#include <twice/world/world.hpp>

#include "vendors/refund_ledger.hpp"

namespace twice {

// Dense ids for texts, nearly all of them names the run already has: those
// are found by name (4 bytes a name) and viewed in the name table; the few
// the run never named (the invoice of a job that never ran) are copied.
// Ids follow first sight; views stay valid as long as the name table.
class text_ids {
 public:
  explicit text_ids(const name_table& names) : names_(names), by_name_(names.size(), none) {}
  std::uint32_t intern(std::string_view text);
  std::uint32_t intern_name(ev::name_id name);
  std::optional<std::uint32_t> find(std::string_view text) const;
  std::uint32_t id_of_name(ev::name_id name) const { return by_name_.at(name); }  // of a name interned before
  std::string_view name(std::uint32_t id) const { return texts_[id]; }
  std::size_t size() const { return texts_.size(); }

 private:
  static constexpr std::uint32_t none = UINT32_MAX;
  std::uint32_t add(std::string_view text) {
    texts_.push_back(text);
    return static_cast<std::uint32_t>(texts_.size() - 1);
  }
  const name_table& names_;
  std::vector<std::uint32_t> by_name_;  // name -> id, or none
  sim::string_ids extra_;
  std::vector<std::uint32_t> by_extra_;
  std::vector<std::string_view> texts_;
};

// Ids in ascending order of their strings (`names.name(id)`).
template <class Names>
std::vector<std::uint32_t> sorted_by_name(std::vector<std::uint32_t> ids, const Names& names) {
  std::sort(ids.begin(), ids.end(),
            [&names](std::uint32_t a, std::uint32_t b) { return names.name(a) < names.name(b); });
  return ids;
}

// Per target (an invoice): what the jobs asked, what the vendor paid, and
// the last job to name it (its owner).
struct invoice_book {
  explicit invoice_book(const name_table& names) : ids(names), owner_names(names) {}
  std::uint32_t intern(std::string_view invoice) { return grow(ids.intern(invoice)); }
  std::uint32_t intern_name(ev::name_id invoice) { return grow(ids.intern_name(invoice)); }
  std::int64_t paid_for(std::string_view invoice) const { return at_or_zero(paid, invoice); }
  std::int64_t asked_for(std::string_view invoice) const { return at_or_zero(asked, invoice); }

  // A generated job's spec lives only while it is walked: its id is kept
  // as a name (or a copy).
  void set_owner(std::uint32_t invoice, std::string_view job) {
    owner[invoice] = owner_names.name(owner_names.intern(job));
  }

  text_ids ids;
  std::vector<std::int64_t> asked, paid;
  std::vector<std::optional<std::string_view>> owner;  // views of owner_names
  text_ids owner_names;

 private:
  std::uint32_t grow(std::uint32_t id);
  std::int64_t at_or_zero(const std::vector<std::int64_t>& column, std::string_view invoice) const {
    const auto id = ids.find(invoice);
    return id ? column[*id] : 0;
  }
};

// One tool that moves money: its ledger and its targets.
struct money_book {
  money_book(std::string_view name, const refund_ledger& l, const name_table& names)
      : step_name(name), ledger(&l), targets(names) {}
  std::string_view step_name;  // "refund", "charge"
  const refund_ledger* ledger;
  invoice_book targets;

  // "invoice inv_17 was refunded 3998 cents", "acct_1 had 500 cents from charge".
  std::string moved(std::string_view target, std::int64_t cents) const;
  // A row of its ledger as an evidence line.
  std::string line(const vendor_refund& r) const;
};

class money_books {
 public:
  explicit money_books(const world& w);

  const std::deque<money_book>& books() const { return books_; }  // (an invoice_book does not move)
  const money_book* book_of(std::string_view tool) const;
  // The money tools this world uses (a step calls it or it holds a row): the
  // money verdicts speak of these, not of refunds in a world without any.
  const std::vector<const money_book*>& used() const { return used_; }
  bool only_refunds() const { return used_.size() == 1 && used_[0]->step_name == "refund"; }

 private:
  money_book* book_named(std::string_view tool);

  std::deque<money_book> books_;
  std::vector<const money_book*> used_;
};

// "500 cents".
std::string money(std::int64_t cents);
// Sums of cents, checked: what the jobs ask is bounded in a loaded scenario
// (1000000 jobs x 1000 steps x 99999999 cents < 10^17) but not in a world
// built in C++, and the ledgers' rows are bounded only by the event budget
// (a job without a key may refund again on every delivery).
void add_cents(std::int64_t& total, std::int64_t cents);

}  // namespace twice
