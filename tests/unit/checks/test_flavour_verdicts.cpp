// Verdicts that must be as sound on every broker flavour as on SQS: each
// case here was a wrong verdict or a misleading line once (issue 37), on
// Sidekiq, Celery, Pub/Sub or a tool of the scenario's own.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "checked_world.hpp"
#include "report/expectations.hpp"
#include <twice/report/timeline.hpp>
#include <twice/scenario/scenario.hpp>
#include "scenario_text.hpp"

using namespace twice;
using Catch::Matchers::Contains;

namespace {

// A world loaded from scenario text, run to its end under the checkers.
test_worlds::checked_world run_text(const std::string& text) {
  load_result loaded = load_scenario_text(text, "verdicts.toml");
  INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
  REQUIRE(loaded.ok());
  return test_worlds::run_checked_world(loaded.value->world);
}

bool evidence_has(const verdict& v, std::string_view text) {
  return std::any_of(v.evidence.begin(), v.evidence.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

// One refund job (read, a 40 s model call, refund) on `flavour`, one worker,
// and a deploy at 5 s, while the model call runs.
std::string job_under_deploy(std::string_view flavour, std::string_view strategy, std::string_view more = {}) {
  return "[queue]\nflavour = \"" + std::string(flavour) + "\"\n" + std::string(more) +
         R"(
[workers]
count = 1
[vendor]
latency = { fixed = "300ms" }
[tools.model]
latency = { fixed = "40s" }
client_timeout = "1m"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 1999
[[deploy]]
at = "5s"
sha = "v2"
strategy = ")" +
         std::string(strategy) +
         R"("
grace_period = "30s"
startup = "5s"
)";
}

}  // namespace

TEST_CASE("a drain ended by the runtime's own shutdown timeout kills a slice: drain_kills_nothing breaks",
          "[verdicts][sidekiq]") {
  // Sidekiq's -t (25 s) runs out before Kubernetes' 30 s grace period; the
  // job is pushed back and runs again, but the slice in flight was killed.
  const auto r = run_text(job_under_deploy("sidekiq", "drain"));
  const verdict& v = r.at("drain_kills_nothing");
  CHECK_FALSE(v.held);
  CHECK(evidence_has(v, "stop why=\"shutdown timeout\" in_flight=true"));
  CHECK(evidence_has(v, "the runtime's own shutdown timeout ended the drain with a slice in flight"));
  CHECK(r.at("no_message_lost").held);  // pushed back to the head: nothing lost
}

TEST_CASE("a job Sidekiq's basic fetch loses with its process violates no_message_lost", "[verdicts][sidekiq]") {
  const auto r = run_text(job_under_deploy("sidekiq", "rolling_kill"));
  CHECK_FALSE(r.at("every_job_ends").held);
  const verdict& v = r.at("no_message_lost");
  CHECK_FALSE(v.held);
  CHECK(evidence_has(v, "lost_with_process"));
  CHECK(evidence_has(v, "job_1 never ended, and no queue, retry set, topic or producer holds a message of it"));

  SECTION("super_fetch orphans it instead, and a process started an hour on recovers it") {
    const auto fixed = run_text(job_under_deploy("sidekiq", "rolling_kill", "[sidekiq]\nfetch = \"super\"\n"));
    CHECK(fixed.at("no_message_lost").held);
  }
}

TEST_CASE("a Celery task acked before it ran, on a pod killed mid-task, violates no_message_lost",
          "[verdicts][celery]") {
  const auto r = run_text(job_under_deploy("celery_redis", "rolling_kill"));
  const verdict& v = r.at("no_message_lost");
  CHECK_FALSE(v.held);
  CHECK(evidence_has(v, "delete"));  // the ack at the task's start (acks_late off)
  CHECK(evidence_has(v, "stop why=\"rolling kill\" in_flight=true"));

  SECTION("with acks_late the message waits unacked, and the visibility timeout brings it back") {
    const auto fixed = run_text(job_under_deploy("celery_redis", "rolling_kill", "[celery]\nacks_late = true\n"));
    CHECK(fixed.at("no_message_lost").held);
    CHECK(fixed.at("every_job_ends").held);
  }
}

namespace {
// An SMS step through a gateway that takes no key, a 20 s call under a 10 s
// lease with no heartbeat, on two workers: the lease runs out mid-call and
// the second worker takes the job while the first still sends.
std::string sms_job(std::string_view claim) {
  return R"(
[workers]
count = 2
[queue]
visibility_timeout = "10s"
[tools.sms]
effect = "write"
latency = { fixed = "20s" }
client_timeout = "1m"
)" + std::string(claim) +
         R"(
[[job_type]]
name = "notify"
steps = [{ tool = "sms", target = "+15550100" }]
[[job]]
id = "job_1"
type = "notify"
)";
}
}  // namespace

