// What a violated invariant says: its detail names the first thing found
// wrong, its evidence lines name the same job / invoice / worker / key, and
// every count and time in them is the one the trace and the ledgers hold.
// Each world here is built so the thing that breaks is not the only one, or
// not the first one a careless message would name.

#include <catch2/catch.hpp>

#include <fmt/core.h>

#include <cstdio>
#include <string>

#include "sim/duration_text.hpp"
#include "test_worlds.hpp"
#include "checked_world.hpp"

using namespace twice;
using namespace twice::test_worlds;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using sim::duration;
using sim::instant;

namespace {
std::string secs(instant t) { return fmt::format("{}.{:06}s", t.us() / 1'000'000, t.us() % 1'000'000); }

world_config base(std::uint32_t workers = 2) {
  world_config c;
  c.seed = 21;
  c.workers = workers;
  c.payments.latency = latency_model::fixed(duration::from_ms(300));
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  return c;
}

// Without a key, every job's lease runs out during its model call: a second
// worker runs it too and both refund.
world_config overlapping_unkeyed(std::uint32_t jobs) {
  world_config c = base(2 * jobs);
  c.queue.visibility_timeout = duration::from_s(10);
  c.model.latency = latency_model::fixed(duration::from_s(25));
  c.runtime.rules.key = key_mode::none;
  for (std::uint32_t i = 1; i <= jobs; ++i)
    c.jobs.push_back(agent_job(fmt::format("job_{}", i), fmt::format("inv_{}", i), 100 * i));
  return c;
}

// The vendor is down for the whole run and the runtime resets the attempt
// counter: the job comes back again and again and never ends.
world_config attempts_reset() {
  world_config c = base();
  c.seed = 5;
  c.jobs.push_back(agent_job("job_1", "inv_1", 300));
  c.runtime.retry.maximum_attempts = 3;
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(3600)});
  c.time_limit = duration::from_s(120);
  return c;
}

const sim::trace_record& only(const std::vector<const sim::trace_record*>& records) {
  REQUIRE(records.size() == 1);
  return *records[0];
}

// The new write of `step` by `actor`.
const sim::trace_record& new_write_of(const checked_world& r, std::string_view actor, std::int64_t step) {
  std::vector<const sim::trace_record*> writes;
  for (const auto* t : r.records("tool_call", actor))
    if (t->get_bool("new_write") == true && t->get_int("step") == step) writes.push_back(t);
  return only(writes);
}
}  // namespace

TEST_CASE("no_double_payment names the first overpaid invoice, lists its refunds first, and counts the others",
          "[invariants][evidence]") {
  const checked_world r = run_checked_world(overlapping_unkeyed(3));
  const verdict& v = r.at("no_double_payment");
  REQUIRE_FALSE(v.held);
  CHECK(v.detail == "invoice inv_1 was refunded 200 cents but asked 100 cents (and 2 more overpaid invoices)");
  REQUIRE(v.evidence.size() == 4);  // evidence_max: inv_1's two refunds, then inv_2's
  CHECK_THAT(v.evidence[0], Contains(" inv_1 100 cents key=(none)"));
  CHECK_THAT(v.evidence[1], Contains(" inv_1 100 cents key=(none)"));
  CHECK_THAT(v.evidence[2], Contains(" inv_2 200 cents key=(none)"));
  CHECK_THAT(v.evidence[3], Contains(" inv_2 200 cents key=(none)"));
}

