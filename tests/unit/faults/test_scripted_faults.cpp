// Scripted faults draw from one random stream per rule, named by the rule
// itself (src/faults/scripted_faults.hpp): adding, removing or reordering a
// rule never changes when another probabilistic rule fires.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <twice/sim/random.hpp>
#include <twice/world/world.hpp>

#include "faults/scripted_faults.hpp"

using namespace twice;
using sim::duration;

namespace {

point_fault chance_at(std::string point, std::string job, std::uint32_t ppm, point_action action) {
  point_fault f;
  f.point = std::move(point);
  f.job = std::move(job);
  f.action = action;
  f.probability_ppm = ppm;
  return f;
}

queue_fault duplicate_by_chance(std::uint32_t ppm) {
  return {.what = queue_fault::kind::duplicate_delivery, .job = "", .nth = 1, .probability_ppm = ppm};
}

// The rule under watch: job_1 crashes after a tool, half the time.
point_fault watched() { return chance_at("after_tool", "job_1", 500'000, point_action::crash); }

constexpr int rounds = 200;

// Drives a plan through `rounds` rounds, each an after_tool point of job_1,
// one of job_2 and a received message, and returns what job_1's point got.
std::vector<point_action> job_1_outcomes(std::vector<point_fault> points, std::vector<queue_fault> queue_rules) {
  scripted_faults plan(std::move(points), std::move(queue_rules), sim::random_root(7));
  std::vector<point_action> out;
  for (int i = 0; i < rounds; ++i) {
    const auto attempt = static_cast<std::uint32_t>(i + 1);
    out.push_back(plan.at_point({"worker/0", "job_1", attempt, "after_tool", 1, "refund"}));
    plan.at_point({"worker/1", "job_2", attempt, "after_tool", 1, "refund"});
    plan.duplicate_delivery(
        {.id = 1, .handle = 1, .body = "job_2", .receive_count = attempt, .sent_at = {}, .eta = {}});
  }
  return out;
}

// What a queue rule decides for job_2's receives under the same drive.
std::vector<bool> duplicate_outcomes(std::vector<point_fault> points, std::vector<queue_fault> queue_rules) {
  scripted_faults plan(std::move(points), std::move(queue_rules), sim::random_root(7));
  std::vector<bool> out;
  for (int i = 0; i < rounds; ++i) {
    const auto attempt = static_cast<std::uint32_t>(i + 1);
    plan.at_point({"worker/0", "job_1", attempt, "after_tool", 1, "refund"});
    plan.at_point({"worker/1", "job_2", attempt, "after_tool", 1, "refund"});
    out.push_back(plan.duplicate_delivery(
        {.id = 1, .handle = 1, .body = "job_2", .receive_count = attempt, .sent_at = {}, .eta = {}}));
  }
  return out;
}

std::vector<std::size_t> crash_positions(const std::vector<point_action>& outcomes) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < outcomes.size(); ++k)
    if (outcomes[k] == point_action::crash) out.push_back(k);
  return out;
}

}  // namespace

