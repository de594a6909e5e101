// Postgres' MVCC on the job table (store/mvcc_horizon.hpp): a row version
// that dies while an older transaction is open stays, and every read of the
// job table walks it, until that transaction ends; a version no open
// transaction can see costs nothing. A long transaction of another session
// holds the horizon from its start to its end, or until transaction_timeout
// terminates it.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include "store/mvcc_horizon.hpp"
#include <twice/store/store.hpp>

using namespace twice;
using twice::sim::duration;
using twice::sim::instant;
using twice::sim::task;

namespace {

instant at_s(std::int64_t s) { return instant::epoch() + duration::from_s(s); }

struct world {
  explicit world(store_config config) : db(k, events, std::move(config)) {}
  sim::kernel k;
  event_log events{k};
  store db;
};

job_row job(std::string id) {
  job_row row;
  row.job_id = std::move(id);
  return row;
}

// Updates j1 `times` times, one transaction each, one a second from `start`.
task<void> churn(world& w, std::int64_t start, int times) {
  co_await sim::sleep_for(duration::from_s(start));
  for (int i = 0; i < times; ++i) {
    transaction tx = co_await w.db.begin("worker");
    job_update change;
    change.last_error = "e" + std::to_string(i);
    co_await tx.update_job("j1", std::move(change));
    co_await tx.commit();
    co_await sim::sleep_for(duration::from_s(1));
  }
}

// One read of j1 at `at`; its round trip's length goes to `took`.
task<void> read_at(world& w, std::int64_t at, duration& took) {
  co_await sim::sleep_for(duration::from_s(at));
  transaction tx = co_await w.db.begin("reader");
  const instant before = w.k.now();
  co_await tx.get_job("j1");
  took = w.k.now() - before;
  tx.rollback();
}

// A report transaction open from 5 s to 20 s among updates of j1 every
// second: how long the read of j1 at 15 s takes.
duration read_during_report(world& w) {
  w.db.seed_job(job("j1"));
  duration during;
  w.k.spawn(churn(w, 0, 30));
  w.k.spawn(read_at(w, 15, during));
  w.k.run();
  return during;
}

store_config report_from_5_to_20() {
  store_config config;
  config.long_transactions.push_back({at_s(5), at_s(20), "report"});
  return config;
}

}  // namespace

TEST_CASE("the horizon keeps the versions that died after the oldest open transaction began", "[store][mvcc]") {
  mvcc_horizon h;
  h.versions_died(at_s(1), 5);  // nothing open: dead to everyone at once
  CHECK(h.visible_dead_versions() == 0);
  h.transaction_began(1, at_s(10));
  h.versions_died(at_s(10), 2);  // at the instant it began: it may still see them
  h.versions_died(at_s(11), 3);
  h.transaction_began(2, at_s(12));
  h.versions_died(at_s(13), 4);
  CHECK(h.visible_dead_versions() == 9);
  h.transaction_ended(1, at_s(10));  // the horizon moves to 12 s
  CHECK(h.visible_dead_versions() == 4);
  h.transaction_ended(2, at_s(12));
  CHECK(h.visible_dead_versions() == 0);
}

TEST_CASE("a long transaction makes every job-table read walk the versions that died while it was open",
          "[store][mvcc]") {
  store_config config;
  config.dead_row_cost = duration::from_ms(1);  // a round number for the test: 1 ms a version
  config.long_transactions.push_back({at_s(5), at_s(20), "report"});
  world w(config);
  w.db.seed_job(job("j1"));
  // Updates at 0..29 s, one a second; reads at 3, 15 and 25 s.
  duration before, during, after;
  w.k.spawn(churn(w, 0, 30));
  w.k.spawn(read_at(w, 3, before));
  w.k.spawn(read_at(w, 15, during));
  w.k.spawn(read_at(w, 25, after));
  w.k.run();
  CHECK(before == duration::from_ms(2));  // the statement latency alone
  // Updates at 5 .. 14 s (the one at 15 s commits 4 ms later): ten versions.
  CHECK(during == duration::from_ms(2 + 10));
  CHECK(after == duration::from_ms(2));  // the report committed at 20 s
  std::vector<std::string> states;
  std::vector<std::int64_t> dead;
  for (const sim::trace_record& r : w.events.records())
    if (r.kind == "long_transaction") {
      CHECK(r.actor == "store/report");
      states.emplace_back(r.get_string("state").value());
      dead.push_back(r.get_int("dead_versions").value());
    }
  CHECK(states == std::vector<std::string>{"begins", "commits"});
  CHECK(dead == std::vector<std::int64_t>{0, 15});  // the updates at 5 .. 19 s
}

TEST_CASE("transaction_timeout terminates the long transaction, and the reads are quick again", "[store][mvcc]") {
  store_config config = report_from_5_to_20();
  config.dead_row_cost = duration::from_ms(1);
  config.transaction_timeout = duration::from_s(4);
  world w(config);
  CHECK(read_during_report(w) == duration::from_ms(2));
  bool terminated = false;
  for (const sim::trace_record& r : w.events.records())
    if (r.kind == "long_transaction" && r.get_string("state") == "terminated") {
      terminated = true;
      CHECK(r.time == at_s(9));
      CHECK(r.get_int("dead_versions") == 4);  // the updates at 5 .. 8 s
    }
  CHECK(terminated);
}

TEST_CASE("without dead_row_cost a long transaction costs nothing", "[store][mvcc]") {
  world w(report_from_5_to_20());
  CHECK(read_during_report(w) == duration::from_ms(2));
}
