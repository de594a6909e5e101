// The world's progress hook only observes: a run watched every N events
// (down to every single one) ends the same way, at the same time, after the
// same events, with the same trace digest as a run nobody watches.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include <twice/scenario/scenario.hpp>
#include <twice/world/world.hpp>
#include "test_files.hpp"

using namespace twice;

namespace {

const std::filesystem::path source_dir = twice::test::repo_root();

world_config config_of(const std::filesystem::path& path) {
  load_result r = load_scenario_file(path.string());
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.ok());
  return r.value->world;
}

// The benchmarks' steady traffic, cut to a few hundred jobs.
world_config steady_traffic(int jobs) {
  std::string s = twice::test::read_text(source_dir / "bench/scenarios/steady_traffic.toml");
  const std::string count = "count = 10000";
  REQUIRE(s.find(count) != std::string::npos);
  s.replace(s.find(count), count.size(), "count = " + std::to_string(jobs));
  load_result r = load_scenario_text(s, "steady_traffic.toml");
  REQUIRE(r.ok());
  return r.value->world;
}

struct watched {
  world_result result;
  std::vector<world_progress> seen;
};

watched run(const world_config& config, std::uint64_t every) {
  world w(config);
  watched out;
  if (every > 0) w.on_progress(every, [&out](const world_progress& p) { out.seen.push_back(p); });
  out.result = w.run();
  return out;
}

// `alone`: the same configuration's run with no hook.
void check_same_run(const world_config& config, const watched& alone, std::uint64_t every) {
  INFO("every " << every << " events");
  const watched seen = run(config, every);
  CHECK(seen.result.trace_digest == alone.result.trace_digest);
  CHECK(seen.result.events == alone.result.events);
  CHECK(seen.result.reason == alone.result.reason);
  CHECK(seen.result.settle_reason == alone.result.settle_reason);
  CHECK(seen.result.all_jobs_ended == alone.result.all_jobs_ended);
  CHECK(seen.result.story_end == alone.result.story_end);
  CHECK(seen.result.now == alone.result.now);
  // The hook was called, in order, with what the run had done so far.
  CHECK(seen.seen.size() + 2 >= alone.result.events / every);
  for (std::size_t i = 0; i < seen.seen.size(); ++i) {
    const world_progress& p = seen.seen[i];
    CHECK(p.jobs_total == job_count(config));
    CHECK(p.jobs_ended <= p.jobs_total);
    CHECK(p.events <= alone.result.events);
    if (i > 0) {
      CHECK(p.events > seen.seen[i - 1].events);
      CHECK(p.now >= seen.seen[i - 1].now);
      // Only a redrive from the dead-letter queue reopens ended jobs.
      if (!config.dead_letter_redrive) CHECK(p.jobs_ended >= seen.seen[i - 1].jobs_ended);
    }
  }
}

// Watched every N events, for each N, against one run nobody watches.
void check_same_runs(const world_config& config, std::initializer_list<std::uint64_t> everies) {
  const watched alone = run(config, 0);
  for (const std::uint64_t every : everies) check_same_run(config, alone, every);
}

}  // namespace

TEST_CASE("a progress hook leaves every catalogue run as it was", "[world][progress]") {
  for (const auto& entry : std::filesystem::directory_iterator(source_dir / "scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path().string());
    const world_config config = config_of(entry.path());
    // Every event (the most a hook can intrude) and an odd period: each
    // scenario runs three times, which under the sanitizers is what counts.
    check_same_runs(config, {1, 7});
  }
}

TEST_CASE("a progress hook leaves a busy run as it was, and sees its jobs end", "[world][progress]") {
  const world_config config = steady_traffic(300);
  check_same_runs(config, {1, 3, 1000});
  const watched w = run(config, 1000);
  REQUIRE(w.seen.size() > 2);
  CHECK(w.seen.front().jobs_ended < w.seen.back().jobs_ended);
  CHECK(w.seen.back().jobs_total == 300);
}

TEST_CASE("a progress hook leaves a run stopped by a budget as it was", "[world][progress]") {
  world_config by_events = steady_traffic(50);
  by_events.event_budget = 1000;
  check_same_runs(by_events, {1, 7, 999, 1000, 1001});
  CHECK(run(by_events, 7).result.reason == sim::stop_reason::event_budget);

  world_config by_time = steady_traffic(50);
  by_time.time_limit = sim::duration::from_s(3);
  check_same_runs(by_time, {1, 7, 1000});
  CHECK(run(by_time, 7).result.reason == sim::stop_reason::time_limit);
}