TEST_CASE("every_job_ends reports the attempts that started, and the row's counter where it says otherwise",
          "[invariants][evidence]") {
  SECTION("a counter reset on every delivery: the row says 1, the trace saw hundreds") {
    const checked_world r = run_checked_world(attempts_reset());
    const verdict& v = r.at("every_job_ends");
    REQUIRE_FALSE(v.held);
    CHECK(v.detail == "the run stopped (time_limit) at 120.000000s with 1 job still open");
    const std::size_t started = r.records("attempt_start").size();
    REQUIRE(started > 100);
    REQUIRE(r.w->db().find_job("job_1")->attempts == 1);
    CHECK(v.evidence ==
          std::vector<std::string>{fmt::format(
              "job_1 is queued after {} attempts (its row's attempt counter says 1), last error 503 unavailable",
              started)});
  }
  SECTION("a run cut short: every open job, counted, each with the attempts it had") {
    world_config c = base();
    c.model.latency = latency_model::fixed(duration::from_s(5));
    for (const char* id : {"job_a", "job_b", "job_c"}) c.jobs.push_back(agent_job(id, std::string("inv_") + id, 100));
    c.time_limit = duration::from_s(3);
    const checked_world r = run_checked_world(c);
    const verdict& v = r.at("every_job_ends");
    REQUIRE_FALSE(v.held);
    CHECK(v.detail == "the run stopped (time_limit) at 3.000000s with 3 jobs still open");
    // Two workers: two jobs have started their first attempt, the third none; the rows agree.
    CHECK(v.evidence == std::vector<std::string>{"job_a is running after 1 attempt", "job_b is running after 1 attempt",
                                                 "job_c is queued after 0 attempts"});
  }
}

TEST_CASE("attempts_monotonic names the job and the numbers, and counts every repeat", "[invariants][evidence]") {
  const checked_world r = run_checked_world(attempts_reset());
  const verdict& v = r.at("attempts_monotonic");
  REQUIRE_FALSE(v.held);
  const auto starts = r.records("attempt_start");
  REQUIRE(starts.size() > 5);
  CHECK(v.detail ==
        fmt::format("a job's attempt counter repeated or went backwards ({} in all, 4 shown)", starts.size() - 1));
  REQUIRE(v.evidence.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(v.evidence[i]);
    CHECK_THAT(v.evidence[i], StartsWith(secs(starts[i + 1]->time) + " " + starts[i + 1]->actor + " attempt_start"));
    CHECK_THAT(v.evidence[i], Contains("job=\"job_1\" attempt=0") && Contains("<- attempt 0 after attempt 0"));
  }
  REQUIRE(v.first_violation.has_value());
  CHECK(*v.first_violation == starts[1]->time);
}

TEST_CASE("leases_exclusive_or_absorbed says when the other slice wrote and when the two overlapped",
          "[invariants][evidence]") {
  SECTION("the other slice had acked before this write: no claim that it still held the job") {
    const checked_world r = run_checked_world(overlapping_unkeyed(1));
    const verdict& v = r.at("leases_exclusive_or_absorbed");
    REQUIRE_FALSE(v.held);
    const sim::trace_record& first_write = new_write_of(r, "worker/0", 3);
    const sim::trace_record& second_write = new_write_of(r, "worker/1", 3);
    const sim::trace_record& first_ack =
        *r.records("ack", "worker/0").at(0);  // (the redelivery it found done acks too)
    const sim::trace_record& first_end = *r.records("slice_end", "worker/0").at(0);
    const sim::trace_record& second_start = only(r.records("attempt_start", "worker/1"));
    // The story this test is about: worker/0 acked, and only then did worker/1 write.
    REQUIRE(first_ack.time < second_write.time);
    REQUIRE(first_end.time < second_write.time);
    REQUIRE(v.evidence.size() == 1);
    CHECK(v.evidence[0] ==
          describe(second_write) +
              fmt::format("  <- a second new write for step 3: worker/0 (attempt 0) wrote it at {} in a slice that "
                          "overlapped this one from {} to {}",
                          secs(first_write.time), secs(second_start.time), secs(first_end.time)));
  }
  SECTION("the other slice still runs at this write") {
    world_config c = overlapping_unkeyed(1);
    c.jobs[0] = agent_job("job_1", "inv_1", 100, /*email=*/true);
    c.email.latency = latency_model::fixed(duration::from_s(20));  // worker/0 is still emailing when worker/1 refunds
    const checked_world r = run_checked_world(c);
    const verdict& v = r.at("leases_exclusive_or_absorbed");
    REQUIRE_FALSE(v.held);
    const sim::trace_record& first_write = new_write_of(r, "worker/0", 3);
    const sim::trace_record& second_write = new_write_of(r, "worker/1", 3);
    const sim::trace_record& second_start = *r.records("attempt_start", "worker/1").at(0);
    REQUIRE(r.records("slice_end", "worker/0").at(0)->time > second_write.time);
    REQUIRE_FALSE(v.evidence.empty());
    CHECK(v.evidence[0] == describe(second_write) +
                               fmt::format("  <- a second new write for step 3: worker/0 (attempt 0) wrote it at {} in "
                                           "a slice that still runs, overlapping this one since {}",
                                           secs(first_write.time), secs(second_start.time)));
  }
}

