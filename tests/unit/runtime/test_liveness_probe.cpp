// A liveness probe answered by the worker's loop: a call that blocks the
// loop past failure_threshold probes gets the pod SIGTERM, then SIGKILL a
// grace period later, mid-call; a call that returns in time costs nothing,
// and a probe answered resets the count.

#include <catch2/catch.hpp>

#include "checked_world.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"
#include <twice/runtime/job.hpp>

using namespace twice;
using namespace twice::test_worlds;
using sim::duration;

namespace {

constexpr sim::instant at_s(std::int64_t s) { return sim::instant::epoch() + duration::from_s(s); }

// One refund job whose model and read steps are instant, and a refund that
// takes `refund` seconds, under the kubelet's default probe.
world_config slow_refund(std::int64_t refund_s) {
  world_config c;
  c.workers = 1;
  c.jobs.push_back(agent_job("job_1", "inv_1", 1999));
  c.model.latency = latency_model::fixed(duration::zero());
  c.read.latency = latency_model::fixed(duration::zero());
  c.payments.latency = latency_model::fixed(duration::from_s(refund_s));
  c.payments.client_timeout = duration::from_s(600);
  c.runtime.visibility_timeout = duration::from_s(900);
  c.runtime.liveness_probe = liveness_probe_config{};
  c.runtime.retry.maximum_attempts = 2;
  return c;
}

}  // namespace

TEST_CASE("three unanswered probes restart the pod a grace period later, in the middle of the call",
          "[worker][liveness]") {
  const checked_world run = run_checked_world(slow_refund(90));
  const auto failed = run.records("probe_failed");
  REQUIRE(failed.size() >= 3);
  // The call starts just after 0 s; the probes at 10, 20 and 30 s each wait their 1 s timeout.
  CHECK(failed[0]->time == at_s(11));
  CHECK(failed[1]->time == at_s(21));
  CHECK(failed[2]->time == at_s(31));
  CHECK(failed[2]->get_int("failures") == 3);
  CHECK(failed[2]->get_int("kill_at_us") == at_s(61).us());
  const auto crashes = run.records("crash");
  REQUIRE_FALSE(crashes.empty());
  CHECK(crashes[0]->time == at_s(61));
  CHECK(crashes[0]->get_string("why") == "liveness probe failed");
  CHECK(crashes[0]->get_bool("in_flight") == true);
  // The provider paid anyway; the stable key makes the retry a replay.
  CHECK(run.w->payments().ledger().size() == 1);
  CHECK(run.at("no_double_payment").held);
}

TEST_CASE("a call shorter than the threshold costs no restart, and an answered probe resets the count",
          "[worker][liveness]") {
  // 15 s: the probes at 10 s fail once, the one at 20 s is answered.
  const checked_world run = run_checked_world(slow_refund(15));
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.w->jobs().end_of("job_1") == job_end::done);
  const auto failed = run.records("probe_failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0]->get_int("failures") == 1);
  CHECK(run.records("crash").empty());
}
