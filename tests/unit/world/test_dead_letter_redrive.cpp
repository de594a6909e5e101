// The dead-letter queue's two endings: read by nobody, a dead letter waits
// until retention deletes it (no_message_lost says so); with the on-call's
// redrive, the job's row is queued again with its attempts granted anew and
// its message comes back to the source queue as a new one.

#include <catch2/catch.hpp>

#include <string>

#include "broker/queue.hpp"
#include "checked_world.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"
#include <twice/runtime/job.hpp>
#include <twice/store/store.hpp>

using namespace twice;
using namespace twice::test_worlds;
using sim::duration;

namespace {

// One refund job against a payment provider down from the start until
// `outage_end`; two attempts, then the dead-letter queue.
world_config down_until(duration outage_end) {
  world_config c;
  c.jobs.push_back(agent_job("job_1", "inv_1", 1999));
  c.runtime.retry.maximum_attempts = 2;
  c.runtime.retry.initial_interval = duration::from_s(1);
  c.payments.outages.push_back({sim::instant::epoch(), sim::instant::epoch() + outage_end});
  c.time_limit = duration::from_s(30 * 3600);
  return c;
}

}  // namespace

TEST_CASE("a redrive after the outage queues the job again and it is done, its attempt numbers still rising",
          "[world][redrive]") {
  world_config c = down_until(duration::from_s(3600));
  c.dead_letter_redrive = dead_letter_redrive_config{
      .after = duration::from_s(2 * 3600), .times = 1, .auto_resolve = {}, .age_alarm = {}, .renotify_every = {}};
  const checked_world run = run_checked_world(c);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.w->jobs().end_of("job_1") == job_end::done);
  const std::optional<job_row> row = run.w->db().find_job("job_1");
  REQUIRE(row.has_value());
  CHECK(row->redrives == 1);
  CHECK(row->attempts == 3);  // two before the dead letter, one after the redrive
  REQUIRE(run.records("dead_letter_alarm").size() == 1);
  CHECK(run.records("dead_letter_alarm")[0]->get_int("redrive_at_us") ==
        run.records("dead_letter_alarm")[0]->time.us() + duration::from_s(2 * 3600).us());
  REQUIRE(run.records("moved_out").size() == 1);
  const auto starts = run.records("attempt_start");
  REQUIRE(starts.size() == 3);
  CHECK(starts[2]->get_int("attempt") == 2);
  CHECK(starts[2]->get_int("receive_count") == 1);  // a new message
  CHECK(run.w->dead_letter_queue()->size() == 0);
  CHECK(run.at("no_message_lost").held);
  CHECK(run.at("attempts_monotonic").held);
  CHECK(run.w->payments().ledger().size() == 1);
}

TEST_CASE("the on-call redrives at most `times`; a job failing every time ends dead-lettered", "[world][redrive]") {
  world_config c = down_until(duration::from_s(100 * 3600));
  c.dead_letter_redrive = dead_letter_redrive_config{
      .after = duration::from_s(600), .times = 2, .auto_resolve = {}, .age_alarm = {}, .renotify_every = {}};
  const checked_world run = run_checked_world(c);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.w->jobs().end_of("job_1") == job_end::dead_lettered);
  const std::optional<job_row> row = run.w->db().find_job("job_1");
  REQUIRE(row.has_value());
  CHECK(row->redrives == 2);
  CHECK(row->attempts == 6);
  CHECK(run.records("dead_letter_alarm").size() == 2);
  CHECK(run.records("moved_out").size() == 2);
  CHECK(run.records("dead_letter").size() == 3);
  CHECK(run.w->dead_letter_queue()->size() == 1);  // the third dead letter waits, unread
}

TEST_CASE("a dead letter nobody reads is deleted by retention, and no_message_lost says which", "[world][redrive]") {
  world_config c = down_until(duration::from_s(100 * 3600));
  c.queue.retention = duration::from_s(3600);
  c.dead_letter.retention = duration::from_s(3600);
  const checked_world run = run_checked_world(c);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.w->jobs().end_of("job_1") == job_end::dead_lettered);
  const auto expired = run.records("retention_expired", "queue/jobs-dlq");
  REQUIRE(expired.size() == 1);
  // The runtime sends a dead letter as a new message: its retention counts
  // from that send (a broker's redrive would keep the first enqueue time).
  const auto dead = run.records("dead_letter");
  REQUIRE(dead.size() == 1);
  CHECK(expired[0]->time == dead[0]->time + duration::from_s(3600));
  const verdict& lost = run.at("no_message_lost");
  CHECK_FALSE(lost.held);
  REQUIRE(lost.evidence.size() == 1);
  CHECK(lost.evidence[0].find("job_1") != std::string::npos);
  CHECK(lost.evidence[0].find("never ended done or failed") != std::string::npos);
  CHECK(run.at("every_job_ends").held);  // dead-lettered counts as an end: only the loss shows it
}

TEST_CASE("a backlog older than the source queue's retention is lost before any worker reads it", "[world][redrive]") {
  world_config c;
  for (int i = 1; i <= 4; ++i)
    c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 1999));
  c.workers = 1;
  c.model.latency = latency_model::fixed(duration::from_s(40));
  c.queue.retention = duration::from_s(60);
  c.runtime.heartbeat_interval = duration::from_s(10);
  const checked_world run = run_checked_world(c);
  // job_1 and job_2 are processed within the minute; the rest expire queued.
  const auto expired = run.records("retention_expired", "queue/jobs");
  REQUIRE_FALSE(expired.empty());
  const verdict& lost = run.at("no_message_lost");
  CHECK_FALSE(lost.held);
  CHECK(lost.evidence.size() == expired.size());
  CHECK_FALSE(run.result.all_jobs_ended);  // nothing is left to bring them back: stuck
}

TEST_CASE("a split-out job's dead letter is redriven to the split queue, where its own workers take it",
          "[world][redrive]") {
  world_config c;
  c.jobs.push_back(agent_job("job_1", "inv_1", 1999));
  c.runtime.rules.split_tool = "model";
  c.runtime.retry.maximum_attempts = 2;
  c.runtime.retry.initial_interval = duration::from_s(1);
  c.model.outages.push_back({sim::instant::epoch(), sim::instant::epoch() + duration::from_s(600)});
  c.dead_letter_redrive = dead_letter_redrive_config{
      .after = duration::from_s(3600), .times = 1, .auto_resolve = {}, .age_alarm = {}, .renotify_every = {}};
  const checked_world run = run_checked_world(c);
  const auto moved = run.records("moved_out");
  REQUIRE(moved.size() == 1);
  CHECK(moved[0]->get_string("to") == "jobs-slow");
  const std::string child = std::string(moved[0]->get_string("body").value());
  CHECK(child != "job_1");
  // The split-out job ran again on its own queue and was done; its parent had
  // failed with its dead letter and stays failed.
  const std::optional<job_row> row = run.w->db().find_job(child);
  REQUIRE(row.has_value());
  CHECK(row->status == job_status::done);
  CHECK(row->redrives == 1);
  CHECK(run.w->jobs().end_of("job_1") == job_end::failed);
  CHECK(run.result.all_jobs_ended);
}