TEST_CASE("backoff_within_cap names the two backoffs whose envelope fell", "[invariants][evidence]") {
  // In-slice retries count up inside one delivery; the lease runs out (no
  // heartbeat) and the next delivery starts the counter again.
  world_config c = base();
  c.seed = 5;
  c.jobs.push_back(agent_job("job_1", "inv_1", 300));
  c.queue.visibility_timeout = duration::from_s(10);
  c.runtime.retry.maximum_attempts = 10;
  c.runtime.rules.retry = retry_mode::in_slice;
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(3600)});
  c.time_limit = duration::from_s(60);
  const checked_world r = run_checked_world(c);
  const verdict& v = r.at("backoff_within_cap");
  REQUIRE_FALSE(v.held);
  REQUIRE_FALSE(v.evidence.empty());
  const std::string& line = v.evidence[0];
  INFO(line);
  // "<record>  <- the envelope fell from Xus (the backoff after attempt K at T) to Yus"
  const auto why = line.find("  <- the envelope fell from ");
  REQUIRE(why != std::string::npos);
  long long from_us = 0, to_us = 0, attempt = 0;
  char at[32] = {};
  REQUIRE(std::sscanf(line.c_str() + why,
                      "  <- the envelope fell from %lldus (the backoff after attempt %lld at %31s to %lldus", &from_us,
                      &attempt, at, &to_us) == 4);
  std::string earlier_at(at);
  REQUIRE(earlier_at.ends_with(")"));
  earlier_at.pop_back();
  CHECK(to_us < from_us);
  // Both backoffs are in the trace as the line says: the earlier one with its
  // attempt, time and envelope; this one is the record the line shows.
  bool earlier_found = false;
  bool this_found = false;
  for (const auto* b : r.records("backoff")) {
    if (secs(b->time) == earlier_at && b->get_int("attempt") == attempt && b->get_int("envelope_us") == from_us)
      earlier_found = true;
    if (line.starts_with(describe(*b) + "  <- ") && b->get_int("envelope_us") == to_us) this_found = true;
  }
  CHECK(earlier_found);
  CHECK(this_found);
  CHECK_THAT(line, Contains("job=\"job_1\""));
  REQUIRE(v.first_violation.has_value());
  CHECK(line.starts_with(secs(*v.first_violation)));
}

TEST_CASE("no_retry_of_non_retryable names the job that heard the 4xx, not another", "[invariants][evidence]") {
  world_config c = base();
  c.jobs.push_back(agent_job("job_1", "inv_1", 100));
  c.jobs.push_back(agent_job("job_2", "inv_2", 200));
  c.payments.bad_targets.insert("inv_2");
  c.runtime.retry.maximum_attempts = 3;
  c.runtime.rules.retry_non_retryable = true;
  const checked_world r = run_checked_world(c);
  const verdict& v = r.at("no_retry_of_non_retryable");
  REQUIRE_FALSE(v.held);
  // Three attempts of job_2, each refused: the first two are retried, the last dead-letters.
  CHECK(v.detail == "a job was retried after a non-retryable answer");
  REQUIRE(v.evidence.size() == 2);
  for (const std::string& line : v.evidence) {
    INFO(line);
    const auto why = line.find("  <- a retry scheduled after a non-retryable answer: ");
    REQUIRE(why != std::string::npos);
    const std::string backoff = line.substr(0, why);
    const std::string heard = line.substr(why);
    CHECK_THAT(backoff, Contains(" backoff job=\"job_2\""));
    CHECK_THAT(heard, Contains(" tool_call job=\"job_2\"") && Contains("status=400"));
    // The same worker heard the answer and scheduled the retry.
    const std::string actor =
        backoff.substr(backoff.find(' ') + 1, backoff.find(' ', backoff.find(' ') + 1) - backoff.find(' ') - 1);
    CHECK_THAT(heard, Contains("s " + actor + " tool_call"));
  }
}

