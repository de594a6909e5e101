// The invariants about money, judged on the ledgers once the run has ended
// (checks/money_books.hpp): one_ledger_row_per_key, no_double_payment,
// ledgers_agree and done_jobs_paid_in_full. The detail names the first
// thing found wrong (in the order the evidence lists them) and counts the rest.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include "vendors/refund_ledger.hpp"
#include "world/job_book.hpp"
#include <twice/vendors/vendor_refund.hpp>
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace check_text;
using sv = std::string_view;

// A money invariant reads no event: the ledgers are the truth.
class money_invariant : public invariant {
 public:
  explicit money_invariant(check_context& shared) : shared_(shared) {}
  void on_event(const ev::event&, const name_table&) override {}
  event_kinds wants() const override { return {}; }

 protected:
  check_context& shared_;
};

// The keys with more than one row in a ledger of `rows` rows, in ascending
// order, each with its rows' positions in ledger order. `key_of(i)` is row
// i's key as a name of the run's table, if it has a key.
template <class KeyOf>
std::vector<std::pair<sv, std::vector<std::size_t>>> repeated_keys(std::size_t rows, const name_table& names,
                                                                   KeyOf key_of) {
  std::vector<std::uint32_t> rows_of_key(names.size(), 0);
  for (std::size_t i = 0; i < rows; ++i)
    if (const std::optional<ev::name_id> key = key_of(i)) ++rows_of_key[*key];
  std::vector<std::uint32_t> repeated;
  for (std::uint32_t id = 0; id < rows_of_key.size(); ++id)
    if (rows_of_key[id] > 1) repeated.push_back(id);
  std::sort(repeated.begin(), repeated.end(),
            [&names](std::uint32_t a, std::uint32_t b) { return names.text(a) < names.text(b); });
  std::vector<std::pair<sv, std::vector<std::size_t>>> out;
  std::map<std::uint32_t, std::size_t> place;  // key -> its entry in `out`
  for (const std::uint32_t id : repeated) {
    place.emplace(id, out.size());
    out.emplace_back(names.text(id), std::vector<std::size_t>{});
  }
  for (std::size_t i = 0; i < rows && !place.empty(); ++i)
    if (const std::optional<ev::name_id> key = key_of(i))
      if (const auto it = place.find(*key); it != place.end()) out[it->second].second.push_back(i);
  return out;
}

class one_ledger_row_per_key final : public money_invariant {
 public:
  using money_invariant::money_invariant;
  verdict finish(const world& w, const world_result&) override {
    const money_books& m = shared_.money(w);
    const name_table& names = w.events().names();
    const ledger_table& local_ledger = w.db().ledger();
    const std::size_t evidence_max = shared_.evidence_max();
    verdict v{std::string(invariant_name::one_ledger_row_per_key),
              true,
              "every idempotency key has at most one row in each ledger",
              {},
              {}};
    std::size_t repeated_count = 0;
    auto report = [&](const auto& ledger, const auto& key_of, const auto& line_of, std::string_view name) {
      for (const auto& [key, rows] : repeated_keys(ledger.size(), names, key_of)) {
        if (v.held) v.detail = fmt::format("key {} has {} rows in {}", key, rows.size(), name);
        v.held = false;
        ++repeated_count;
        for (const std::size_t row : rows)
          if (v.evidence.size() < evidence_max) v.evidence.push_back(line_of(ledger[row]));
      }
    };
    // An empty key is no key in our ledger (SQL NULL); the vendor tells a
    // request without a key from one with an empty key.
    report(
        local_ledger,
        [&](std::size_t i) {
          const ev::name_id key = local_ledger.raw(i).key;
          return key == 0 ? std::nullopt : std::optional<ev::name_id>(key);
        },
        [](const ledger_row& l) {
          return fmt::format("{} ledger row {} {} key={} ref={}", clock(l.at), l.job_id, money(l.amount_cents), l.key,
                             l.vendor_ref);
        },
        "our ledger");
    for (const money_book& b : m.books())
      report(
          *b.ledger,
          [&](std::size_t i) {
            const refund_ledger::row& r = b.ledger->raw(i);
            return r.has_key ? std::optional<ev::name_id>(r.key) : std::nullopt;
          },
          [&](const vendor_refund& r) { return b.line(r); },
          b.step_name == "refund" ? std::string("the vendor's ledger") : "the ledger of " + std::string(b.step_name));
    if (repeated_count > 1) v.detail += and_more(repeated_count - 1, "repeated key", "repeated keys");
    return v;
  }
};

