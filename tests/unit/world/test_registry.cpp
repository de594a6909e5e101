// Handlers, tools and invariants of a program's own, registered by name
// (world/registry.hpp, checks/invariant.hpp): a scenario file names them,
// a checked run evaluates the invariant beside the built-in ones, and the
// loader refuses a name nobody registered, with its file and line.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <twice/checks/checked_run.hpp>
#include <twice/explore/explore.hpp>
#include <twice/lint/lint.hpp>
#include <twice/checks/invariant.hpp>
#include <twice/scenario/scenario.hpp>
#include <twice/world/registry.hpp>

#include "points.hpp"  // examples/points/
#include "test_files.hpp"

using namespace twice;

namespace {

// Registers the points example for one test, and takes it back after: the
// registry is the process's, and the other tests expect the 17 built-in
// invariants alone.
struct points_registered {
  points_registered() { points::register_all(); }
  ~points_registered() {
    registry::remove_handler("grant_points");
    registry::remove_tool("points_api");
    registry::remove_invariant("no_points_twice");
  }
};

// The example a program of a user's own runs (examples/points):
// Alice's two grants, the pod dying right after the second. `key` replaces
// its discipline's, `expect` its [expect] table.
std::string points_scenario(std::string_view key, std::string_view expect) {
  std::string s = test::read_text(test::repo_root() / "examples" / "points" / "points.toml");
  REQUIRE(s.find("key = \"none\"") != std::string::npos);
  s.replace(s.find("key = \"none\""), 12, "key = \"" + std::string(key) + "\"");
  s.resize(s.find("[expect]\n") + 9);
  return s + std::string(expect) + "\n";
}

const verdict& verdict_named(const checked_result& run, std::string_view name) {
  const auto it =
      std::find_if(run.verdicts.begin(), run.verdicts.end(), [&](const verdict& v) { return v.name == name; });
  REQUIRE(it != run.verdicts.end());
  return *it;
}

}  // namespace

TEST_CASE("a scenario names a registered handler, tool and invariant", "[registry]") {
  points_registered registered;
  REQUIRE(invariant_names().size() == 18);
  CHECK(invariant_names().back() == "no_points_twice");

  SECTION("with stable keys the replayed grant is absorbed") {
    load_result loaded = load_scenario_text(points_scenario("stable", R"(hold = ["no_points_twice"])"), "points.toml");
    INFO((loaded.ok() ? std::string() : loaded.errors.front().to_string()));
    REQUIRE(loaded.ok());
    const checked_result run = run_with_checkers(loaded.value->world);
    REQUIRE(run.verdicts.size() == 18);
    CHECK(run.verdicts.back().name == "no_points_twice");
    CHECK(verdict_named(run, "no_points_twice").held);
    CHECK(verdict_named(run, "every_job_ends").held);
  }
  SECTION("without keys the user's invariant catches the second grant") {
    load_result loaded =
        load_scenario_text(points_scenario("none", R"(violated = ["no_points_twice"])"), "points.toml");
    REQUIRE(loaded.ok());
    const checked_result run = run_with_checkers(loaded.value->world);
    const verdict& v = verdict_named(run, "no_points_twice");
    CHECK_FALSE(v.held);
    CHECK(v.detail == "1 step(s) granted points twice");
    REQUIRE(v.evidence.size() == 1);
    CHECK(v.evidence.front().find("tool_call") != std::string::npos);
    CHECK(v.evidence.front().find("job=\"job_42\" attempt=1 step=2 tool=\"points\"") != std::string::npos);
    CHECK(v.first_violation.has_value());
  }
}

TEST_CASE("a name nobody registered is a located error", "[registry]") {
  SECTION("nothing registered") {
    const load_result loaded = load_scenario_text(points_scenario("stable", ""), "points.toml");
    REQUIRE_FALSE(loaded.ok());
    std::string all;
    for (const scenario_error& e : loaded.errors) all += e.to_string() + "\n";
    CHECK_THAT(all, Catch::Contains("points.toml:18:18: tools.points.implementation: no tool is registered as "
                                    "\"points_api\"; this program registers none"));
    CHECK_THAT(all, Catch::Contains("points.toml:22:11: job_type[0].handler: no handler is registered as "
                                    "\"grant_points\"; this program registers none"));
  }
  SECTION("a near miss") {
    points_registered registered;
    std::string text = points_scenario("stable", R"(violated = ["no_point_twice"])");
    text.replace(text.find("\"grant_points\""), 14, "\"grant_point\"");
    const load_result loaded = load_scenario_text(text, "points.toml");
    REQUIRE_FALSE(loaded.ok());
    std::string all;
    for (const scenario_error& e : loaded.errors) all += e.to_string() + "\n";
    CHECK_THAT(all, Catch::Contains("no handler is registered as \"grant_point\"; did you mean `grant_points`?"));
    CHECK_THAT(all, Catch::Contains("unknown invariant \"no_point_twice\"; did you mean `no_points_twice`?"));
  }
}

