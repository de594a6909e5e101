// A user's own tests of their handler under twice, with Catch2 and
// rapidcheck (twice::testing): the scenario file's verdicts, and a
// property over any crash, handler error, duplicate delivery or lost ack.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include <twice/testing/catch.hpp>
#include <twice/testing/faults.hpp>

#include "points.hpp"

namespace {
const bool registered = (points::register_all(), true);
const std::string dir = POINTS_DIR;
}  // namespace

TEST_CASE("the scenario file shows the double grant") {
  const twice::checked_result run = twice::testing::run_scenario(dir + "/points.toml");
  TWICE_REQUIRE_VIOLATED(run, "no_points_twice");
  TWICE_REQUIRE_HELD(run, "every_job_ends");
}

TEST_CASE("with the stable key, no fault grants points twice") {
  const twice::world_config base = twice::testing::load_world(dir + "/points_fixed.toml");
  rc::prop("any crash, error, duplicate or lost ack", [&] {
    const twice::testing::fault_plan plan = *twice::testing::gen_fault_plan(base);
    const twice::checked_result run = twice::run_with_checkers(twice::testing::with_faults(base, plan));
    RC_ASSERT(twice::testing::held(run, "no_points_twice"));
  });
}

TEST_CASE("without a key, the property finds a fault that grants twice") {
  twice::world_config base = twice::testing::load_world(dir + "/points_fixed.toml");
  base.runtime.rules.key = twice::key_mode::none;
  const bool held_everywhere = rc::check("no key", [&] {
    const twice::testing::fault_plan plan = *twice::testing::gen_fault_plan(base);
    const twice::checked_result run = twice::run_with_checkers(twice::testing::with_faults(base, plan));
    RC_ASSERT(twice::testing::held(run, "no_points_twice"));
  });
  REQUIRE_FALSE(held_everywhere);
}