class no_double_payment final : public money_invariant {
 public:
  using money_invariant::money_invariant;
  verdict finish(const world& w, const world_result&) override {
    const money_books& m = shared_.money(w);
    const name_table& names = w.events().names();
    verdict v{std::string(invariant_name::no_double_payment),
              true,
              m.used().empty()   ? std::string("no tool moves money: nothing could be paid twice")
              : m.only_refunds() ? std::string("no invoice was refunded more than its jobs asked for")
                                 : "no target was paid more than its jobs asked for",
              {},
              {}};
    std::size_t overpaid_count = 0;
    bool only_invoices = true;  // the refund tool's targets are invoices; another's are its own
    for (const money_book& b : m.books()) {
      std::vector<std::uint32_t> overpaid;
      for (std::uint32_t id = 0; id < b.targets.paid.size(); ++id)
        if (b.targets.paid[id] > b.targets.asked[id]) overpaid.push_back(id);
      overpaid = sorted_by_name(std::move(overpaid), b.targets.ids);
      overpaid_count += overpaid.size();
      if (!overpaid.empty() && b.step_name != "refund") only_invoices = false;
      for (const std::uint32_t id : overpaid) {
        const sv target = b.targets.ids.name(id);
        if (v.held)
          v.detail = fmt::format("{} but asked {}", b.moved(target, b.targets.paid[id]), money(b.targets.asked[id]));
        v.held = false;
        for (std::size_t i = 0; i < b.ledger->size() && v.evidence.size() < shared_.evidence_max(); ++i)
          if (names.text(b.ledger->raw(i).invoice) == target) v.evidence.push_back(b.line((*b.ledger)[i]));
      }
    }
    if (overpaid_count > 1)
      v.detail += only_invoices ? and_more(overpaid_count - 1, "overpaid invoice", "overpaid invoices")
                                : and_more(overpaid_count - 1, "overpaid target", "overpaid targets");
    return v;
  }
};

class ledgers_agree final : public money_invariant {
 public:
  using money_invariant::money_invariant;
  verdict finish(const world& w, const world_result&) override {
    const money_books& m = shared_.money(w);
    const name_table& names = w.events().names();
    const std::vector<const money_book*>& used = m.used();
    // Whose ledger ours is held against: the payment vendor's, a money tool's
    // of the scenario's own, or every far side's at once.
    const std::string theirs_name = used.size() != 1   ? std::string("the far sides'")
                                    : m.only_refunds() ? std::string("the vendor's")
                                                       : "the " + std::string(used[0]->step_name) + " tool's";
    verdict v{std::string(invariant_name::ledgers_agree),
              true,
              used.empty() ? std::string("no tool moves money: there is no far side's ledger to hold ours against")
                           : fmt::format("for every job, our ledger and {} hold the same total", theirs_name),
              {},
              {}};
    // Every job either ledger names, each once. A vendor refund of an invoice
    // no job names counts against a job of its own, "(unknown invoice inv_9)".
    text_ids jobs(names);
    std::vector<std::int64_t> ours, theirs;
    auto job_id = [&](sv job) {
      const std::uint32_t id = jobs.intern(job);
      if (id == ours.size()) {
        ours.push_back(0);
        theirs.push_back(0);
      }
      return id;
    };
    for (const money_book& b : m.books()) {
      std::map<std::uint32_t, std::uint32_t> unknown_job_of_invoice;
      for (std::size_t i = 0; i < b.ledger->size(); ++i) {
        const refund_ledger::row& r = b.ledger->raw(i);
        const std::uint32_t invoice = b.targets.ids.id_of_name(r.invoice);  // every row's is in the book
        std::uint32_t job = 0;
        if (const std::optional<sv>& owner = b.targets.owner[invoice]) {
          job = job_id(*owner);
        } else {
          auto [it, fresh] = unknown_job_of_invoice.emplace(invoice, 0);
          if (fresh)  // copied: no name
            it->second = job_id(b.step_name == "refund" ? "(unknown invoice " + std::string(names.text(r.invoice)) + ")"
                                                        : "(unknown " + std::string(b.step_name) + " target " +
                                                              std::string(names.text(r.invoice)) + ")");
          job = it->second;
        }
        add_cents(theirs[job], r.amount_cents);
      }
    }
    const ledger_table& local_ledger = w.db().ledger();
    for (std::size_t i = 0; i < local_ledger.size(); ++i) {
      const ledger_table::row& l = local_ledger.raw(i);
      add_cents(ours[job_id(names.text(l.job))], l.amount_cents);
    }
    std::vector<std::uint32_t> disagree;
    for (std::uint32_t id = 0; id < ours.size(); ++id)
      if (ours[id] != theirs[id]) disagree.push_back(id);
    disagree = sorted_by_name(std::move(disagree), jobs);
    for (const std::uint32_t id : disagree) {
      const sv job = jobs.name(id);
      if (v.held)
        v.detail = fmt::format("{}: our ledger {}, {} {}", job, money(ours[id]), theirs_name, money(theirs[id])) +
                   and_more(disagree.size() - 1, "job", "jobs");
      v.held = false;
      if (v.evidence.size() < shared_.evidence_max())
        v.evidence.push_back(fmt::format("{}: local {} vs vendor {}", job, money(ours[id]), money(theirs[id])));
    }
    return v;
  }
};

