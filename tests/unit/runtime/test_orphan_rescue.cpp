// An orphan rescue (runtime/orphan_rescue.hpp): rows running since before
// rescue_after are queued again with a new message; one out of attempts is
// discarded or granted one more; a slow slice is rescued while it runs; a
// row a slice moved on since the query is left alone. And the table's index
// of running rows the rescue reads.

#include <catch2/catch.hpp>

#include "checked_world.hpp"
#include <twice/runtime/job.hpp>
#include "broker/queue.hpp"
#include "store/job_rows.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"

using namespace twice;
using namespace twice::test_worlds;
using sim::duration;

namespace {

constexpr sim::instant at_s(std::int64_t s) { return sim::instant::epoch() + duration::from_s(s); }

// One agent job with instant read and model calls and a 300 ms refund, a
// lease of an hour (so only the rescue brings a crashed slice's job back
// within the run), and a rescue after 5 minutes, every minute.
world_config rescued_world() {
  world_config c;
  c.workers = 1;
  c.time_limit = duration::from_s(1800);
  c.jobs.push_back(agent_job("job_1", "inv_1", 1999));
  c.model.latency = latency_model::fixed(duration::zero());
  c.read.latency = latency_model::fixed(duration::zero());
  c.payments.latency = latency_model::fixed(duration::from_ms(300));
  c.queue.visibility_timeout = duration::from_s(3600);
  c.runtime.orphan_rescue =
      orphan_rescue_config{.rescue_after = duration::from_s(300), .interval = duration::from_s(60)};
  return c;
}

point_fault crash_before_model(std::uint32_t times) {
  point_fault crash;
  crash.point = "before_tool";
  crash.tool = "model";
  crash.max_times = times;
  return crash;
}

}  // namespace

TEST_CASE("running rows are indexed with their claim time while they run, and granted attempts are kept",
          "[store][rescue]") {
  job_rows rows;
  job_row a;
  a.job_id = "a";
  job_row b;
  b.job_id = "b";
  rows.insert(a);
  rows.insert(b);
  CHECK(rows.running_before(at_s(100)).empty());
  a.status = job_status::running;
  a.attempted_at = at_s(10);
  rows.put(a);
  b.status = job_status::running;
  b.attempted_at = at_s(50);
  rows.put(b);
  const std::vector<job_row> old = rows.running_before(at_s(30));
  REQUIRE(old.size() == 1);
  CHECK(old[0] == a);
  CHECK(rows.running_before(at_s(60)).size() == 2);
  // Ended: out of the index, and read back with no claim time.
  job_update done;
  done.status = job_status::done;
  rows.update("a", done);
  CHECK(rows.running_before(at_s(60)).size() == 1);
  CHECK_FALSE(rows.find("a")->attempted_at.has_value());
  job_update grant;
  grant.grant_attempt = true;
  rows.update("b", grant);
  rows.update("b", grant);
  CHECK(rows.find("b")->attempts_granted == 2);
  CHECK(rows.find("b")->attempted_at == at_s(50));  // still running
  CHECK(rows.find("a")->attempts_granted == 0);
}

TEST_CASE("a crashed slice's job is queued again by the rescue, long before its lease ends", "[runtime][rescue]") {
  world_config c = rescued_world();
  c.point_faults.push_back(crash_before_model(1));
  const checked_world run = run_checked_world(c);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.w->jobs().end_of("job_1") == job_end::done);
  const auto rescued = run.records("orphan_rescued", "lifeline");
  REQUIRE(rescued.size() == 1);
  // Claimed just after 0 s; the sweeps at 60 .. 300 s find nothing older than
  // 5 minutes, the one at 360 s does.
  CHECK(rescued[0]->time > at_s(360));
  CHECK(rescued[0]->time < at_s(361));
  CHECK(rescued[0]->get_string("outcome") == "queued");
  CHECK(rescued[0]->get_int("attempts") == 1);
  CHECK(run.w->db().find_job("job_1")->attempts == 2);
  CHECK(run.w->payments().ledger().size() == 1);
  CHECK(run.at("attempts_within_limit").held);
  // The original message is still leased (for the hour) when the half hour runs out.
  CHECK(run.result.reason == sim::stop_reason::time_limit);
  CHECK(describe_end(run.result) == "TIME LIMIT reached with every job ended and messages in flight");
  CHECK(run.result.story_end == at_s(1800));
}

