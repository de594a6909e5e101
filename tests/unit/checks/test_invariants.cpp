// Each invariant holds under the correct discipline and is violated, with
// evidence, by the bug it exists to catch.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <twice/checks/checked_run.hpp>
#include <twice/checks/invariants.hpp>
#include <twice/sim/sleep.hpp>
#include "checks/invariant_set.hpp"
#include "test_worlds.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/incidents.hpp"

using namespace twice;
using sim::duration;
using sim::instant;

namespace {
struct checked_run {
  std::map<std::string, verdict> verdicts;
  world_result result;
};

checked_run run_checked(const world_config& c, check_options options = {}) {
  checked_result checked = run_with_checkers(c, options);
  checked_run out;
  out.result = checked.result;
  for (verdict& v : checked.verdicts) out.verdicts.emplace(v.name, std::move(v));
  return out;
}

bool all_hold(const checked_run& r) {
  for (const auto& [name, v] : r.verdicts)
    if (!v.held) {
      UNSCOPED_INFO(name << ": " << v.detail);
      return false;
    }
  return true;
}

world_config one_job() {
  world_config c;
  c.seed = 21;
  c.workers = 2;
  c.jobs.push_back(agent_job("job_1", "inv_1", 500));
  c.payments.latency = latency_model::fixed(duration::from_ms(300));
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  return c;
}
}  // namespace

TEST_CASE("every invariant has a stable name, checked in report order", "[invariants]") {
  CHECK(invariant_names().size() == 17);
  CHECK(invariant_names().back() == "no_tenant_starved");
  CHECK(invariant_names().front() == "one_ledger_row_per_key");
  CHECK(is_invariant_name("no_double_payment"));
  CHECK_FALSE(is_invariant_name("no_double_payments"));
}

TEST_CASE("the double refund violates no_double_payment and ledgers_agree, with evidence", "[invariants]") {
  const checked_run broken = run_checked(double_refund_config(false));
  const verdict& paid = broken.verdicts.at("no_double_payment");
  CHECK_FALSE(paid.held);
  CHECK(paid.detail == "invoice inv_17 was refunded 3998 cents but asked 1999 cents");
  REQUIRE(paid.evidence.size() == 2);
  CHECK(paid.evidence[0] == "2.419000s vendor refund re_1 inv_17 1999 cents key=(none)");
  CHECK_FALSE(broken.verdicts.at("ledgers_agree").held);
  CHECK(broken.verdicts.at("one_ledger_row_per_key").held);
  CHECK(broken.verdicts.at("every_job_ends").held);

  const checked_run fixed = run_checked(double_refund_config(true));
  CHECK(all_hold(fixed));
}

TEST_CASE("resetting the attempt counter breaks monotonic attempts, the backoff envelope, and liveness",
          "[invariants]") {
  world_config c = one_job();
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  c.runtime.retry.maximum_attempts = 3;
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(3600)});
  c.time_limit = duration::from_s(60);
  const checked_run r = run_checked(c);
  CHECK_FALSE(r.verdicts.at("attempts_monotonic").held);
  CHECK_FALSE(r.verdicts.at("every_job_ends").held);
  CHECK(r.verdicts.at("every_job_ends").evidence.at(0).starts_with("job_1 is queued after"));
  CHECK_FALSE(r.verdicts.at("attempts_monotonic").evidence.empty());
}

TEST_CASE("retrying a 400 violates no_retry_of_non_retryable", "[invariants]") {
  world_config c = one_job();
  c.payments.bad_targets.insert("inv_1");
  CHECK(run_checked(c).verdicts.at("no_retry_of_non_retryable").held);
  c.runtime.rules.retry_non_retryable = true;
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("no_retry_of_non_retryable");
  CHECK_FALSE(v.held);
  REQUIRE_FALSE(v.evidence.empty());
  CHECK(v.evidence[0].find("backoff") != std::string::npos);
  CHECK(v.evidence[0].find("a retry scheduled after a non-retryable answer") != std::string::npos);
  CHECK(v.evidence[0].find("status=400") != std::string::npos);
}

TEST_CASE("backoff without a cap violates backoff_within_cap", "[invariants]") {
  world_config c = one_job();
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(5)});
  CHECK(run_checked(c).verdicts.at("backoff_within_cap").held);
  c.runtime.retry.maximum_interval.reset();
  CHECK_FALSE(run_checked(c).verdicts.at("backoff_within_cap").held);
}

