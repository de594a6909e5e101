#pragma once
// The local database the workers write to: job rows, the money ledger, the
// outbox and a dedupe table, reached through a bounded connection pool.
//
//   transaction tx = co_await db.begin("worker-3");
//   std::optional<job_row> job = co_await tx.get_job("j1");
//   job->attempts += 1;
//   co_await tx.put_job(*job);
//   commit_result r = co_await tx.commit();
//
// The model, and why each choice:
//
//  * Pool. begin() takes one of `pool_size` connections, or waits for one in
//    FIFO order (a released connection is handed straight to the oldest
//    waiter, so nobody barges past a queue). BEGIN itself costs nothing: as
//    drivers do, it rides on the first statement. Every wait is measured
//    from kernel time (stats, and a `pool_wait` trace record when > 0), so a
//    transaction held open across a slow call shows up as starved workers.
//  * Statements. Each statement (and the commit) is one round trip costing
//    `statement_latency`; it sees the database as it is when the round trip
//    ends. Reads see committed state plus this transaction's own writes.
//  * Writes are buffered in the transaction and applied all at once when
//    commit's round trip ends, or not at all. A process killed during the
//    commit round trip has committed nothing.
//  * Concurrency is optimistic and simple (no locks, no blocking between
//    transactions): job rows are last-writer-wins at commit, as plain
//    UPDATEs under READ COMMITTED would be, so a read-modify-write race
//    loses an update. Three conditions are checked twice, at the statement
//    against what the transaction sees and again at commit against what is
//    committed then: the unique ledger key (when `unique_ledger_key`), the
//    unique dedupe key, and the lease token of put_job_fenced (the
//    `UPDATE ... WHERE lease_token = $mine` a fenced worker issues). A
//    commit that would break one fails with that status and applies nothing.
//    A statement that fails one buffers nothing and the transaction stays
//    usable, as `INSERT ... ON CONFLICT DO NOTHING` would leave it.
//  * Rollback by destruction. A transaction destroyed without commit (out
//    of scope, or its process killed: the coroutine frame is destroyed)
//    rolls back and returns its connection to the pool at once. This models
//    the server noticing a dead client's socket and dropping its session;
//    real servers take a TCP timeout for that, which a fault can add later
//    by delaying the release.
//  * Lifetime. The store may be destroyed before the kernel (the usual
//    declaration order); transactions and waiting begin() calls of
//    processes destroyed afterwards then do nothing. Using a transaction
//    after its store is gone is a programmer error.
//
// Direct reads (find_job(), ledger(), ...) bypass the pool and cost no time:
// they are for world setup, invariant checkers and reports, never for
// worker code.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/events/event_log.hpp>
#include <twice/sim/trace.hpp>
#include <twice/store/ledger_table.hpp>
#include <twice/store/rows.hpp>