TEST_CASE("the registry refuses a name taken, an empty one and a built-in invariant's", "[registry]") {
  points_registered registered;
  CHECK_THROWS_AS(
      registry::add_handler("grant_points", [] { return std::make_unique<points::grant_points_handler>(); }),
      std::invalid_argument);
  CHECK_THROWS_AS(registry::add_tool("", [](const tool_setup&) { return std::make_unique<points::points_api>(); }),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      registry::add_invariant("no_double_payment",
                              [](const world_config&) { return std::make_unique<points::no_points_twice>(); }),
      std::invalid_argument);
  CHECK_THROWS_AS(registry::add_tool("other", nullptr), std::invalid_argument);
  CHECK(registry::handler_names() == std::vector<std::string>{"grant_points"});
  // A config built by hand that names an unregistered tool fails as the world is built.
  world_config config;
  config.registered_tools.push_back({"points", "nobody"});
  CHECK_THROWS_AS(world(config), std::invalid_argument);
}

TEST_CASE("explore finds, shrinks and reproduces a registered invariant's violation", "[registry][explore]") {
  points_registered registered;
  // No key and no expectation: every run where swarm keeps the crash grants twice.
  const explore::prepared p = explore::prepare_text(points_scenario("none", ""), "points.toml");
  REQUIRE(p.errors.empty());
  REQUIRE(p.input);
  explore::explore_options options;
  options.runs = 16;
  options.jobs = 2;
  const explore::explore_result r = explore::run_explore(*p.input, options);
  REQUIRE_FALSE(r.findings.empty());
  const explore::finding& f = r.findings.front();
  CHECK(f.invariant == "no_points_twice");
  CHECK(f.repro_checked);  // the repro loads back, names the registered code, and violates it again
  CHECK(f.repro_text.find("implementation = \"points_api\"") != std::string::npos);
  CHECK(f.repro_text.find("handler = \"grant_points\"") != std::string::npos);
  const auto counted = std::find_if(r.violations.begin(), r.violations.end(),
                                    [](const auto& v) { return v.first == "no_points_twice"; });
  REQUIRE(counted != r.violations.end());
  CHECK(counted->second > 0);
}

// The built-in invariants are the registry's too: made by name, one alone
// observes a run and gives the verdict a checked run gives under that name,
// as a program's own does.
TEST_CASE("a built-in invariant is made through the registry the same way a program's own is", "[registry]") {
  points_registered registered;
  struct case_file {
    std::string text;
    std::string name;
  };
  std::vector<case_file> files{{points_scenario("none", ""), "points.toml"}};
  for (const char* name : {"double_refund.toml", "attempts_reset.toml", "backoff_no_cap.toml", "deploy_drain.toml"})
    files.push_back({test::catalogue(name), name});
  std::size_t violated = 0;
  world_config loaded_config;
  for (const case_file& file : files) {
    const load_result loaded = load_scenario_text(file.text, file.name);
    REQUIRE(loaded.ok());
    loaded_config = loaded.value->world;
    const checked_result all = run_with_checkers(loaded.value->world);
    REQUIRE(all.verdicts.size() == invariant_names().size());
    for (const std::string_view name : invariant_names()) {
      INFO(file.name << ": " << name);
      world w(loaded.value->world);
      std::unique_ptr<invariant> alone = registry::make_invariant(name, w.config());
      REQUIRE(alone != nullptr);
      w.events().add_observer(alone.get());
      const world_result result = w.run();
      verdict v = alone->finish(w, result);
      w.events().remove_observer(alone.get());
      v.name = std::string(name);
      const verdict& in_run = verdict_named(all, name);
      CHECK(v.held == in_run.held);
      CHECK(v.judged == in_run.judged);
      CHECK(v.detail == in_run.detail);
      CHECK(v.evidence == in_run.evidence);
      CHECK(v.first_violation == in_run.first_violation);
      violated += !v.held;
    }
  }
  CHECK(violated >= 5);  // the files break several invariants, the points one too
  CHECK(registry::make_invariant("no_such_invariant", loaded_config) == nullptr);
  CHECK(registry::is_builtin_invariant("no_double_payment"));
  CHECK_FALSE(registry::is_builtin_invariant("no_points_twice"));
  CHECK_FALSE(registry::remove_invariant("no_double_payment"));  // built in: not removed
  CHECK(invariant_names().front() == "one_ledger_row_per_key");
}

TEST_CASE("lint judges a registered tool's steps by what the tool says of itself", "[registry][lint]") {
  points_registered registered;
  const auto warnings_of = [](std::string_view key) {
    load_result loaded = load_scenario_text(points_scenario(key, R"(violated = ["no_points_twice"])"), "points.toml");
    REQUIRE(loaded.ok());
    std::string all;
    for (const lint_warning& w : lint(loaded.value->world)) all += w.rule + ": " + w.why + "\n";
    return all;
  };
  // The points API writes and honours keys (points.hpp): no key is the
  // double refund's mistake, on the user's own tool.
  const std::string keyless = warnings_of("none");
  CHECK_THAT(keyless, Catch::Contains("write_without_key: job_42 step 1 calls the points tool, a write whose far "
                                      "side honours idempotency keys, with no key at all"));
  CHECK_THAT(keyless, Catch::Contains("the far side acts again (a registered tool: your own invariants see it)"));
  CHECK_THAT(warnings_of("stable"), !Catch::Contains("write_without_key"));
  CHECK_THAT(warnings_of("per_attempt"), Catch::Contains("key_per_attempt: a new key is minted every attempt"));
}
