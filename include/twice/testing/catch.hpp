#pragma once
// Catch2 helpers for a test of your own: load a scenario file (its errors,
// located, fail the test), run it with every invariant, and require a
// verdict, printing its detail and evidence when it is not what you asked:
//
//   TEST_CASE("a grant survives a crash after the write") {
//     const twice::checked_result run = twice::testing::run_scenario("points_fixed.toml");
//     TWICE_REQUIRE_HELD(run, "no_points_twice");
//   }
//
// Catch2 v2 (<catch2/catch.hpp>) or v3. For properties over any fault, see
// testing/faults.hpp.

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <string>
#include <string_view>

#include <twice/checks/checked_run.hpp>
#include <twice/scenario/scenario.hpp>

namespace twice::testing {

// The scenario's world; a file that does not load fails the test with each error.
inline world_config load_world(const std::string& path) {
  load_result loaded = load_scenario_file(path);
  for (const scenario_error& e : loaded.errors) UNSCOPED_INFO(e.to_string());
  REQUIRE(loaded.ok());
  return std::move(loaded.value->world);
}

// The scenario run once with every invariant, the program's own included.
inline checked_result run_scenario(const std::string& path) { return run_with_checkers(load_world(path)); }

// The verdict as a test failure prints it: name, word, detail and evidence.
inline std::string describe_verdict(const verdict& v) {
  std::string out = v.name + " " + std::string(verdict_word(v)) + ": " + v.detail;
  for (const std::string& line : v.evidence) out += "\n  " + line;
  return out;
}

inline const verdict* find_verdict(const checked_result& run, std::string_view name) {
  for (const verdict& v : run.verdicts)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace twice::testing

// Require the invariant `name` held (or was violated) in `run`.
#define TWICE_REQUIRE_VERDICT_(run, name, want_held)                                  \
  do {                                                                                \
    const ::twice::verdict* twice_v_ = ::twice::testing::find_verdict((run), (name)); \
    INFO("no verdict named " << (name));                                              \
    REQUIRE(twice_v_ != nullptr);                                                     \
    INFO(::twice::testing::describe_verdict(*twice_v_));                              \
    REQUIRE(twice_v_->held == (want_held));                                           \
  } while (false)
#define TWICE_REQUIRE_HELD(run, name) TWICE_REQUIRE_VERDICT_(run, name, true)
#define TWICE_REQUIRE_VIOLATED(run, name) TWICE_REQUIRE_VERDICT_(run, name, false)