// The runtime waits out a server's Retry-After even above its own cap
// (retrying sooner only earns another 429): that delay is the server's, not
// a broken cap.
TEST_CASE("a Retry-After above the cap keeps backoff_within_cap", "[invariants]") {
  world_config c = one_job();
  c.runtime.retry.maximum_interval = duration::from_s(2);
  c.payments.rate_limited_ppm = 500'000;
  c.payments.retry_after = duration::from_s(30);
  world w(c);
  invariant_set checker({}, c);
  w.events().add_observer(&checker);
  const world_result result = w.run();
  REQUIRE(result.all_jobs_ended);
  std::size_t above_cap = 0;
  for (const sim::trace_record& r : w.events().records())
    if (r.kind == "backoff" && r.get_int("delay_us") > r.get_int("cap_us")) {
      CHECK(r.get_int("delay_us") == duration::from_s(30).us());
      ++above_cap;
    }
  REQUIRE(above_cap >= 1);  // the world exercises the floor
  for (const verdict& v : checker.finish(w, result)) {
    INFO(v.name << ": " << v.detail);
    CHECK(v.held);
  }
}

TEST_CASE("overlapping slices that both write violate leases_exclusive_or_absorbed unless a key absorbs it",
          "[invariants]") {
  world_config c = one_job();
  c.queue.visibility_timeout = duration::from_s(10);
  c.model.latency = latency_model::fixed(duration::from_s(30));
  const checked_run keyed = run_checked(c);
  CHECK(keyed.verdicts.at("leases_exclusive_or_absorbed").held);
  CHECK(all_hold(keyed));
  c.runtime.rules.key = key_mode::none;
  const checked_run unkeyed = run_checked(c);
  CHECK_FALSE(unkeyed.verdicts.at("leases_exclusive_or_absorbed").held);
  CHECK_FALSE(unkeyed.verdicts.at("no_double_payment").held);
}

// The other way to keep a lease exclusive: a broker that tells a heartbeat
// its handle is stale, and a runtime that stops the slice when it hears so.
// The broker delivers job_1 twice at once; each worker's slice calls the
// model for 12 s, longer than the first heartbeat (3 s). No key absorbs a
// second refund here, so only the stopped slice keeps it single.
TEST_CASE("a strict broker's failed heartbeat stops the slice: leases stay exclusive without a key", "[invariants]") {
  world_config c = one_job();
  c.runtime.rules.key = key_mode::none;
  c.queue.semantics = handle_semantics::strict;
  c.queue.visibility_timeout = duration::from_s(10);
  c.runtime.heartbeat_interval = duration::from_s(3);
  c.model.latency = latency_model::fixed(duration::from_s(12));
  c.queue_faults.push_back({.what = queue_fault::kind::duplicate_delivery, .job = "job_1", .nth = 1});
  world w(c);
  invariant_set checker({}, c);
  w.events().add_observer(&checker);
  const world_result result = w.run();
  REQUIRE(result.all_jobs_ended);
  std::size_t starts = 0;
  for (const sim::trace_record& r : w.events().records()) starts += r.kind == "attempt_start";
  REQUIRE(starts == 2);  // the two slices overlapped
  for (const verdict& v : checker.finish(w, result)) {
    INFO(v.name << ": " << v.detail);
    CHECK(v.held);
  }
  CHECK(w.payments().ledger().size() == 1);
}

TEST_CASE("a drain whose grace period is shorter than the slice violates drain_kills_nothing", "[invariants]") {
  world_config c = one_job();
  c.workers = 1;
  c.model.latency = latency_model::fixed(duration::from_s(20));
  deploy_spec d;
  d.at = instant::epoch() + duration::from_s(1);
  d.strategy = deploy_strategy::drain;
  d.grace_period = duration::from_s(30);
  c.deploys.push_back(d);
  CHECK(run_checked(c).verdicts.at("drain_kills_nothing").held);
  c.deploys[0].grace_period = duration::from_s(10);
  const checked_run r = run_checked(c);
  CHECK_FALSE(r.verdicts.at("drain_kills_nothing").held);
  CHECK(r.verdicts.at("drain_kills_nothing").first_violation == instant::epoch() + duration::from_s(11));
}

