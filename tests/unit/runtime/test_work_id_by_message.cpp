// discipline.work_id = "message" on every flavour. On SQS the consumer keeps
// a record per messageId (Powertools' idempotency record); elsewhere it is
// the plain consumer with no job table and no record, so every delivery of
// a message is new work from the first step (worker::keeps_message_record).
// Each case runs the same story keyed on the job and on the message: on the
// job, the redelivery resumes past the refund (or finds the job done); on
// the message, it refunds again, and the money invariants say so.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "checked_world.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include <twice/scenario/scenario.hpp>

using namespace twice;

namespace {

test_worlds::checked_world run_text(const std::string& text) {
  load_result loaded = load_scenario_text(text, "work_id.toml");
  INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
  REQUIRE(loaded.ok());
  return test_worlds::run_checked_world(loaded.value->world);
}

// One refund job (read, a 2 s model call, the refund, an email), no key,
// on `flavour` with `more` settings and one [[fault]] rule that strikes
// after the email of attempt 0: after the refund was made and checkpointed.
std::string refund_then_fault(std::string_view flavour, std::string_view work_id, std::string_view action,
                              std::string_view more = {}) {
  return fmt::format(R"([queue]
flavour = "{}"
{}
[workers]
count = 1
[discipline]
key = "none"
work_id = "{}"
[vendor]
latency = {{ fixed = "300ms" }}
[tools.model]
latency = {{ fixed = "2s" }}
[tools.read]
latency = {{ fixed = "5ms" }}
[budget]
time_limit = "2h"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 1999
email = true
[[fault]]
point = "after_tool"
tool = "email"
attempt = 0
action = "{}"
max_times = 1
)",
                     flavour, more, work_id, action);
}

// The refund runs again only for the consumer keyed on the message.
void check_rerun(std::string_view flavour, std::string_view action, std::string_view more = {}) {
  INFO(flavour);
  const auto by_job = run_text(refund_then_fault(flavour, "job", action, more));
  CHECK(by_job.w->payments().ledger().size() == 1);
  CHECK(by_job.at("no_double_payment").held);
  CHECK(by_job.at("every_job_ends").held);

  const auto by_message = run_text(refund_then_fault(flavour, "message", action, more));
  CHECK(by_message.w->payments().ledger().size() == 2);
  CHECK_FALSE(by_message.at("no_double_payment").held);
  CHECK(by_message.at("every_job_ends").held);  // it ends, twice paid
  // Every attempt of the message started from the first step.
  for (const sim::trace_record* r : by_message.records("attempt_start")) CHECK(r->get_int("checkpoint") == -1);
}

}  // namespace

TEST_CASE("work_id = message on Pub/Sub: a message redelivered after its client died runs its effects again",
          "[work_id][pubsub]") {
  check_rerun("pubsub", "crash");
}

TEST_CASE("work_id = message on Kafka: a record re-read after a crash and a rebalance runs its effects again",
          "[work_id][kafka]") {
  check_rerun("kafka", "crash", "[kafka]\nauto_offset_reset = \"earliest\"\n");
}

TEST_CASE("work_id = message on Sidekiq: a retried job runs its effects again", "[work_id][sidekiq]") {
  check_rerun("sidekiq", "error");
}

TEST_CASE("work_id = message on Celery: a retried task runs its effects again", "[work_id][celery]") {
  check_rerun("celery_redis", "error");
}

TEST_CASE("work_id = message on Pub/Sub, slower than the deadline with nothing extending it: redelivered for ever",
          "[work_id][pubsub]") {
  // A 25 s job, a 10 s ack deadline, a plain pull loop: each run's ack comes
  // after the message went out again and deletes nothing.
  const std::string story = R"([queue]
flavour = "pubsub"
[pubsub]
lease_management = false
[workers]
count = 2
[retry]
maximum_attempts = 0
[discipline]
key = "none"
work_id = "{}"
[vendor]
latency = { fixed = "300ms" }
[tools.model]
latency = { fixed = "25s" }
[budget]
time_limit = "3m"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 1999
)";
  // Checking the job's row, the redelivery after the first refund finds the
  // job done and acks it at once: the overlap's two refunds, then the end.
  const auto with = [&](std::string_view work_id) {
    std::string text = story;
    text.replace(text.find("{}"), 2, work_id);
    return run_text(text);
  };
  const auto by_job = with("job");
  CHECK(by_job.w->payments().ledger().size() == 2);
  CHECK_FALSE(by_job.records("already_ended").empty());
  CHECK(by_job.at("every_job_ends").held);
  CHECK(by_job.at("no_message_lost").held);
  CHECK(by_job.result.all_jobs_ended);

  const auto by_message = with("message");
  // A run every 12.5 s or so on two workers until the 3-minute limit, each
  // ack too late: the message is still in the subscription at the end.
  CHECK(by_message.w->payments().ledger().size() >= 10);
  CHECK(by_message.records("already_ended").empty());
  CHECK(by_message.records("ack_ignored").size() + 2 >= by_message.w->payments().ledger().size());
  CHECK(by_message.records("ack").empty());
  CHECK_FALSE(by_message.at("no_double_payment").held);
}
