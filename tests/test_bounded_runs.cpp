// Bounded resources: a scenario built to never end (retries forever with no
// wait, a vendor down for ten years, heartbeats all along) stops at its
// budget and says so, in bounded time.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli/run_command.hpp"
#include "scenario/scenario.hpp"

using namespace twice;

namespace {

std::string fixture(std::string_view name) {
  return (std::filesystem::path(__FILE__).parent_path() / "scenarios" / name).string();
}

}  // namespace

TEST_CASE("a run that would never end stops at its event budget and reports it", "[bounded]") {
  const load_result loaded = load_scenario_file(fixture("pathological_budget.toml"));
  REQUIRE(loaded.ok());
  const scenario& sc = *loaded.value;
  REQUIRE(sc.world.event_budget == 200'000);

  const cli::run_outcome out = cli::run_one(sc, false);
  const world_result& r = out.summary.result;
  CHECK(r.reason == sim::stop_reason::event_budget);
  CHECK(end_name(r) == "event_budget");
  CHECK(describe_end(r) == "EVENT BUDGET spent with jobs open");
  CHECK(r.events == 200'000);
  CHECK_FALSE(r.all_jobs_ended);
  CHECK(out.summary.jobs_succeeded == 0);
  // The vendor turned every call away, and the jobs never stopped trying.
  CHECK(out.summary.vendor_refunds == 0);
  CHECK(out.summary.vendor_calls > 1000);
  CHECK(out.summary.vendor_rejected_503 == out.summary.vendor_calls);
  CHECK(out.summary.attempts.size() > 1000);
  // Without any wait, the budget is spent long before the day's time limit.
  CHECK(r.story_end < sim::instant::epoch() + sim::duration::from_s(3600));
}

TEST_CASE("the same run with only simulated time to stop it ends at the time limit", "[bounded]") {
  const load_result loaded = load_scenario_file(fixture("pathological_budget.toml"));
  REQUIRE(loaded.ok());
  scenario sc = *loaded.value;
  // A one-second wait between attempts: time moves, and the time limit comes first.
  sc.world.runtime.retry.initial_interval = sim::duration::from_s(1);
  sc.world.runtime.retry.maximum_interval = sim::duration::from_s(1);
  sc.world.runtime.heartbeat_interval.reset();
  sc.world.time_limit = sim::duration::from_s(600);
  const cli::run_outcome out = cli::run_one(sc, false);
  CHECK(out.summary.result.reason == sim::stop_reason::time_limit);
  CHECK(end_name(out.summary.result) == "time_limit");
  CHECK(out.summary.result.events < 200'000);
}
