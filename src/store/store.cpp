#include <twice/store/store.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/checked.hpp>
#include <twice/sim/coroutine.hpp>
#include <twice/sim/footprint.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/wait_list.hpp>
#include "store/job_rows.hpp"
#include "store/mvcc_horizon.hpp"

namespace twice {

std::string_view to_string(store_status s) {
  switch (s) {
    case store_status::ok:
      return "ok";
    case store_status::duplicate_key:
      return "duplicate_key";
    case store_status::not_found:
      return "not_found";
    case store_status::fenced:
      return "fenced";
  }
  return "unknown";
}

namespace detail {

namespace {
constexpr std::string_view actor = "store";

std::size_t wait_bucket(sim::duration waited) {
  for (std::size_t i = 0; i < pool_wait_bucket_upper.size(); ++i)
    if (waited <= pool_wait_bucket_upper[i]) return i;
  return pool_wait_buckets - 1;
}
}  // namespace

class acquire_wait;

// Everything the store owns. Transactions and waiting begin() calls hold it
// weakly, so the store may die before the processes that used it.
struct store_core {
  store_core(sim::kernel& k, event_log& e, store_config c)
      : kernel(k), events(e), actor_name(e.name(actor)), config(std::move(c)), ledger(e) {
    if (config.dead_row_cost) mvcc.emplace();
  }

  sim::kernel& kernel;
  event_log& events;
  const ev::name_id actor_name;
  const store_config config;

  // Committed state.
  job_rows jobs;
  ledger_table ledger;
  std::optional<std::uint32_t> first_ledger_row(std::string_view key) const { return ledger.first_of_key(key); }
  outbox_table outbox;  // unsent rows only: a row marked sent is dropped at its commit
  dedupe_table dedupes;
  std::uint64_t next_outbox_id = 1;
  std::uint64_t next_transaction_id = 1;

  // The pool. Invariant: a free connection exists only while no live
  // process waits (a release hands its connection to the oldest waiter).
  // Highest id first, so the lowest, handed out first (deterministic and easy
  // to read in traces), is at the back. A pool is small: a sorted vector, not
  // a std::set's node allocated on every release.
  std::vector<std::uint32_t> free_connections;
  sim::wait_list<acquire_wait*> waiters;
  std::map<std::uint64_t, sim::instant> waiting_since;  // ticket -> start, of waits in progress
  std::uint64_t next_ticket = 1;
  std::optional<sim::instant> busy_since;  // set while no connection is free

  store_stats stats;                 // counters; spans still going on are added by store::stats()
  std::optional<mvcc_horizon> mvcc;  // while store.dead_row_cost is set
  // The long transactions' ids in the horizon: above every real transaction's.
  static constexpr std::uint64_t long_transaction_ids = std::uint64_t{1} << 62;
  static void long_transaction_begins(sim::kernel&, void* ctx, std::uint64_t index);
  static void long_transaction_ends(sim::kernel&, void* ctx, std::uint64_t index);
  // `dead`: the dead versions visible to an open transaction just before (an
  // end) or after (a begin) this one changed the horizon.
  void note_long_transaction(std::size_t index, std::string_view state, std::uint64_t dead);

  std::uint32_t take_connection();
  void release_connection(std::uint32_t connection);
  void note_acquire(sim::duration waited, const std::string& holder);
  void note_abandoned_wait(sim::duration waited, const std::string& holder);

  // transaction's constructor is private; the core is its friend.
  static transaction make_transaction(std::weak_ptr<store_core> core, std::uint64_t id, std::uint32_t connection,
                                      std::string holder, sim::instant began) {
    return transaction(std::move(core), id, connection, std::move(holder), began);
  }
};

// One begin() call's wait for a connection. It lives in begin()'s frame, so
// when a waiting process is killed its destructor withdraws the wait, and
// returns a connection that was handed over but never picked up.
class acquire_wait {
 public:
  acquire_wait(std::weak_ptr<store_core> core, const std::string& holder) : core_(std::move(core)), holder_(&holder) {}
  acquire_wait(const acquire_wait&) = delete;
  acquire_wait& operator=(const acquire_wait&) = delete;
  ~acquire_wait() {
    const std::shared_ptr<store_core> core = core_.lock();
    if (core == nullptr) return;
    if (ticket_ != 0) {
      core->waiting_since.erase(ticket_);
      core->note_abandoned_wait(core->kernel.now() - since_, *holder_);
    }
    if (granted_.has_value()) core->release_connection(*granted_);
  }

