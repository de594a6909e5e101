// The kernel demo's digest is pinned: a change to the kernel's ordering, the
// random streams, the distributions or the trace format shows up here as a
// deliberate diff, not as a silent change of every story users rerun.

#include <catch2/catch.hpp>

#include "cli/kernel_demo.hpp"
#include <twice/sim/trace.hpp>

using twice::cli::run_kernel_story;

TEST_CASE("the kernel demo is deterministic and its digest is pinned", "[determinism]") {
  const auto first = run_kernel_story(1);
  const auto second = run_kernel_story(1);
  CHECK(first.digest == second.digest);
  CHECK(first.lines == second.lines);
  CHECK(twice::sim::format_digest(first.digest) == "d47409dd3ca674ac");
  CHECK(first.result.reason == twice::sim::stop_reason::quiescent);
  CHECK(first.result.events == 31);
}

TEST_CASE("another seed tells another story", "[determinism]") {
  CHECK(run_kernel_story(2).digest != run_kernel_story(1).digest);
}
