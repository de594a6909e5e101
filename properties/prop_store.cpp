// The store's two guards against concurrent writers, under any interleaving
// of transactions: the unique ledger key (no payment recorded twice) and the
// lease token on a job row (no write from a slice whose lease was taken
// over). Each is checked at the statement and again at commit; these
// properties hold only if both checks do their part, since a transaction
// that wrote before another committed passes the statement's check.

#include <rapidcheck/catch.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>
#include <twice/store/store.hpp>

using namespace twice;
using sim::duration;
using sim::instant;

namespace {

duration ms(std::int64_t n) { return duration::from_ms(n); }

// Times in milliseconds, against a statement latency of 2 ms: transactions
// start together or apart, and often write before another commits.
rc::Gen<std::int64_t> gen_ms() { return rc::gen::inRange<std::int64_t>(0, 8); }

// ---- the unique ledger key ----------------------------------------------------

struct ledger_tx {
  std::int64_t start_ms = 0;
  std::vector<std::pair<std::int64_t, std::uint32_t>> inserts;  // (think before it, key number)
  std::int64_t think_before_commit_ms = 0;
};

void showValue(const ledger_tx& t, std::ostream& os) {
  os << "start " << t.start_ms << "ms";
  for (const auto& [think_ms, key] : t.inserts) os << ", think " << think_ms << "ms, insert k" << key;
  os << ", think " << t.think_before_commit_ms << "ms, commit";
}

struct ledger_tx_log {
  std::vector<std::string> inserted;  // keys whose insert statement succeeded
  commit_result result;
};

std::string key_name(std::uint32_t k) { return "k" + std::to_string(k); }
std::string tx_name(std::size_t i) { return "tx_" + std::to_string(i); }

sim::task<void> run_ledger_tx(store& db, const ledger_tx& t, std::size_t index, ledger_tx_log& log) {
  co_await sim::sleep_until(instant::epoch() + ms(t.start_ms));
  transaction tx = co_await db.begin(tx_name(index));
  for (const auto& [think_ms, key] : t.inserts) {
    co_await sim::sleep_for(ms(think_ms));
    ledger_row row;
    row.key = key_name(key);
    row.amount_cents = 100;
    row.job_id = tx_name(index);
    if (co_await tx.insert_ledger(row) == store_status::ok) log.inserted.push_back(key_name(key));
  }
  co_await sim::sleep_for(ms(t.think_before_commit_ms));
  log.result = co_await tx.commit();
}

rc::Gen<ledger_tx> gen_ledger_tx() {
  return rc::gen::apply(
      [](std::int64_t start, std::vector<std::pair<std::int64_t, std::uint32_t>> inserts, std::int64_t think) {
        if (inserts.size() > 3) inserts.resize(3);
        return ledger_tx{start, std::move(inserts), think};
      },
      gen_ms(),
      rc::gen::nonEmpty(rc::gen::container<std::vector<std::pair<std::int64_t, std::uint32_t>>>(
          rc::gen::pair(gen_ms(), rc::gen::inRange<std::uint32_t>(0, 3)))),
      gen_ms());
}

// ---- the lease token ------------------------------------------------------------

// Reads job j1's lease token, thinks, writes a new token fenced on the one it
// read (a whole-row put_job_fenced, or a column update expecting the token),
// thinks again and commits.
struct fenced_tx {
  std::int64_t start_ms = 0;
  std::int64_t think_after_read_ms = 0;
  bool column_update = false;
  std::int64_t think_before_commit_ms = 0;
};

void showValue(const fenced_tx& t, std::ostream& os) {
  os << "start " << t.start_ms << "ms, read, think " << t.think_after_read_ms << "ms, "
     << (t.column_update ? "update_job" : "put_job_fenced") << ", think " << t.think_before_commit_ms << "ms, commit";
}

struct fenced_tx_log {
  std::uint64_t expected = 0;
  std::uint64_t written = 0;
  std::optional<store_status> statement;  // the write statement's answer
  commit_result result;
  bool statement_ok() const { return statement == store_status::ok; }
  bool committed() const { return statement_ok() && result.ok(); }
};

sim::task<void> run_fenced_tx(store& db, const fenced_tx& t, std::size_t index, fenced_tx_log& log) {
  co_await sim::sleep_until(instant::epoch() + ms(t.start_ms));
  transaction tx = co_await db.begin(tx_name(index));
  std::optional<job_row> row = co_await tx.get_job("j1");
  if (!row) co_return;  // never: j1 is seeded (and the checks would find no statement)
  log.expected = row->lease_token;
  log.written = index + 1;  // tokens are never reused: 0 is the seeded row's
  co_await sim::sleep_for(ms(t.think_after_read_ms));
  store_status st = store_status::ok;
  if (t.column_update) {
    job_update change;
    change.expect_lease_token = log.expected;
    change.lease_token = log.written;
    st = co_await tx.update_job("j1", std::move(change));
  } else {
    row->lease_token = log.written;
    st = co_await tx.put_job_fenced(*row, log.expected);
  }
  log.statement = st;
  if (st != store_status::ok) {
    tx.rollback();
    co_return;
  }
  co_await sim::sleep_for(ms(t.think_before_commit_ms));
  log.result = co_await tx.commit();
}

rc::Gen<fenced_tx> gen_fenced_tx() {
  return rc::gen::apply(
      [](std::int64_t start, std::int64_t think, bool column, std::int64_t think2) {
        return fenced_tx{start, think, column, think2};
      },
      gen_ms(), gen_ms(), rc::gen::arbitrary<bool>(), gen_ms());
}

}  // namespace