  bool await_ready() {
    const std::shared_ptr<store_core> core = core_.lock();
    TWICE_CHECK(core != nullptr);
    if (core->free_connections.empty()) return false;
    TWICE_CHECK(core->waiting_since.empty());  // FIFO: nobody is passed over
    granted_ = core->take_connection();
    core->note_acquire(sim::duration::zero(), *holder_);
    return true;
  }

  template <class P>
  void await_suspend(std::coroutine_handle<P> h) {
    const std::shared_ptr<store_core> core = core_.lock();
    TWICE_CHECK(core != nullptr);
    sim::detail::promise_base& p = sim::detail::base_of(h);
    TWICE_CHECK(p.owner == &core->kernel);
    const std::uint64_t token = core->kernel.begin_wait(p.pid, h);
    since_ = core->kernel.now();
    ticket_ = core->next_ticket++;
    core->waiting_since.emplace(ticket_, since_);
    core->waiters.add(core->kernel, {p.pid, token, this});
  }

  std::uint32_t await_resume() {
    TWICE_CHECK(granted_.has_value());
    return *std::exchange(granted_, std::nullopt);
  }

  // Called by the releasing side, just before it wakes this waiter.
  void grant(store_core& core, std::uint32_t connection) {
    TWICE_CHECK(ticket_ != 0);
    TWICE_CHECK(!granted_.has_value());
    core.waiting_since.erase(std::exchange(ticket_, 0));
    granted_ = connection;
    core.note_acquire(core.kernel.now() - since_, *holder_);
  }