TEST_CASE("a transaction held across the model call violates database_not_stalled", "[invariants]") {
  world_config c = test_worlds::pool_of_one_slow_model();
  CHECK(run_checked(c).verdicts.at("database_not_stalled").held);
  c.runtime.rules.hold_transaction_across_model = true;
  CHECK_FALSE(run_checked(c).verdicts.at("database_not_stalled").held);
}

TEST_CASE("checkpointing before the side effect violates done_jobs_paid_in_full", "[invariants]") {
  world_config c = one_job();
  c.point_faults.push_back({.point = "before_tool", .tool = "refund", .attempt = 0u, .action = point_action::crash});
  CHECK(all_hold(run_checked(c)));
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("done_jobs_paid_in_full");
  CHECK_FALSE(v.held);
  CHECK(v.detail == "job_1 ended done but invoice inv_1 was refunded 0 cents of 500 cents");
  CHECK(r.verdicts.at("ledgers_agree").held);  // both ledgers are empty: only this invariant sees it
}

TEST_CASE("an email claimed before a send that never happened violates done_jobs_had_effects", "[invariants]") {
  world_config c = one_job();
  c.jobs[0] = agent_job("job_1", "inv_1", 500, /*email=*/true);
  // The claim commits, then the worker dies before the send: at most once.
  c.point_faults.push_back({.point = "before_tool", .tool = "email", .attempt = 0u, .action = point_action::crash});
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("done_jobs_had_effects");
  CHECK_FALSE(v.held);
  CHECK(v.detail == "job_1 ended done but step 4 (email to customer-of-inv_1) never took effect at vendor/email");
  REQUIRE(v.evidence.size() == 1);
  CHECK(v.evidence[0] == "job_1: done; no effect at vendor/email for job_1:step_4:email");
  CHECK(r.verdicts.at("one_effect_per_step").held);
  // Without the claim the replay sends it: at least once, and here once.
  c.runtime.rules.claimed_tools.clear();
  CHECK(all_hold(run_checked(c)));
}

// In full, not merely something: a job refunding one invoice in two steps
// that loses the second has paid part of what it asked.
TEST_CASE("a done job whose invoice was refunded only in part violates done_jobs_paid_in_full", "[invariants]") {
  world_config c = one_job();
  c.jobs[0].steps.push_back({"refund", "inv_1", 300});  // step 4: inv_1 is asked 500 + 300 cents
  c.point_faults.push_back(
      {.point = "before_tool", .tool = "refund", .step = 4, .attempt = 0u, .action = point_action::crash});
  CHECK(all_hold(run_checked(c)));
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;  // step 4 is checkpointed, then the crash loses it
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("done_jobs_paid_in_full");
  CHECK_FALSE(v.held);
  // (The wording is the report's; the figures are what this test is about.)
  CHECK_THAT(v.detail, Catch::Matchers::Contains("inv_1") && Catch::Matchers::Contains("500 cents") &&
                           Catch::Matchers::Contains("800 cents"));
  CHECK(r.verdicts.at("no_double_payment").held);
}

TEST_CASE("an email sent twice for one step violates one_effect_per_step, whoever sent it", "[invariants]") {
  world_config c = one_job();
  c.jobs[0] = agent_job("job_1", "inv_1", 500, /*email=*/true);
  c.point_faults.push_back({.point = "after_tool", .tool = "email", .attempt = 0u, .action = point_action::crash});
  CHECK(all_hold(run_checked(c)));  // the claimed dedupe row stops the replay's send
  c.runtime.rules.claimed_tools.clear();
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("one_effect_per_step");
  CHECK_FALSE(v.held);
  REQUIRE(v.evidence.size() == 1);
  CHECK_THAT(v.evidence[0], Catch::Matchers::Contains("vendor/email effect") &&
                                Catch::Matchers::Contains("reference=\"job_1:step_4:email\" count=2") &&
                                Catch::Matchers::Contains("<- effect number 2 for job_1:step_4:email at vendor/email"));
  REQUIRE(v.first_violation.has_value());
  // The other invariants cannot see it: the refund was keyed.
  CHECK(r.verdicts.at("no_double_payment").held);
  CHECK(r.verdicts.at("leases_exclusive_or_absorbed").held);
}