TEST_CASE("fault streams: a rule's draws do not depend on the other rules", "[faults]") {
  const std::vector<point_action> alone = job_1_outcomes({watched()}, {});
  const auto crashes = std::count(alone.begin(), alone.end(), point_action::crash);
  CHECK(crashes > rounds / 4);  // it is a coin, not a constant
  CHECK(crashes < 3 * rounds / 4);

  SECTION("another point rule, before or after it, that draws at other points") {
    const point_fault other = chance_at("after_tool", "job_2", 500'000, point_action::error);
    CHECK(job_1_outcomes({other, watched()}, {}) == alone);
    CHECK(job_1_outcomes({watched(), other}, {}) == alone);
  }

  SECTION("a rule after it at the same points draws there too, without shifting it") {
    // It fires only where the watched rule did not; the crashes stay put.
    const std::vector<point_action> both =
        job_1_outcomes({watched(), chance_at("after_tool", "", 300'000, point_action::error)}, {});
    CHECK(crash_positions(both) == crash_positions(alone));
    CHECK(std::count(both.begin(), both.end(), point_action::error) > 0);
  }

  SECTION("a rule before it at the same points wins when both fire, and never shifts it") {
    const std::vector<point_action> both =
        job_1_outcomes({chance_at("after_tool", "", 300'000, point_action::error), watched()}, {});
    int errors = 0;
    for (int i = 0; i < rounds; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (both[k] == point_action::error) {
        ++errors;  // the first rule fired; the watched one's draw is hidden
      } else {
        CHECK(both[k] == alone[k]);
      }
    }
    CHECK(errors > 0);
  }

  SECTION("a probabilistic queue rule") { CHECK(job_1_outcomes({watched()}, {duplicate_by_chance(500'000)}) == alone); }

  SECTION("an identical second rule draws from a stream of its own") {
    const std::vector<point_action> twice_over = job_1_outcomes({watched(), watched()}, {});
    CHECK(std::count(twice_over.begin(), twice_over.end(), point_action::crash) > crashes);
  }

  SECTION("its probability: a lower one fires at a subset of the same points") {
    point_fault rarer = watched();
    rarer.probability_ppm = 200'000;
    const std::vector<point_action> fewer = job_1_outcomes({rarer}, {});
    for (std::size_t k = 0; k < fewer.size(); ++k)
      if (fewer[k] == point_action::crash) CHECK(alone[k] == point_action::crash);
    CHECK(std::count(fewer.begin(), fewer.end(), point_action::crash) < crashes);
  }
}

TEST_CASE("fault streams: a queue rule's draws do not depend on the point rules", "[faults]") {
  const std::vector<bool> alone = duplicate_outcomes({}, {duplicate_by_chance(500'000)});
  CHECK(std::count(alone.begin(), alone.end(), true) > rounds / 4);
  CHECK(duplicate_outcomes({watched()}, {duplicate_by_chance(500'000)}) == alone);
  CHECK(duplicate_outcomes(
            {}, {duplicate_by_chance(500'000),
                 {.what = queue_fault::kind::lose_delete, .job = "", .nth = 1, .probability_ppm = 500'000}}) == alone);
}

TEST_CASE("fault streams are named by the rule, not by its position", "[faults]") {
  const point_fault a = watched();
  const point_fault b = chance_at("before_ack", "", 100'000, point_action::error);
  const std::vector<std::string> alone = point_fault_stream_names({a});
  const std::vector<std::string> with_b = point_fault_stream_names({b, a, a});
  CHECK(alone == std::vector<std::string>{
                     "fault/point=10:after_tool/tool=0:/step=0/job=5:job_1/attempt=any/worker=0:/action=crash#0"});
  CHECK(with_b[1] == alone[0]);
  CHECK(with_b[2] == "fault/point=10:after_tool/tool=0:/step=0/job=5:job_1/attempt=any/worker=0:/action=crash#1");
  CHECK(queue_fault_stream_names({duplicate_by_chance(1)}) ==
        std::vector<std::string>{"queue_fault/kind=duplicate_delivery/job=0:/nth=1#0"});
}

namespace {

// Three jobs on fixed latencies and unjittered backoff, so nothing random
// happens but the faults; job_1 errors after a tool half the time.
world_config three_jobs() {
  world_config c;
  c.seed = 11;
  c.workers = 3;
  c.payments.latency = latency_model::fixed(duration::from_ms(300));
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  c.runtime.retry.jitter = jitter_kind::none;
  c.runtime.retry.maximum_attempts = 0;
  for (int i = 1; i <= 3; ++i) c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100));
  c.point_faults.push_back(chance_at("after_tool", "job_1", 500'000, point_action::error));
  return c;
}

// When job_1's injected errors happened, in microseconds.
std::vector<std::int64_t> job_1_error_times(const world_config& c) {
  world w(c);
  w.run();
  std::vector<std::int64_t> out;
  for (const sim::trace_record& r : w.events().records())
    if (r.kind == "fault_error" && r.get_string("job") == "job_1") out.push_back(r.time.us());
  return out;
}

}  // namespace

TEST_CASE("fault streams in a world: rules for other jobs leave job_1's faults where they were", "[faults][world]") {
  const std::vector<std::int64_t> alone = job_1_error_times(three_jobs());
  REQUIRE(alone.size() >= 2);

  world_config more = three_jobs();
  more.point_faults.insert(more.point_faults.begin(), chance_at("after_tool", "job_2", 500'000, point_action::error));
  more.point_faults.push_back(chance_at("before_checkpoint", "job_3", 500'000, point_action::error));
  more.point_faults.push_back(chance_at("after_tool", "job_3", 500'000, point_action::error));
  CHECK(job_1_error_times(more) == alone);
}
