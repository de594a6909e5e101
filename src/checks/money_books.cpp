#include "checks/money_books.hpp"

#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include <twice/sim/checked.hpp>
#include <twice/vendors/vendor_refund.hpp>

namespace twice {

std::string money(std::int64_t cents) { return fmt::format("{} cents", cents); }

void add_cents(std::int64_t& total, std::int64_t cents) {
  total = sim::checked_add(total, cents, "a ledger or invoice total in the invariants overflows int64 cents");
}

std::uint32_t text_ids::intern(std::string_view text) {
  if (const std::optional<ev::name_id> name = names_.find(text)) return intern_name(*name);
  const std::uint32_t extra = extra_.intern_copy(text);
  if (extra == by_extra_.size()) by_extra_.push_back(add(extra_.name(extra)));
  return by_extra_[extra];
}

std::uint32_t text_ids::intern_name(ev::name_id name) {
  std::uint32_t& id = by_name_.at(name);
  if (id == none) id = add(names_.text(name));
  return id;
}

std::optional<std::uint32_t> text_ids::find(std::string_view text) const {
  if (const std::optional<ev::name_id> name = names_.find(text); name && by_name_[*name] != none)
    return by_name_[*name];
  if (const std::optional<std::uint32_t> extra = extra_.find(text)) return by_extra_[*extra];
  return std::nullopt;
}

std::uint32_t invoice_book::grow(std::uint32_t id) {
  if (id == asked.size()) {
    asked.push_back(0);
    paid.push_back(0);
    owner.emplace_back();
  }
  return id;
}

std::string money_book::moved(std::string_view target, std::int64_t cents) const {
  return step_name == "refund" ? fmt::format("invoice {} was refunded {}", target, money(cents))
                               : fmt::format("{} had {} from {}", target, money(cents), step_name);
}

std::string money_book::line(const vendor_refund& v) const {
  return fmt::format("{} vendor {} {} {} {} key={}", check_text::clock(v.committed_at), step_name, v.id, v.invoice,
                     money(v.amount_cents), v.idempotency_key.value_or("(none)"));
}

// Both ledgers keep their texts as names of the run's table, and the
// tables here are keyed by those names (a job's spec, which may be
// generated and gone after its walk, is looked up by name too).
money_books::money_books(const world& w) {
  const name_table& names = w.events().names();
  for (const world::money_tool& m : w.money_tools()) books_.emplace_back(m.name, m.tool->ledger(), names);
  for_each_job(w.config(), [&](const job_spec& job) {
    for (const step_spec& step : job.steps)
      if (money_book* b = book_named(step.tool)) {
        const std::uint32_t id = b->targets.intern(step.target);
        add_cents(b->targets.asked[id], step.amount_cents);
        b->targets.set_owner(id, job.id);  // the last job to name a target owns it
      }
  });
  for (money_book& b : books_)
    for (std::size_t i = 0; i < b.ledger->size(); ++i) {
      const refund_ledger::row& r = b.ledger->raw(i);
      add_cents(b.targets.paid[b.targets.intern_name(r.invoice)], r.amount_cents);
    }
  for (const money_book& b : books_)
    if (b.ledger->size() > 0 || !b.targets.asked.empty()) used_.push_back(&b);
}

money_book* money_books::book_named(std::string_view tool) {
  for (money_book& b : books_)
    if (b.step_name == tool) return &b;
  return nullptr;
}

const money_book* money_books::book_of(std::string_view tool) const {
  for (const money_book& b : books_)
    if (b.step_name == tool) return &b;
  return nullptr;
}

}  // namespace twice