namespace twice {

// A transaction some other session holds open on the same database (an
// analyst's query, a pg_dump, a session idle in transaction): it takes none
// of the pool's connections, but while it is open no row version that dies
// can be cleaned up (store/mvcc_horizon.hpp).
struct long_transaction {
  sim::instant begin;
  sim::instant end;
  std::string holder = "analytics";
  friend bool operator==(const long_transaction&, const long_transaction&) = default;
};

struct store_config {
  std::uint32_t pool_size = 10;  // 1..pool_size_max
  sim::duration statement_latency = sim::duration::from_ms(2);
  // The schema has UNIQUE(key) on the ledger (empty keys excepted, as NULLs
  // are). Off reproduces a ledger that can record one payment twice.
  bool unique_ledger_key = true;
  // What each dead row version still visible to an open transaction adds to
  // a read of the job table (mvcc_horizon.hpp); unset: MVCC is not modelled.
  std::optional<sim::duration> dead_row_cost;
  // Postgres' transaction_timeout (17+): a session whose transaction spans
  // longer is terminated. Applied to the long transactions below; the
  // workers' own are short (a worker's transaction is never cut).
  std::optional<sim::duration> transaction_timeout;
  std::vector<long_transaction> long_transactions;
};

inline constexpr std::uint32_t pool_size_max = 10'000;

enum class store_status : std::uint8_t {
  ok,
  duplicate_key,  // a unique key (ledger or dedupe) already exists
  not_found,      // the row to change does not exist
  fenced,         // put_job_fenced: the row carries another lease token
};
std::string_view to_string(store_status);

struct commit_result {
  store_status status = store_status::ok;
  std::string conflict;      // the key or job id that failed the commit; empty when ok
  std::uint32_t writes = 0;  // write statements applied (0 when it failed)
  bool ok() const { return status == store_status::ok; }
};

// Pool wait histogram: bucket i counts waits in (upper[i-1], upper[i]]
// (bucket 0: no wait at all);
// the last bucket counts waits longer than every bound.
inline constexpr std::array<sim::duration, 7> pool_wait_bucket_upper = {
    sim::duration::zero(),    sim::duration::from_ms(1), sim::duration::from_ms(10), sim::duration::from_ms(100),
    sim::duration::from_s(1), sim::duration::from_s(10), sim::duration::from_s(100),
};
inline constexpr std::size_t pool_wait_buckets = pool_wait_bucket_upper.size() + 1;

struct store_stats {
  std::uint64_t commits = 0;
  std::uint64_t rollbacks = 0;              // dropped, explicit, or failed commits
  std::uint64_t constraint_violations = 0;  // duplicate keys, at a statement or at commit
  std::uint64_t fenced_writes = 0;          // put_job_fenced refused, at a statement or at commit
  std::uint64_t acquires = 0;               // connections handed out
  std::uint64_t pool_waits = 0;             // acquires that waited longer than zero
  std::uint64_t pool_waits_abandoned = 0;   // waiters killed before they got a connection
  sim::duration pool_wait_total;            // over waits that got a connection
  // The longest wait, including waits still in progress and abandoned ones:
  // the number to hold against "the database is never stalled past a bound".
  sim::duration pool_wait_max;
  std::array<std::uint64_t, pool_wait_buckets> pool_wait_histogram{};  // waits that got a connection, zero included
  // Time with zero free connections, and its longest unbroken span; both
  // include a span still going on.
  sim::duration pool_busy_total;
  sim::duration pool_busy_longest;
  std::uint32_t connections_in_use = 0;
  std::uint32_t waiting = 0;  // processes waiting in begin() now
};

using job_table = std::map<std::string, job_row, std::less<>>;
using outbox_table = std::map<std::uint64_t, outbox_row>;
using dedupe_table = std::map<std::string, dedupe_row, std::less<>>;

namespace detail {
struct store_core;
}

// One open transaction on one pooled connection. Move-only; destroying it
// while open rolls back. Statements take their arguments by value because
// a task is lazy: it may run after the caller's temporaries are gone.
class transaction {
 public:
  transaction(transaction&& other) noexcept;
  transaction& operator=(transaction&& other) noexcept;
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction();

  bool active() const;  // open: neither committed nor rolled back
  std::uint64_t id() const { return id_; }
  std::uint32_t connection() const { return connection_; }
  const std::string& holder() const { return holder_; }

  sim::task<std::optional<job_row>> get_job(std::string job_id);
  // Upsert of the whole row, last-writer-wins at commit.
  sim::task<void> put_job(job_row row);
  // Writes only if the row (as this transaction sees it) carries
  // `expected_lease_token`, and, when that token came from committed state,
  // still carries it at commit: a slice whose lease was taken over cannot
  // overwrite its successor. not_found when there is no such row.
  sim::task<store_status> put_job_fenced(job_row row, std::uint64_t expected_lease_token);
  // Changes only the columns `change` names, at commit, on the row as it is
  // then (see job_update). not_found when there is no such job; fenced when
  // `change.expect_lease_token` no longer matches (checked again at commit).
  sim::task<store_status> update_job(std::string job_id, job_update change);

  // Committed rows still running whose attempt was claimed before `cutoff`
  // (an orphan rescue's `SELECT ... WHERE status = 'running' AND
  // attempted_at < $1`), in the order the rows were created. Reads
  // committed state only: a rescue asks this first in its transaction.
  sim::task<std::vector<job_row>> running_jobs_claimed_before(sim::instant cutoff);

  // duplicate_key when unique_ledger_key is on and a committed row or an
  // earlier insert of this transaction has the same non-empty key.
  sim::task<store_status> insert_ledger(ledger_row row);
  // The first row with this key, in insertion order. `key` is not empty.
  sim::task<std::optional<ledger_row>> find_ledger(std::string key);