TEST_CASE("a charge tool of your own that moves money is held to the money invariants, named", "[invariants]") {
  world_config c = one_job();
  c.tools.push_back(test_worlds::keyed_write_tool("charge", duration::from_ms(200), true));
  c.jobs[0].steps = {{"read", "acct_1", 0}, {"charge", "acct_1", 2500}};
  // The charge commits, then the worker crashes before recording it.
  c.point_faults.push_back({.point = "after_tool", .tool = "charge", .attempt = 0u, .action = point_action::crash});
  const checked_run keyed = run_checked(c);
  CHECK(all_hold(keyed));

  c.runtime.rules.key = key_mode::none;
  const checked_run r = run_checked(c);
  const verdict& paid = r.verdicts.at("no_double_payment");
  CHECK_FALSE(paid.held);
  CHECK(paid.detail == "acct_1 had 5000 cents from charge but asked 2500 cents");
  REQUIRE(paid.evidence.size() == 2);
  CHECK_THAT(paid.evidence[0], Catch::Matchers::Contains("vendor charge charge_1 acct_1 2500 cents key=(none)"));
  CHECK(r.verdicts.at("ledgers_agree").detail == "job_1: our ledger 2500 cents, the charge tool's 5000 cents");
  // A money tool's effects are ledger rows: the refund's invariants, not the email's.
  CHECK(r.verdicts.at("one_effect_per_step").held);
  CHECK(r.verdicts.at("done_jobs_had_effects").held);
}

namespace {
// Writes made after the run, straight to the ledgers, as a buggy runtime
// might: a second local row under a key already used, and two vendor refunds
// of an invoice no job names under one key, the second after the vendor had
// pruned the key.
sim::task<void> stray_writes(world& w, std::string used_key) {
  transaction tx = co_await w.db().begin("stray");
  ledger_row again;
  again.key = std::move(used_key);
  again.amount_cents = 500;
  again.job_id = "job_1";
  co_await tx.insert_ledger(again);
  co_await tx.commit();
  tool_call stray{"inv_9", 300, std::string("stray:key")};
  co_await w.payments().call(stray);
  co_await sim::sleep_for(duration::from_s(3));  // past key_retention: the key is pruned
  tool_call stray_again{"inv_9", 300, std::string("stray:key")};
  co_await w.payments().call(stray_again);
}
}  // namespace

TEST_CASE("rows repeating a key, and refunds of an invoice no job names, are reported in key and job order",
          "[invariants]") {
  world_config c = one_job();
  c.store.unique_ledger_key = false;
  c.payments.key_retention = duration::from_s(1);
  world w(c);
  invariant_set checker({}, c);
  w.events().add_observer(&checker);
  world_result result = w.run();
  REQUIRE(w.db().ledger().size() == 1);
  const std::string used_key = w.db().ledger()[0].key;
  REQUIRE_FALSE(used_key.empty());
  w.kernel().spawn(stray_writes(w, used_key), "stray");
  w.kernel().run();
  REQUIRE(w.payments().ledger().size() == 3);
  std::map<std::string, verdict> verdicts;
  for (verdict& v : checker.finish(w, result)) verdicts.emplace(v.name, std::move(v));

  const verdict& keys = verdicts.at("one_ledger_row_per_key");
  CHECK_FALSE(keys.held);
  // The detail names the key the evidence lists first (ours is checked before
  // the vendor's), in the ledger it repeats in, and counts the other.
  CHECK(keys.detail == "key " + used_key + " has 2 rows in our ledger (and 1 more repeated key)");
  REQUIRE(keys.evidence.size() == 4);
  CHECK(keys.evidence[0].find("ledger row job_1 500 cents key=" + used_key) != std::string::npos);
  CHECK(keys.evidence[1].find("ledger row job_1 500 cents key=" + used_key) != std::string::npos);
  CHECK(keys.evidence[2].find("inv_9 300 cents key=stray:key") != std::string::npos);
  CHECK(keys.evidence[3].find("inv_9 300 cents key=stray:key") != std::string::npos);

  const verdict& paid = verdicts.at("no_double_payment");
  CHECK_FALSE(paid.held);
  CHECK(paid.detail == "invoice inv_9 was refunded 600 cents but asked 0 cents");
  CHECK(paid.evidence.size() == 2);

  const verdict& agree = verdicts.at("ledgers_agree");
  CHECK_FALSE(agree.held);
  // "(" sorts before "j": the unknown invoice's pseudo-job comes first.
  CHECK(agree.detail == "(unknown invoice inv_9): our ledger 0 cents, the vendor's 600 cents (and 1 more job)");
  CHECK(agree.evidence == std::vector<std::string>{"(unknown invoice inv_9): local 0 cents vs vendor 600 cents",
                                                   "job_1: local 1000 cents vs vendor 500 cents"});
  CHECK(verdicts.at("done_jobs_paid_in_full").held);
}

