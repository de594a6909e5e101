// Bounded resources: a scenario built to never end (retries forever with no
// wait, a vendor down for ten years, heartbeats all along) stops at its
// budget and says so, in bounded time.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "cli/run_command.hpp"
#include <twice/events/trace_events.hpp>
#include <twice/world/world.hpp>
#include <twice/scenario/scenario.hpp>
#include "test_files.hpp"

using namespace twice;

namespace {

std::string fixture(std::string_view name) { return (test::repo_root() / "tests" / "scenarios" / name).string(); }

// The never-ending story with room for ten million events: only a memory
// budget of `bytes` stops it early.
scenario runaway_with_memory_budget(std::uint64_t bytes) {
  const load_result loaded = load_scenario_file(fixture("pathological_budget.toml"));
  REQUIRE(loaded.ok());
  scenario sc = *loaded.value;
  sc.world.event_budget = 10'000'000;
  sc.world.memory_budget = bytes;
  return sc;
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
  CHECK(out.summary.attempts_total > 1000);
  CHECK(out.summary.attempts.empty());  // counted, not summarised: no output asked for them
  // Without any wait, the budget is spent long before the day's time limit.
  CHECK(r.story_end < sim::instant::epoch() + sim::duration::from_s(3600));
}

TEST_CASE("a run that keeps every event of a runaway story ends at its memory budget, outputs intact", "[bounded]") {
  const scenario sc = runaway_with_memory_budget(std::uint64_t{8} << 20);
  const cli::run_outcome out = cli::run_one(sc, true);
  const world_result& r = out.summary.result;
  CHECK(r.reason == sim::stop_reason::memory_budget);
  CHECK(end_name(r) == "memory_budget");
  CHECK(describe_end(r) == "MEMORY BUDGET spent with jobs open");
  // Stopped at the first check past the budget: within one check's worth of events.
  CHECK(r.footprint_peak > sc.world.memory_budget);
  CHECK(r.events % memory_check_every == 0);
  CHECK(r.events < 1'000'000);
  // What ran is all there, for the timeline and the files.
  REQUIRE_FALSE(out.records.empty());
  CHECK(out.records.back().time <= r.now);
  CHECK_FALSE(out.timeline.empty());
  CHECK(out.summary.attempts.size() == out.summary.attempts_total);
  const auto every_job_ends = std::find_if(out.summary.verdicts.begin(), out.summary.verdicts.end(),
                                           [](const verdict& v) { return v.name == "every_job_ends"; });
  REQUIRE(every_job_ends != out.summary.verdicts.end());
  CHECK_FALSE(every_job_ends->held);
  CHECK(every_job_ends->detail.find("memory_budget") != std::string::npos);
}

TEST_CASE("the memory budget counts what the world holds, and stopping for it is deterministic", "[bounded]") {
  const scenario sc = runaway_with_memory_budget(std::uint64_t{4} << 20);
  // Keeping every event grows the world by at least the events' own size.
  world kept_world([&] {
    world_config c = sc.world;
    c.memory_budget = 0;
    c.event_budget = 100'000;
    return c;
  }());
  kept_world.run();
  CHECK(kept_world.held_bytes() >= kept_world.events().events().size() * sizeof(ev::event));
  // Twice the same stop, at the same event, with the same digest.
  const cli::run_outcome b = cli::run_one(sc, true);
  CHECK(b.summary.result.reason == sim::stop_reason::memory_budget);
  const cli::run_outcome c = cli::run_one(sc, true);
  CHECK(c.summary.result.events == b.summary.result.events);
  CHECK(c.summary.result.trace_digest == b.summary.result.trace_digest);
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