 private:
  std::weak_ptr<store_core> core_;
  const std::string* holder_;  // begin()'s parameter, in the same frame
  std::uint64_t ticket_ = 0;   // non-zero while waiting
  sim::instant since_;
  std::optional<std::uint32_t> granted_;
};

void store_core::note_long_transaction(std::size_t index, std::string_view state, std::uint64_t dead) {
  // One name at a time, so each gets the same id under every compiler (the
  // order a call's arguments are evaluated in is the compiler's choice): the
  // digest hashes names by text, but tables keyed by name id iterate in id
  // order (broker/queue.hpp's message groups).
  const ev::name_id actor = events.name("store/" + config.long_transactions[index].holder);
  const ev::long_transaction body{events.name(config.long_transactions[index].holder), events.name(state),
                                  static_cast<std::int64_t>(dead)};
  events.emit(actor, body);
}

void store_core::long_transaction_begins(sim::kernel& k, void* ctx, std::uint64_t index) {
  auto* core = static_cast<store_core*>(ctx);
  const long_transaction& t = core->config.long_transactions[index];
  if (core->mvcc) core->mvcc->transaction_began(long_transaction_ids + index, t.begin);
  core->note_long_transaction(index, "begins", core->mvcc ? core->mvcc->visible_dead_versions() : 0);
  // Postgres terminates the session when its transaction outlives the timeout.
  const bool cut = core->config.transaction_timeout && t.begin + *core->config.transaction_timeout < t.end;
  k.schedule_at(cut ? t.begin + *core->config.transaction_timeout : t.end, long_transaction_ends, ctx,
                index | (cut ? std::uint64_t{1} << 63 : 0));
}

void store_core::long_transaction_ends(sim::kernel&, void* ctx, std::uint64_t arg) {
  auto* core = static_cast<store_core*>(ctx);
  const bool cut = (arg >> 63) != 0;
  const std::size_t index = static_cast<std::size_t>(arg & ~(std::uint64_t{1} << 63));
  const std::uint64_t dead = core->mvcc ? core->mvcc->visible_dead_versions() : 0;
  if (core->mvcc)
    core->mvcc->transaction_ended(long_transaction_ids + index, core->config.long_transactions[index].begin);
  core->note_long_transaction(index, cut ? "terminated" : "commits", dead);
}

std::uint32_t store_core::take_connection() {
  TWICE_CHECK(!free_connections.empty());
  const std::uint32_t connection = free_connections.back();
  free_connections.pop_back();
  if (free_connections.empty()) busy_since = kernel.now();
  return connection;
}

void store_core::release_connection(std::uint32_t connection) {
  TWICE_CHECK(connection < config.pool_size);
  TWICE_CHECK(std::find(free_connections.begin(), free_connections.end(), connection) == free_connections.end());
  const bool handed = waiters.wake_one(kernel, [&](const auto& w) { w.extra->grant(*this, connection); });
  if (handed) return;  // still no free connection: the busy span goes on
  if (free_connections.empty()) {
    TWICE_CHECK(busy_since.has_value());
    const sim::duration span = kernel.now() - *busy_since;
    stats.pool_busy_total += span;
    stats.pool_busy_longest = std::max(stats.pool_busy_longest, span);
    busy_since.reset();
  }
  free_connections.insert(
      std::lower_bound(free_connections.begin(), free_connections.end(), connection, std::greater<>()), connection);
}

void store_core::note_acquire(sim::duration waited, const std::string& holder) {
  TWICE_CHECK(waited >= sim::duration::zero());
  ++stats.acquires;
  ++stats.pool_wait_histogram[wait_bucket(waited)];
  if (waited == sim::duration::zero()) return;
  ++stats.pool_waits;
  stats.pool_wait_total += waited;
  stats.pool_wait_max = std::max(stats.pool_wait_max, waited);
  events.emit(actor_name, ev::pool_wait{waited, events.name(holder)});
}

// A worker killed while it waited for a connection was stalled all the
// same: its wait counts toward the longest one.
void store_core::note_abandoned_wait(sim::duration waited, const std::string& holder) {
  TWICE_CHECK(waited >= sim::duration::zero());
  ++stats.pool_waits_abandoned;
  stats.pool_wait_max = std::max(stats.pool_wait_max, waited);
  events.emit(actor_name, ev::pool_wait_abandoned{waited, events.name(holder)});
}

namespace {
// A free function, not a member of store: the frame must not keep a pointer
// to a store that may be destroyed while the process waits.
sim::task<transaction> open_transaction(std::weak_ptr<store_core> weak, std::string holder) {
  acquire_wait wait(weak, holder);
  const std::uint32_t connection = co_await wait;
  const std::shared_ptr<store_core> core = weak.lock();
  TWICE_CHECK(core != nullptr);
  const std::uint64_t id = core->next_transaction_id++;
  transaction tx = store_core::make_transaction(std::move(weak), id, connection, std::move(holder), core->kernel.now());
  if (core->mvcc) core->mvcc->transaction_began(id, core->kernel.now());
  co_return tx;
}
}  // namespace

}  // namespace detail

// ---- transaction ---------------------------------------------------------

namespace {
// Empties a transaction's buffered writes in place: clearing each container
// (most are already empty) costs less than building a fresh set of ten and
// move-assigning it, which every commit did.
template <class Writes>
void clear_writes(Writes& w) {
  w.statements = 0;
  w.jobs.clear();
  w.job_fences.clear();
  w.job_updates.clear();
  w.ledger.clear();
  w.ledger_keys.clear();
  w.outbox.clear();
  w.outbox_marks.clear();
  w.dedupes.clear();
  w.dedupe_deletes.clear();
}
}  // namespace

transaction::transaction(std::weak_ptr<detail::store_core> core, std::uint64_t id, std::uint32_t connection,
                         std::string holder, sim::instant began)
    : core_(std::move(core)), id_(id), connection_(connection), holder_(std::move(holder)), began_(began), open_(true) {
  TWICE_CHECK(id_ != 0);
}

transaction::transaction(transaction&& other) noexcept
    : core_(std::move(other.core_)),
      id_(other.id_),
      connection_(other.connection_),
      holder_(std::move(other.holder_)),
      began_(other.began_),
      open_(std::exchange(other.open_, false)),
      writes_(std::move(other.writes_)) {}

transaction& transaction::operator=(transaction&& other) noexcept {
  if (this == &other) return *this;
  if (open_) end("dropped");
  core_ = std::move(other.core_);
  id_ = other.id_;
  connection_ = other.connection_;
  holder_ = std::move(other.holder_);
  began_ = other.began_;
  open_ = std::exchange(other.open_, false);
  writes_ = std::move(other.writes_);
  return *this;
}

transaction::~transaction() {
  // The server drops a dead client's session: nothing of it is applied and
  // its connection is free again at this very instant.
  if (open_) end("dropped");
}

bool transaction::active() const { return open_ && !core_.expired(); }

std::shared_ptr<detail::store_core> transaction::lock_core() const {
  std::shared_ptr<detail::store_core> core = core_.lock();
  TWICE_CHECK(core != nullptr);  // a transaction used after its store is gone
  return core;
}

sim::task<void> transaction::round_trip(bool reads_job_table) {
  TWICE_CHECK(open_);
  // Copy the latency: holding the core across the sleep would keep it alive.
  sim::duration latency;
  {
    const std::shared_ptr<detail::store_core> core = lock_core();
    latency = core->config.statement_latency;
    if (reads_job_table && core->mvcc) {
      const std::uint64_t dead = core->mvcc->visible_dead_versions();
      latency = latency + sim::duration::from_us(sim::checked_mul(
                              static_cast<std::int64_t>(std::min<std::uint64_t>(dead, INT64_MAX)),
                              core->config.dead_row_cost->us(), "a job-table read's cost in dead versions"));
    }
  }
  co_await sim::sleep_for(latency);
  TWICE_CHECK(open_);  // nobody ended it under a statement in flight
}

std::optional<job_row> transaction::visible_job(std::string_view job_id) const {
  std::optional<job_row> row;
  if (auto own = writes_.jobs.find(job_id); own != writes_.jobs.end()) {
    row = own->second;
  } else {
    const std::shared_ptr<detail::store_core> core = lock_core();
    row = core->jobs.find(job_id);
  }
  if (row)
    for (const auto& [id, change] : writes_.job_updates)
      if (id == job_id) change.apply_to(*row);
  return row;
}

bool transaction::visible_ledger_key(std::string_view key) const {
  TWICE_CHECK(!key.empty());
  return writes_.ledger_keys.contains(key) || lock_core()->first_ledger_row(key).has_value();
}

bool transaction::visible_dedupe(std::string_view key) const {
  TWICE_CHECK(!key.empty());
  if (writes_.dedupes.contains(key)) return true;
  return !writes_.dedupe_deletes.contains(key) && lock_core()->dedupes.contains(key);
}

void transaction::note_duplicate(detail::store_core& core, std::string_view table, std::string_view key,
                                 std::string_view phase) const {
  ++core.stats.constraint_violations;
  core.events.emit(core.actor_name, ev::constraint_violation{id_, core.events.name(table), core.events.name(key),
                                                             core.events.name(phase)});
}

void transaction::note_fenced(detail::store_core& core, std::string_view job_id, std::uint64_t expected,
                              std::uint64_t found, std::string_view phase) const {
  ++core.stats.fenced_writes;
  core.events.emit(core.actor_name,
                   ev::store_fenced{id_, core.events.name(job_id), expected, found, core.events.name(phase)});
}

sim::task<std::optional<job_row>> transaction::get_job(std::string job_id) {
  TWICE_CHECK(!job_id.empty());
  co_await round_trip(/*reads_job_table=*/true);
  co_return visible_job(job_id);
}

sim::task<std::vector<job_row>> transaction::running_jobs_claimed_before(sim::instant cutoff) {
  co_await round_trip(/*reads_job_table=*/true);
  TWICE_CHECK(writes_.jobs.empty() && writes_.job_updates.empty());  // asked first, as documented
  co_return lock_core()->jobs.running_before(cutoff);
}

sim::task<void> transaction::put_job(job_row row) {
  TWICE_CHECK(!row.job_id.empty());
  co_await round_trip();
  const std::string job_id = row.job_id;
  writes_.jobs.insert_or_assign(job_id, std::move(row));
  ++writes_.statements;
}

sim::task<store_status> transaction::put_job_fenced(job_row row, std::uint64_t expected_lease_token) {
  TWICE_CHECK(!row.job_id.empty());
  co_await round_trip();
  const std::optional<job_row> seen = visible_job(row.job_id);
  if (!seen.has_value()) co_return store_status::not_found;
  if (seen->lease_token != expected_lease_token) {
    note_fenced(*lock_core(), row.job_id, expected_lease_token, seen->lease_token, "statement");
    co_return store_status::fenced;
  }
  // A token this transaction wrote itself cannot change under it; one read
  // from committed state can, so commit checks it again.
  if (!writes_.jobs.contains(row.job_id)) writes_.job_fences.emplace(row.job_id, expected_lease_token);
  const std::string job_id = row.job_id;
  writes_.jobs.insert_or_assign(job_id, std::move(row));
  ++writes_.statements;
  co_return store_status::ok;
}

sim::task<store_status> transaction::insert_ledger(ledger_row row) {
  co_await round_trip();
  const bool unique = lock_core()->config.unique_ledger_key && !row.key.empty();
  if (unique && visible_ledger_key(row.key)) {
    note_duplicate(*lock_core(), "ledger", row.key, "statement");
    co_return store_status::duplicate_key;
  }
  if (!row.key.empty()) writes_.ledger_keys.insert(row.key);
  writes_.ledger.push_back(std::move(row));
  ++writes_.statements;
  co_return store_status::ok;
}

sim::task<std::optional<ledger_row>> transaction::find_ledger(std::string key) {
  TWICE_CHECK(!key.empty());
  co_await round_trip();
  // Committed rows come first in insertion order; this transaction's rows
  // will be appended after them.
  const std::shared_ptr<detail::store_core> core = lock_core();
  if (const auto first = core->first_ledger_row(key)) co_return core->ledger[*first];
  for (const ledger_row& row : writes_.ledger)
    if (row.key == key) co_return row;
  co_return std::nullopt;
}

sim::task<std::uint64_t> transaction::insert_outbox(outbox_row row) {
  TWICE_CHECK(row.id == 0);  // the store assigns ids
  co_await round_trip();
  row.id = lock_core()->next_outbox_id++;
  const std::uint64_t id = row.id;
  writes_.outbox.emplace(id, std::move(row));
  ++writes_.statements;
  co_return id;
}

sim::task<store_status> transaction::mark_outbox_sent(std::uint64_t outbox_id) {
  co_await round_trip();
  if (auto own = writes_.outbox.find(outbox_id); own != writes_.outbox.end()) {
    own->second.sent = true;
  } else if (lock_core()->outbox.contains(outbox_id)) {
    writes_.outbox_marks.insert(outbox_id);
  } else {
    co_return store_status::not_found;
  }
  ++writes_.statements;
  co_return store_status::ok;
}

sim::task<std::vector<outbox_row>> transaction::unsent_outbox(std::size_t max_rows) {
  TWICE_CHECK(max_rows > 0);
  co_await round_trip();
  // Merge two id-ordered sources: committed unsent rows (minus those this
  // transaction marked) and its own unsent inserts. Ids are taken at insert,
  // so a transaction that commits late can hold ids older than committed
  // ones: hence a merge, not a concatenation.
  const std::shared_ptr<detail::store_core> core = lock_core();
  std::vector<outbox_row> rows;
  auto committed = core->outbox.begin();
  auto own = writes_.outbox.begin();
  while (rows.size() < max_rows) {
    while (committed != core->outbox.end() && writes_.outbox_marks.contains(committed->first)) ++committed;
    while (own != writes_.outbox.end() && own->second.sent) ++own;
    const bool have_committed = committed != core->outbox.end();
    const bool have_own = own != writes_.outbox.end();
    if (!have_committed && !have_own) break;
    if (have_own && (!have_committed || own->first < committed->first)) {
      rows.push_back(own->second);
      ++own;
    } else {
      rows.push_back(committed->second);
      ++committed;
    }
  }
  co_return rows;
}

sim::task<store_status> transaction::update_job(std::string job_id, job_update change) {
  co_await round_trip();
  const std::optional<job_row> row = visible_job(job_id);
  if (!row) co_return store_status::not_found;
  if (change.expect_lease_token && row->lease_token != *change.expect_lease_token) {
    note_fenced(*lock_core(), job_id, *change.expect_lease_token, row->lease_token, "statement");
    co_return store_status::fenced;
  }
  writes_.job_updates.emplace_back(std::move(job_id), std::move(change));
  ++writes_.statements;
  co_return store_status::ok;
}

sim::task<store_status> transaction::insert_dedupe(std::string key, std::string by) {
  TWICE_CHECK(!key.empty());
  co_await round_trip();
  if (visible_dedupe(key)) {
    note_duplicate(*lock_core(), "dedupe", key, "statement");
    co_return store_status::duplicate_key;
  }
  writes_.dedupes.emplace(std::move(key), std::move(by));
  ++writes_.statements;
  co_return store_status::ok;
}

sim::task<void> transaction::delete_dedupe(std::string key) {
  TWICE_CHECK(!key.empty());
  co_await round_trip();
  writes_.dedupes.erase(key);
  writes_.dedupe_deletes.insert(std::move(key));
  ++writes_.statements;
}

sim::task<bool> transaction::has_dedupe(std::string key) {
  TWICE_CHECK(!key.empty());
  co_await round_trip();
  co_return visible_dedupe(key);
}

sim::task<std::optional<dedupe_row>> transaction::find_dedupe(std::string key) {
  TWICE_CHECK(!key.empty());
  co_await round_trip();
  if (const auto own = writes_.dedupes.find(key); own != writes_.dedupes.end())
    co_return dedupe_row{own->first, sim::instant::epoch(), own->second};  // not yet committed: no time
  if (writes_.dedupe_deletes.contains(key)) co_return std::nullopt;
  const auto& committed = lock_core()->dedupes;
  const auto row = committed.find(key);
  co_return row == committed.end() ? std::nullopt : std::optional<dedupe_row>(row->second);
}

commit_result transaction::check_against_committed(detail::store_core& core) const {
  for (const auto& [job_id, expected] : writes_.job_fences) {
    const std::uint64_t found = core.jobs.lease_token_of(job_id);  // rows are never deleted
    if (found == expected) continue;
    note_fenced(core, job_id, expected, found, "commit");
    return {store_status::fenced, job_id, 0};
  }
  for (const auto& [job_id, change] : writes_.job_updates) {
    if (!change.expect_lease_token) continue;
    const std::uint64_t found = core.jobs.lease_token_of(job_id);
    if (found == *change.expect_lease_token) continue;
    note_fenced(core, job_id, *change.expect_lease_token, found, "commit");
    return {store_status::fenced, job_id, 0};
  }
  if (core.config.unique_ledger_key) {
    for (const ledger_row& row : writes_.ledger) {
      if (row.key.empty() || !core.first_ledger_row(row.key)) continue;
      note_duplicate(core, "ledger", row.key, "commit");
      return {store_status::duplicate_key, row.key, 0};
    }
  }
  for (const auto& [key, by] : writes_.dedupes) {
    if (!core.dedupes.contains(key) || writes_.dedupe_deletes.contains(key)) continue;
    note_duplicate(core, "dedupe", key, "commit");
    return {store_status::duplicate_key, key, 0};
  }
  return {};
}

void transaction::apply(detail::store_core& core) {
  std::uint64_t superseded = 0;  // row versions this commit leaves dead
  for (const auto& [job_id, row] : writes_.jobs) {
    TWICE_CHECK(row.job_id == job_id);
    if (core.mvcc && core.jobs.find(job_id)) ++superseded;
    core.jobs.put(row);
  }
  for (const auto& [job_id, change] : writes_.job_updates) core.jobs.update(job_id, change);
  if (core.mvcc) core.mvcc->versions_died(core.kernel.now(), superseded + writes_.job_updates.size());
  for (const ledger_row& row : writes_.ledger) core.ledger.push(row);
  // A row sent is read by nothing again (the relay polls unsent rows, the
  // story waits for none to be left): it is not kept, so the outbox holds
  // open work only.
  for (auto& [id, row] : writes_.outbox) {
    if (row.sent) continue;
    const bool inserted = core.outbox.emplace(id, std::move(row)).second;
    TWICE_CHECK(inserted);
  }
  // Already gone if another transaction marked it and committed first.
  for (const std::uint64_t id : writes_.outbox_marks) core.outbox.erase(id);
  for (const std::string& key : writes_.dedupe_deletes) core.dedupes.erase(key);
  for (const auto& [key, by] : writes_.dedupes) {
    const bool inserted = core.dedupes.emplace(key, dedupe_row{key, core.kernel.now(), by}).second;
    TWICE_CHECK(inserted);
  }
}

sim::task<commit_result> transaction::commit() {
  co_await round_trip();
  const std::shared_ptr<detail::store_core> core = lock_core();
  commit_result result = check_against_committed(*core);
  if (!result.ok()) {
    end(to_string(result.status));
    co_return result;
  }
  result.writes = writes_.statements;
  apply(*core);
  clear_writes(writes_);
  open_ = false;
  if (core->mvcc) core->mvcc->transaction_ended(id_, began_);
  ++core->stats.commits;
  core->events.emit(core->actor_name, ev::store_commit{id_, result.writes, core->events.name(holder_)});
  core->release_connection(connection_);
  co_return result;
}

void transaction::rollback() {
  TWICE_CHECK(open_);
  end("rollback");
}

void transaction::end(std::string_view reason) {
  TWICE_CHECK(open_);
  open_ = false;
  const std::uint32_t discarded = writes_.statements;
  clear_writes(writes_);
  const std::shared_ptr<detail::store_core> core = core_.lock();
  if (core == nullptr) return;  // the store is gone; so is its pool
  if (core->mvcc) core->mvcc->transaction_ended(id_, began_);
  ++core->stats.rollbacks;
  core->events.emit(core->actor_name,
                    ev::store_rollback{id_, core->events.name(reason), discarded, core->events.name(holder_)});
  core->release_connection(connection_);
}

// ---- store ---------------------------------------------------------------

store::store(sim::kernel& kernel, event_log& events, store_config config)
    : core_(std::make_shared<detail::store_core>(kernel, events, config)) {
  TWICE_CHECK(config.pool_size >= 1);
  TWICE_CHECK(config.pool_size <= pool_size_max);
  TWICE_CHECK(config.statement_latency >= sim::duration::zero());
  for (std::uint32_t c = config.pool_size; c-- > 0;) core_->free_connections.push_back(c);
  for (std::size_t i = 0; i < core_->config.long_transactions.size(); ++i) {
    const long_transaction& t = core_->config.long_transactions[i];
    TWICE_CHECK(t.begin < t.end);
    kernel.schedule_at(t.begin, detail::store_core::long_transaction_begins, core_.get(), i);
  }
}

// Open transactions and waiting begin() calls hold the core weakly: once it
// is gone their destructors do nothing (see "Lifetime" in the header).
store::~store() = default;

const store_config& store::config() const { return core_->config; }

sim::task<transaction> store::begin(std::string holder) { return detail::open_transaction(core_, std::move(holder)); }

void store::seed_job(job_row row) {
  TWICE_CHECK(!row.job_id.empty());
  const bool inserted = core_->jobs.insert(row);
  TWICE_CHECK(inserted);
}

std::size_t store::job_count() const { return core_->jobs.size(); }
const ledger_table& store::ledger() const { return core_->ledger; }

// The ledger's texts are the name table's, counted with the event log.
std::uint64_t store::footprint() const {
  const detail::store_core& c = *core_;
  return c.jobs.footprint() + c.ledger.footprint() + sim::tree_footprint(c.outbox) + sim::tree_footprint(c.dedupes) +
         sim::tree_footprint(c.waiting_since) + (c.mvcc ? c.mvcc->footprint() : 0);
}
const outbox_table& store::outbox() const { return core_->outbox; }
const dedupe_table& store::dedupes() const { return core_->dedupes; }

std::optional<job_row> store::find_job(std::string_view job_id) const { return core_->jobs.find(job_id); }

store_stats store::stats() const {
  const detail::store_core& core = *core_;
  const sim::instant now = core.kernel.now();
  store_stats out = core.stats;
  out.connections_in_use = core.config.pool_size - static_cast<std::uint32_t>(core.free_connections.size());
  out.waiting = static_cast<std::uint32_t>(core.waiting_since.size());
  // Tickets grow with time, so the first is the oldest wait still going on:
  // a worker starved right now counts even though it has not got through.
  if (!core.waiting_since.empty()) {
    const sim::duration oldest = now - core.waiting_since.begin()->second;
    out.pool_wait_max = std::max(out.pool_wait_max, oldest);
  }
  if (core.busy_since.has_value()) {
    const sim::duration span = now - *core.busy_since;
    out.pool_busy_total += span;
    out.pool_busy_longest = std::max(out.pool_busy_longest, span);
  }
  return out;
}

}  // namespace twice