  // Returns the row's id. Ids come from a sequence, as nextval does: taken
  // at insert, never reused, so a rolled-back insert leaves a gap.
  sim::task<std::uint64_t> insert_outbox(outbox_row row);
  // The row is dropped when this transaction commits: a committed row
  // marked sent is gone, and marking it again is not_found, as for an id
  // that never committed.
  sim::task<store_status> mark_outbox_sent(std::uint64_t outbox_id);
  // Unsent rows in id order, at most `max_rows` (1..): what a relay polls.
  // Nothing claims a row, so two relays polling at once both get it: the
  // outbox delivers at least once, and the key absorbs the second send.
  sim::task<std::vector<outbox_row>> unsent_outbox(std::size_t max_rows);

  // `by`: who claims it, kept with the row for whoever finds it taken.
  sim::task<store_status> insert_dedupe(std::string key, std::string by = {});
  sim::task<bool> has_dedupe(std::string key);
  // The row as this transaction sees it (its own writes included).
  sim::task<std::optional<dedupe_row>> find_dedupe(std::string key);
  // Removes the row if there is one (DELETE ... WHERE key = $1: no row is
  // not an error). How a claim taken before a send is given back when the
  // far side answered that it did nothing.
  sim::task<void> delete_dedupe(std::string key);

  // Ends the transaction either way and returns the connection.
  sim::task<commit_result> commit();
  // Ends the transaction now, applying nothing. ROLLBACK's round trip is
  // not modelled: the connection is free as soon as the client says so.
  void rollback();

 private:
  friend class store;
  friend struct detail::store_core;
  transaction(std::weak_ptr<detail::store_core> core, std::uint64_t id, std::uint32_t connection, std::string holder,
              sim::instant began);

  std::shared_ptr<detail::store_core> lock_core() const;
  // One statement's round trip; a read of the job table also walks the
  // dead row versions an open transaction may still see.
  sim::task<void> round_trip(bool reads_job_table = false);
  std::optional<job_row> visible_job(std::string_view job_id) const;
  bool visible_ledger_key(std::string_view key) const;
  bool visible_dedupe(std::string_view key) const;
  void note_duplicate(detail::store_core& core, std::string_view table, std::string_view key,
                      std::string_view phase) const;
  void note_fenced(detail::store_core& core, std::string_view job_id, std::uint64_t expected, std::uint64_t found,
                   std::string_view phase) const;
  commit_result check_against_committed(detail::store_core& core) const;
  void apply(detail::store_core& core);
  void end(std::string_view reason);  // closes without applying; `reason` goes to the trace

  // Buffered writes, also the overlay that lets reads see them.
  struct buffered_writes {
    std::uint32_t statements = 0;  // successful write statements
    job_table jobs;
    std::map<std::string, std::uint64_t, std::less<>> job_fences;  // job id -> token the committed row must carry
    std::vector<std::pair<std::string, job_update>> job_updates;   // applied in order at commit
    std::vector<ledger_row> ledger;
    std::set<std::string, std::less<>> ledger_keys;  // the non-empty keys of `ledger`
    outbox_table outbox;
    std::set<std::uint64_t> outbox_marks;                     // committed outbox rows to mark sent
    std::map<std::string, std::string, std::less<>> dedupes;  // key -> who claims it
    std::set<std::string, std::less<>> dedupe_deletes;        // applied before `dedupes`
  };

  std::weak_ptr<detail::store_core> core_;
  std::uint64_t id_ = 0;
  std::uint32_t connection_ = 0;
  std::string holder_;
  sim::instant began_;
  bool open_ = false;
  buffered_writes writes_;
};

class store {
 public:
  store(sim::kernel& kernel, event_log& events, store_config config = {});
  store(const store&) = delete;
  store& operator=(const store&) = delete;
  ~store();

  const store_config& config() const;

  // Waits (FIFO) for a free connection and opens a transaction on it.
  // `holder` names the caller in the trace ("worker-3"); may be empty.
  sim::task<transaction> begin(std::string holder = {});

  // World setup: creates a job row without a transaction. The id must be
  // new and non-empty.
  void seed_job(job_row row);

  // Direct reads of committed state: no latency, no connection.
  std::size_t job_count() const;
  const ledger_table& ledger() const;   // commit order
  const outbox_table& outbox() const;   // the unsent rows, ordered by id
  const dedupe_table& dedupes() const;  // ordered by key
  std::optional<job_row> find_job(std::string_view job_id) const;

  store_stats stats() const;
  // Bytes held (sim/footprint.hpp): rows, ledgers, outbox and dedupe tables.
  std::uint64_t footprint() const;

 private:
  std::shared_ptr<detail::store_core> core_;
};

}  // namespace twice