TEST_CASE("drain_kills_nothing names the worker stopped and the job it was running", "[invariants][evidence]") {
  world_config c = base(1);
  c.jobs.push_back(agent_job("job_1", "inv_1", 100));
  c.model.latency = latency_model::fixed(duration::from_s(20));
  deploy_spec d;
  d.at = instant::epoch() + duration::from_s(1);
  d.strategy = deploy_strategy::drain;
  d.grace_period = duration::from_s(10);
  c.deploys.push_back(d);
  const checked_world r = run_checked_world(c);
  const verdict& v = r.at("drain_kills_nothing");
  REQUIRE_FALSE(v.held);
  REQUIRE(v.evidence.size() == 1);
  CHECK_THAT(v.evidence[0], StartsWith("11.000000s worker/0 stop ") && Contains("in_flight=true") &&
                                Contains("job=\"job_1\"") &&
                                Contains("<- the grace period ended with a slice in flight"));
}

TEST_CASE("database_not_stalled says how long each transaction waited", "[invariants][evidence]") {
  world_config c = test_worlds::pool_of_one_slow_model();
  c.runtime.rules.hold_transaction_across_model = true;
  const checked_world r = run_checked_world(c);
  const verdict& v = r.at("database_not_stalled");
  REQUIRE_FALSE(v.held);
  std::vector<const sim::trace_record*> stalls;
  for (const auto* w : r.records("pool_wait"))
    if (*w->get_int("waited_us") > duration::from_s(5).us()) stalls.push_back(w);
  REQUIRE_FALSE(stalls.empty());
  REQUIRE(v.evidence.size() == std::min<std::size_t>(4, stalls.size()));
  for (std::size_t i = 0; i < v.evidence.size(); ++i)
    CHECK(v.evidence[i] == describe(*stalls[i]) + "  <- waited " +
                               sim::format_duration(duration::from_us(*stalls[i]->get_int("waited_us"))) +
                               " for a connection, longer than 5s");
  if (stalls.size() > 4)
    CHECK(v.detail ==
          fmt::format("a transaction waited too long for a connection: the pool was exhausted ({} in all, 4 shown)",
                      stalls.size()));
}

TEST_CASE(
    "done_jobs_paid_in_full names the first unpaid job, its invoice, what was paid and asked, and counts the rest",
    "[invariants][evidence]") {
  world_config c = base();
  for (int i = 1; i <= 3; ++i) c.jobs.push_back(agent_job(fmt::format("job_{}", i), fmt::format("inv_{}", i), 100 * i));
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;
  // job_1 pays; job_2 and job_3 crash once between the checkpoint and the refund, and their retries skip it.
  c.point_faults.push_back(
      {.point = "before_tool", .tool = "refund", .job = "job_2", .attempt = 0u, .action = point_action::crash});
  c.point_faults.push_back(
      {.point = "before_tool", .tool = "refund", .job = "job_3", .attempt = 0u, .action = point_action::crash});
  const checked_world r = run_checked_world(c);
  const verdict& v = r.at("done_jobs_paid_in_full");
  REQUIRE_FALSE(v.held);
  CHECK(v.detail == "job_2 ended done but invoice inv_2 was refunded 0 cents of 200 cents (and 1 more job)");
  CHECK(v.evidence == std::vector<std::string>{"job_2: done; vendor refunds for inv_2: 0 cents of 200 cents",
                                               "job_3: done; vendor refunds for inv_3: 0 cents of 300 cents"});
}