TEST_CASE("the unique ledger key holds however transactions interleave", "[properties][store]") {
  rc::prop("no key twice in the ledger; a commit fails only on a key committed before it", [] {
    const auto txs = *rc::gen::resize(
        12, rc::gen::suchThat(rc::gen::container<std::vector<ledger_tx>>(gen_ledger_tx()),
                              [](const std::vector<ledger_tx>& v) { return v.size() >= 2 && v.size() <= 6; }));
    sim::kernel k;
    event_log events{k};
    store db(k, events);
    std::vector<ledger_tx_log> logs(txs.size());
    for (std::size_t i = 0; i < txs.size(); ++i) k.spawn(run_ledger_tx(db, txs[i], i, logs[i]), tx_name(i));
    k.run();

    // The ledger is exactly the committed transactions' rows, no key twice.
    std::map<std::string, std::string> owner;  // key -> the transaction whose row has it
    for (const ledger_row& row : db.ledger()) {
      RC_LOG() << row.key << " by " << row.job_id << "\n";
      RC_ASSERT(owner.emplace(row.key, row.job_id).second);
    }
    std::size_t committed_rows = 0;
    for (std::size_t i = 0; i < txs.size(); ++i) {
      const ledger_tx_log& log = logs[i];
      if (log.result.ok()) {
        committed_rows += log.inserted.size();
        for (const std::string& key : log.inserted) RC_ASSERT(owner.at(key) == tx_name(i));
      } else {
        // Lost the race for a key someone else committed first.
        RC_ASSERT(log.result.status == store_status::duplicate_key);
        RC_ASSERT(owner.contains(log.result.conflict));
        RC_ASSERT(owner.at(log.result.conflict) != tx_name(i));
      }
    }
    RC_ASSERT(committed_rows == db.ledger().size());
  });
}

TEST_CASE("a fenced job write commits only on the lease token it read", "[properties][store]") {
  rc::prop("the committed writes form one chain of tokens: no update lost", [] {
    const auto txs = *rc::gen::resize(
        12, rc::gen::suchThat(rc::gen::container<std::vector<fenced_tx>>(gen_fenced_tx()),
                              [](const std::vector<fenced_tx>& v) { return v.size() >= 2 && v.size() <= 6; }));
    sim::kernel k;
    event_log events{k};
    store db(k, events);
    job_row seeded;
    seeded.job_id = "j1";
    db.seed_job(seeded);
    std::vector<fenced_tx_log> logs(txs.size());
    for (std::size_t i = 0; i < txs.size(); ++i) k.spawn(run_fenced_tx(db, txs[i], i, logs[i]), tx_name(i));
    k.run();

    // Each committed write replaced the token it read: from 0, follow the
    // token each one wrote to the one that read it. Two commits on one token
    // would be a lost update (a superseded slice writing anyway).
    std::map<std::uint64_t, std::uint64_t> next;  // token read -> token written, per committed write
    for (const fenced_tx_log& log : logs) {
      RC_LOG() << "read " << log.expected << ", wrote " << log.written << ": "
               << (log.statement_ok() ? to_string(log.result.status) : "refused at the statement") << "\n";
      RC_ASSERT(log.statement.has_value());
      if (log.committed()) {
        RC_ASSERT(next.emplace(log.expected, log.written).second);
      } else {
        // Refused at the statement or at commit, and only for the token.
        RC_ASSERT((log.statement_ok() ? log.result.status : *log.statement) == store_status::fenced);
      }
    }
    std::uint64_t token = 0;
    std::size_t chain = 0;
    for (auto it = next.find(token); it != next.end(); it = next.find(token)) {
      token = it->second;
      ++chain;
    }
    RC_ASSERT(chain == next.size());
    RC_ASSERT(db.find_job("j1")->lease_token == token);
  });
}