TEST_CASE("a write tool of your own is not claimed unless it asks: the overlap sends twice", "[verdicts][claim]") {
  const auto r = run_text(sms_job(""));
  CHECK(r.records("claim_skipped").empty());
  CHECK_FALSE(r.at("one_effect_per_step").held);
}

TEST_CASE(
    "a claimed step skipped by an overlapping slice is traced, and done before the effect breaks "
    "done_jobs_had_effects",
    "[verdicts][claim]") {
  const auto r = run_text(sms_job("claim = true"));
  const auto skipped = r.records("claim_skipped");
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0]->get_string("claim") == "job_1:step_1:sms");
  CHECK(skipped[0]->get_string("claimed_by") == "attempt 0, delivery 1, worker/0");
  const std::optional<timeline_line> line = timeline_entry(*skipped[0], std::nullopt);
  REQUIRE(line.has_value());
  CHECK(line->text == "sms job_1 step 1 skipped: job_1:step_1:sms already claimed by attempt 0, delivery 1, worker/0");
  CHECK(r.at("one_effect_per_step").held);
  const verdict& v = r.at("done_jobs_had_effects");
  CHECK_FALSE(v.held);
  CHECK_THAT(v.detail, Contains("job_1 ended done at") && Contains("before step 1 (sms to +15550100) took effect"));
}

using test::dead_letter_job;

TEST_CASE("a verdict the budget cut short is not judged, and [expect] does not pass it", "[verdicts][budget]") {
  const auto cut = run_text(dead_letter_job("1h"));
  const verdict& v = cut.at("no_message_lost");
  CHECK(v.held);
  CHECK_FALSE(v.judged);
  CHECK_THAT(v.detail, Contains("not judged: 1 dead letter still held when the run stopped ([budget] time_limit)") &&
                           Contains("retention deletes the first at 86402.011750s"));
  CHECK(verdict_word(v) == "UNJUDGED");
  CHECK(describe_settling(cut.result) == "settling ran on to 3600.000000s, where [budget] time_limit stopped it");

  // Long enough for the retention: the same file, judged.
  const auto longer = run_text(dead_letter_job("48h"));
  CHECK_FALSE(longer.at("no_message_lost").held);
  CHECK(longer.at("no_message_lost").judged);
}

TEST_CASE("an ack the broker ignored says so: the message went out again since that receive", "[verdicts][pubsub]") {
  // Pub/Sub without lease management: a 25 s job under the 10 s ack
  // deadline, two workers. The first worker's ack comes after the second
  // took the message.
  const auto r = run_text(R"(
[queue]
flavour = "pubsub"
[workers]
count = 2
[pubsub]
lease_management = false
[tools.model]
latency = { fixed = "25s" }
client_timeout = "1m"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 1999
)");
  const auto ignored = r.records("ack_ignored");
  REQUIRE_FALSE(ignored.empty());
  const std::optional<timeline_line> line = timeline_entry(*ignored[0], std::nullopt);
  REQUIRE(line.has_value());
  CHECK_THAT(line->text, Contains("ack job_1 ignored: the message was given out again since this receive"));
}