// The other half of exactly once: a job reported done must have had its
// effect. Catches the refund lost by checkpointing before the call.
class done_jobs_paid_in_full final : public money_invariant {
 public:
  using money_invariant::money_invariant;
  verdict finish(const world& w, const world_result&) override {
    const money_books& m = shared_.money(w);
    verdict v{std::string(invariant_name::done_jobs_paid_in_full),
              true,
              m.used().empty()   ? std::string("no tool moves money: no job has a money step to pay")
              : m.only_refunds() ? std::string("every job that ended done was refunded in full")
                                 : "every job that ended done had each money step in full",
              {},
              {}};
    std::size_t unpaid_jobs = 0;
    for_each_job(w.config(), [&](const job_spec& job) {
      if (w.jobs().end_of(job.id) != job_end::done) return;
      bool unpaid = false;
      for (const step_spec& step : job.steps) {
        const money_book* b = m.book_of(step.tool);
        if (b == nullptr) continue;
        const std::int64_t paid = b->targets.paid_for(step.target);
        const std::int64_t asked = b->targets.asked_for(step.target);
        if (paid >= asked) continue;
        if (v.held)
          v.detail = fmt::format("{} ended done but {} of {}", job.id, b->moved(step.target, paid), money(asked));
        v.held = false;
        unpaid = true;
        if (v.evidence.size() < shared_.evidence_max())
          v.evidence.push_back(fmt::format("{}: done; vendor {}s for {}: {} of {}", job.id, b->step_name, step.target,
                                           money(paid), money(asked)));
      }
      if (unpaid) ++unpaid_jobs;
    });
    if (unpaid_jobs > 1) v.detail += and_more(unpaid_jobs - 1, "job", "jobs");
    return v;
  }
};

}  // namespace

std::unique_ptr<invariant> make_one_ledger_row_per_key(const world_config&, check_context& shared) {
  return std::make_unique<one_ledger_row_per_key>(shared);
}
std::unique_ptr<invariant> make_no_double_payment(const world_config&, check_context& shared) {
  return std::make_unique<no_double_payment>(shared);
}
std::unique_ptr<invariant> make_ledgers_agree(const world_config&, check_context& shared) {
  return std::make_unique<ledgers_agree>(shared);
}
std::unique_ptr<invariant> make_done_jobs_paid_in_full(const world_config&, check_context& shared) {
  return std::make_unique<done_jobs_paid_in_full>(shared);
}

}  // namespace twice
