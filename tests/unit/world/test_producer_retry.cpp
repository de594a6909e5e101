// A producer's retry of a send that timed out after SQS took it, on a FIFO
// queue (rows F9a-F9c of tests/conformance/sqs_fifo_conformance.md): what the 5-minute
// deduplication drops, and what a consumer keyed on the job row or on the
// messageId makes of a second message. Whole worlds from scenario text, so
// apart from the queue-level cases in test_sqs_fifo_conformance.cpp.

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "scenario_run.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"

#include <twice/vendors/vendor_refund.hpp>

using namespace twice;
using namespace twice::sim::literals;

namespace {

// One job on a FIFO queue whose first send times out after SQS took it;
// the producer sends again 60 s later, when the job has long ended.
std::string resent_story(std::string_view deduplication, std::string_view work_id,
                         std::string_view resend_after = "60s") {
  return fmt::format(R"(name = "resent"
seed = 3
[queue]
flavour = "sqs_fifo"
message_group_id = "job"
deduplication = "{}"
[discipline]
work_id = "{}"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 500
[[queue_fault]]
kind = "send_timeout"
job = "job_1"
nth = 1
resend_after = "{}"
)",
                     deduplication, work_id, resend_after);
}

}  // namespace

TEST_CASE("F9a a producer's retry with the same deduplication id within 5 minutes is accepted and dropped",
          "[sqs-conformance][fifo]") {
  const test::scenario_run run(resent_story("job_id", "message"));
  REQUIRE(run.records("send_timeout").size() == 1);
  const auto resent = run.records("resent");
  REQUIRE(resent.size() == 1);
  CHECK(resent[0]->get_bool("deduplicated") == true);
  CHECK(resent[0]->time == sim::instant::epoch() + 60_s);
  CHECK(run.records("send_deduplicated").size() == 1);
  CHECK(run.records("receive").size() == 1);
  CHECK(run.refunds() == 1);
  CHECK(run.result.all_jobs_ended);
}

TEST_CASE("F9b a retry after the 5-minute interval is a second message, even with the same id",
          "[sqs-conformance][fifo]") {
  const test::scenario_run run(resent_story("job_id", "message", "6m"));
  const auto resent = run.records("resent");
  REQUIRE(resent.size() == 1);
  CHECK(resent[0]->get_bool("deduplicated") == false);
  CHECK(run.refunds() == 2);  // the consumer keyed on the messageId runs it again
}

TEST_CASE("F9c a new deduplication id per send: a second message, which only a consumer keyed on the job absorbs",
          "[sqs-conformance][fifo]") {
  SECTION("keyed on the messageId: new work from the first step, under a key of its own") {
    const test::scenario_run run(resent_story("per_send", "message"));
    REQUIRE(run.records("resent").size() == 1);
    CHECK(run.records("resent")[0]->get_bool("deduplicated") == false);
    CHECK(run.records("already_ended").empty());
    CHECK(run.refunds() == 2);
    std::vector<std::string> keys;
    for (const vendor_refund& r : run.w->payments().ledger()) keys.push_back(r.idempotency_key.value_or(""));
    CHECK(keys == std::vector<std::string>{"message_1:step_3:refund", "message_2:step_3:refund"});
    CHECK(run.status_of("job_1") == job_status::done);
  }
  SECTION("keyed on the job: the second message finds the job row ended and is acked") {
    const test::scenario_run run(resent_story("per_send", "job"));
    CHECK(run.records("already_ended").size() == 1);
    CHECK(run.records("ack").size() == 2);
    CHECK(run.refunds() == 1);
  }
}