TEST_CASE("a tenant within its share that waits behind another's backlog violates no_tenant_starved", "[invariants]") {
  world_config c;
  c.workers = 2;
  c.model.latency = latency_model::fixed(duration::from_s(10));
  const job_type acme{"acme_report", progress_mode::per_step, {{"model", "m_{job}", 0, 1}}, "acme"};
  const job_type beta{"beta_report", progress_mode::per_step, {{"model", "m_{job}", 0, 1}}, "beta"};
  for (int i = 1; i <= 12; ++i) c.jobs.push_back(make_job(acme, "a_" + std::to_string(i)));
  job_spec late = make_job(beta, "b_1");
  late.enqueue_at = instant::epoch() + duration::from_s(1);  // behind all twelve of acme's
  c.jobs.push_back(late);
  c.tenant_wait_bound = duration::from_s(30);
  const checked_run r = run_checked(c);
  const verdict& v = r.verdicts.at("no_tenant_starved");
  CHECK_FALSE(v.held);
  // Two workers, ten seconds a job (and a few milliseconds of database and
  // broker calls): b_1 is received when the twelfth of acme's is done.
  CHECK(v.detail == "tenant beta (1 of the jobs, no more than its share) waited p99 59s84ms in the queue, above 30s");
  REQUIRE(v.evidence.size() == 2);
  CHECK(v.evidence[0] == "acme (above its share): 12 jobs: queue wait p50 20s28ms, p99 50s70ms, max 50s70ms");
  CHECK(v.evidence[1] == "beta: 1 job: queue wait p50 59s84ms, p99 59s84ms, max 59s84ms");
  c.tenant_wait_bound = duration::from_s(60);
  CHECK(run_checked(c).verdicts.at("no_tenant_starved").held);
  // No tenants at all: nothing to hold to a bound.
  for (job_spec& j : c.jobs) j.tenant.clear();
  CHECK(run_checked(c).verdicts.at("no_tenant_starved").detail == "no job names a tenant");
}

TEST_CASE("a sample of the job queue over an alarm violates backlog_within_bound", "[invariants]") {
  // Thirty jobs at once on one worker, each ~1.3 s: the last waits ~38 s,
  // and the queue holds 28 visible messages at its first sample after 0 s.
  world_config c = one_job();
  c.workers = 1;
  c.jobs.clear();
  for (int i = 0; i < 30; ++i) c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 500));
  SECTION("no alarm set: nothing to hold") {
    const checked_run r = run_checked(c);
    CHECK(r.verdicts.at("backlog_within_bound").held);
    CHECK(r.verdicts.at("backlog_within_bound").detail == "no alarm set on the job queue ([alarms])");
  }
  SECTION("the age of the oldest message") {
    c.alarms.oldest_message_age = duration::from_s(30);
    const checked_run r = run_checked(c);
    const verdict& v = r.verdicts.at("backlog_within_bound");
    CHECK_FALSE(v.held);
    REQUIRE_FALSE(v.evidence.empty());
    CHECK_THAT(v.evidence[0], Catch::Matchers::Contains("31s old, above alarms.oldest_message_age = 30s"));
    REQUIRE(v.first_violation.has_value());
    CHECK(*v.first_violation == sim::instant::epoch() + duration::from_s(31));
    c.alarms.oldest_message_age = duration::from_s(60);
    CHECK(run_checked(c).verdicts.at("backlog_within_bound").held);
  }
  SECTION("the visible backlog") {
    c.alarms.backlog = 20;
    const checked_run r = run_checked(c);
    const verdict& v = r.verdicts.at("backlog_within_bound");
    CHECK_FALSE(v.held);
    REQUIRE_FALSE(v.evidence.empty());
    CHECK_THAT(v.evidence[0], Catch::Matchers::Contains("messages visible, above alarms.backlog = 20"));
    c.alarms.backlog = 30;
    const checked_run quiet = run_checked(c);
    CHECK(quiet.verdicts.at("backlog_within_bound").held);
    CHECK(quiet.verdicts.at("backlog_within_bound").detail ==
          "every sample of the job queue found at most 30 messages visible");
  }
}