TEST_CASE("a rescued job out of attempts is discarded, or granted one more and run past the limit",
          "[runtime][rescue]") {
  world_config c = rescued_world();
  c.runtime.retry.maximum_attempts = 2;
  c.point_faults.push_back(crash_before_model(0));  // every attempt kills the worker
  SECTION("discard") {
    const checked_world run = run_checked_world(c);
    CHECK(run.result.all_jobs_ended);
    CHECK(run.w->jobs().end_of("job_1") == job_end::dead_lettered);
    const auto rescued = run.records("orphan_rescued");
    REQUIRE(rescued.size() == 2);
    CHECK(rescued[0]->get_string("outcome") == "queued");
    CHECK(rescued[1]->get_string("outcome") == "discarded");
    CHECK(run.w->db().find_job("job_1")->last_error == "orphan rescue: attempts exhausted");
    CHECK(run.w->dead_letter_queue()->size() == 1);
    CHECK(run.at("attempts_within_limit").held);
    CHECK(run.at("every_job_ends").held);
  }
  SECTION("retry") {
    c.runtime.orphan_rescue->exhausted = exhausted_orphans::retry;
    c.time_limit = duration::from_s(1750);
    const checked_world run = run_checked_world(c);
    CHECK_FALSE(run.result.all_jobs_ended);
    const auto rescued = run.records("orphan_rescued");
    // Claimed just after 0 s and found by the sweep at 360 s; each claim
    // after it just after a sweep, so found five sweeps later: rescues at
    // 360, 660, ... 1560 s, six attempts in 29 minutes against a limit of two.
    REQUIRE(rescued.size() == 5);
    CHECK(rescued[0]->get_string("outcome") == "queued");
    CHECK(rescued[1]->get_string("outcome") == "granted");
    CHECK(rescued[4]->get_string("outcome") == "granted");
    CHECK(rescued[4]->time > at_s(1560));
    CHECK(run.w->db().find_job("job_1")->attempts == 6);
    CHECK(run.w->db().find_job("job_1")->attempts_granted == 4);
    CHECK_FALSE(run.at("attempts_within_limit").held);
    CHECK(run.at("attempts_within_limit").detail.find("retry.maximum_attempts") != std::string::npos);
    CHECK_FALSE(run.at("every_job_ends").held);
    CHECK(run.at("attempts_monotonic").held);  // the counter only went up: the limit moved
  }
}

TEST_CASE("a slice slower than rescue_after is rescued while it runs: its job runs twice at once",
          "[runtime][rescue]") {
  world_config c = rescued_world();
  c.workers = 2;
  c.payments.latency = latency_model::fixed(duration::from_s(400));
  c.payments.client_timeout = duration::from_s(600);
  SECTION("with a key the second refund is a replay") {
    const checked_world run = run_checked_world(c);
    REQUIRE(run.records("orphan_rescued").size() >= 1);
    // Both slices called the vendor; its key layer answered the second.
    CHECK(run.records("attempt_start").size() >= 2);
    CHECK(run.w->payments().ledger().size() == 1);
    CHECK(run.at("no_double_payment").held);
  }
  SECTION("without one it pays twice") {
    c.runtime.rules.key = key_mode::none;
    const checked_world run = run_checked_world(c);
    CHECK(run.w->payments().ledger().size() == 2);
    CHECK_FALSE(run.at("no_double_payment").held);
  }
}
