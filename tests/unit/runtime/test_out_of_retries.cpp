// A job out of retries with no dead-letter queue to take it is in none: it
// fails, and the summary, the JSON, the reports and the trace say so, never
// "dead-lettered". Celery (no dead-letter queue at all) ends it in state
// FAILURE; Sidekiq with no dead set (`dead: false`, or `retry: false`)
// discards it; an SQS consumer with no dead-letter queue drops it. With one
// (SQS's dead-letter queue, Sidekiq's dead set) it is dead-lettered as before.
// Rows C15 (tests/conformance/celery_redis_conformance.md) and K6b
// (tests/conformance/sidekiq_conformance.md).

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "cli/run_command.hpp"
#include <twice/scenario/scenario.hpp>
#include "scenario_run.hpp"

using namespace twice;

namespace {

// One refund job whose vendor answers 503 for ten hours: every attempt fails
// (retryably), so the job runs out of attempts. `flavour_keys`: the lines
// that pick the broker and its dead-letter queue.
std::string failing_job(std::string_view flavour_keys) {
  return std::string(flavour_keys) +
         "[workers]\ncount = 1\n[discipline]\nkey = \"none\"\n[budget]\ntime_limit = \"12h\"\n"
         "[retry]\nmaximum_attempts = 3\ninitial_interval = \"1s\"\nmaximum_interval = \"1s\"\n"
         "[vendor]\nlatency = { fixed = \"300ms\" }\n[[vendor.outage]]\nstart = \"0s\"\nend = \"10h\"\n"
         "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n";
}

run_summary summary_of(const std::string& text) {
  load_result loaded = load_scenario_text(text, "out_of_retries.toml");
  INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
  REQUIRE(loaded.ok());
  return cli::run_one(*loaded.value, false).summary;
}

// The job's end as every output counts it: failed, not dead-lettered.
void check_failed_not_dead_lettered(const std::string& text, std::string_view error_says) {
  const test::scenario_run run(text);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.status_of("job_1") == job_status::failed);
  CHECK(run.records("dead_letter").empty());
  const auto failed = run.records("job_failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]->get_int("attempt") == 2);  // the third attempt, the last
  CHECK(std::string(failed[0]->get_string("error").value_or("")).find(error_says) != std::string::npos);
  const run_summary s = summary_of(text);
  CHECK(s.jobs_failed == 1);
  CHECK(s.jobs_dead_lettered == 0);
  CHECK(s.jobs_line() == "1 total: 0 done, 1 failed, 0 dead-lettered");
}

}  // namespace

TEST_CASE("Celery: a task out of max_retries ends in state FAILURE, never dead-lettered", "[celery][world]") {
  check_failed_not_dead_lettered(failing_job("[queue]\nflavour = \"celery_redis\"\n"),
                                 "max_retries exceeded, state FAILURE");
}

TEST_CASE("Sidekiq with no dead set: a job out of retries is discarded, never dead-lettered", "[sidekiq][world]") {
  check_failed_not_dead_lettered(failing_job("[queue]\nflavour = \"sidekiq\"\n[dead_letter_queue]\nenabled = false\n"),
                                 "retries exhausted and DISCARDED (no dead set)");
}

TEST_CASE("Sidekiq with its dead set: a job out of retries moves to the dead set, dead-lettered", "[sidekiq][world]") {
  const std::string text = failing_job("[queue]\nflavour = \"sidekiq\"\n");
  const test::scenario_run run(text);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.status_of("job_1") == job_status::dead_lettered);
  CHECK(run.records("dead_letter").size() == 1);
  CHECK(run.records("job_failed").empty());
  CHECK(summary_of(text).jobs_line() == "1 total: 0 done, 0 failed, 1 dead-lettered");
}

TEST_CASE("SQS: out of attempts goes to the dead-letter queue; with none the job is discarded, failed", "[world]") {
  const std::string with_queue = failing_job("");
  const test::scenario_run kept(with_queue);
  REQUIRE(kept.result.all_jobs_ended);
  CHECK(kept.status_of("job_1") == job_status::dead_lettered);
  CHECK(kept.records("dead_letter").size() == 1);
  CHECK(summary_of(with_queue).jobs_dead_lettered == 1);
  check_failed_not_dead_lettered(failing_job("[dead_letter_queue]\nenabled = false\n"),
                                 "out of attempts and DISCARDED (no dead-letter queue)");
}
