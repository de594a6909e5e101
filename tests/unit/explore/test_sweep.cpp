// `twice sweep` as a library (explore/sweep.hpp): the --vary argument, the
// [sweep] table, the grid's cells and seeds, the figures per cell, and the
// same result on any number of threads.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "explore/sweep.hpp"
#include <twice/scenario/scenario.hpp>
#include "sweep_support.hpp"

using namespace twice;
using namespace twice::explore;
using twice::scenario_detail::doc_node;

using namespace twice::sweep_test;

namespace {

std::string problem_of(std::string_view text) {
  std::string problem;
  CHECK_FALSE(parse_vary_argument(text, problem).has_value());
  return problem;
}

}  // namespace

TEST_CASE("--vary KEY=V1,V2 reads each value as the scenario file would write it", "[sweep]") {
  const sweep_axis a = axis("retry.jitter=none,full");
  CHECK(a.path == "retry.jitter");
  REQUIRE(a.values.size() == 2);
  CHECK(a.values[0].type == doc_node::kind::string);
  CHECK(value_text(a.values[1]) == "full");
  const sweep_axis n = axis("workers.count=1,10");
  CHECK(n.values[1].type == doc_node::kind::integer);
  CHECK(n.values[1].integer == 10);
  CHECK(axis("vendor.error_rates.unavailable=0.25").values[0].type == doc_node::kind::floating);
  CHECK(axis("discipline.fencing=true").values[0].type == doc_node::kind::boolean);
  CHECK(axis("runtime.visibility_timeout=30s,\"1m\"").values[1].text == "1m");
  CHECK(axis("crash[0].at=1s").path == "crash[0].at");
  CHECK(problem_of("retry.jitter") == "expected KEY=V1,V2,... like retry.jitter=none,full");
  CHECK(problem_of("retry jitter=full") == "`retry jitter` is not a key path like \"retry.jitter\" or \"crash[0].at\"");
  CHECK(problem_of("retry.jitter=full,,none") == "an empty value in `retry.jitter=full,,none`");
  CHECK(problem_of("workers.count=2,2") == "the value 2 is given twice");
}

TEST_CASE("[sweep] holds the default grid; a bad one is a located error", "[sweep][scenario]") {
  const std::string job = "[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 1\n";
  const load_result ok = load_scenario_text(
      job + "[sweep]\nseeds = 4\n[sweep.vary]\n\"retry.jitter\" = [\"none\", \"full\"]\n\"workers.count\" = [1, 3]\n",
      "t.toml");
  REQUIRE(ok.ok());
  const sweep_spec& s = ok.value->sweep;
  CHECK(s.present);
  CHECK(s.seeds == 4);
  REQUIRE(s.vary.size() == 2);
  CHECK(s.vary[0].path == "retry.jitter");
  CHECK(s.vary[1].values[1].integer == 3);
  CHECK(s.vary[0].line == 8);
  CHECK_FALSE(load_scenario_text(job, "t.toml").value->sweep.present);
  // The file's order, not the parser's (which sorts a table's keys).
  const load_result reordered =
      load_scenario_text(job + "[sweep.vary]\n\"workers.count\" = [1]\n\"retry.jitter\" = [\"full\"]\n", "t.toml");
  REQUIRE(reordered.ok());
  CHECK(reordered.value->sweep.vary[0].path == "workers.count");

  const auto error_of = [&](const std::string& sweep) {
    const load_result r = load_scenario_text(job + sweep, "t.toml");
    REQUIRE_FALSE(r.ok());
    return r.errors.front().to_string();
  };
  CHECK(error_of("[sweep]\nseeds = 0\n") == "t.toml:6:9: sweep.seeds: must be between 1 and 10000, found 0");
  CHECK(error_of("[sweep.vary]\n\"retry.jitter\" = \"full\"\n") ==
        "t.toml:6:18: sweep.vary.retry.jitter: expected an array of the values to run, like [\"none\", \"full\"] or "
        "[10, 50, 200]");
  CHECK(error_of("[sweep.vary]\n\"workers.count\" = [1, 1]\n") ==
        "t.toml:6:23: sweep.vary.workers.count[1]: the value is given twice");
  CHECK(error_of("[sweep.vary]\n\"workers.count\" = [[1]]\n") ==
        "t.toml:6:20: sweep.vary.workers.count[0]: expected a string, a number or a boolean, as the key takes it");
  // An axis of cases.
  const load_result cases = load_scenario_text(
      job +
          "[sweep.vary]\nstrategy = [{ name = \"none\", \"retry.maximum_attempts\" = 1 },\n"
          "  { name = \"capped\", \"retry.maximum_attempts\" = 4, \"retry.maximum_interval\" = \"5s\" }]\n",
      "t.toml");
  REQUIRE(cases.ok());
  REQUIRE(cases.value->sweep.vary.size() == 1);
  CHECK(cases.value->sweep.vary[0].path == "strategy");
  CHECK(value_text(cases.value->sweep.vary[0].values[1]) == "capped");
  CHECK(error_of("[sweep.vary]\nstrategy = [{ \"retry.maximum_attempts\" = 1 }]\n") ==
        "t.toml:6:13: sweep.vary.strategy[0].name: a case needs a name, a string");
  CHECK(error_of("[sweep.vary]\nstrategy = [{ name = \"a\", \"retry.maximum_attempts\" = 1 }, 4]\n") ==
        "t.toml:6:59: sweep.vary.strategy[1]: expected a case like { name = \"bucket\", \"retry.maximum_attempts\" = "
        "4 }, as the first value of this axis is");
  CHECK(error_of("[sweep.vary]\nstrategy = [{ name = \"a\" }]\n") ==
        "t.toml:6:13: sweep.vary.strategy[0]: the case a sets no key");
  CHECK(error_of("[sweep.vary]\nseed = [1, 2]\n") ==
        "t.toml:6:1: sweep.vary.seed: a sweep varies the world; the seeds are [sweep] seeds, and [sweep] and "
        "[explore] are not part of a run");
}

TEST_CASE("a value the scenario cannot take is reported where it is written, with the loader's reason", "[sweep]") {
  const std::string text = catalogue("double_refund.toml");
  sweep_prepared p = prepare_sweep_text(text, "s.toml", {axis("retry.jitter=full,fulll")}, std::nullopt);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].to_string() ==
        "s.toml: --vary retry.jitter: with retry.jitter = fulll, the scenario does not load: retry.jitter: expected "
        "\"none\", \"full\", \"equal\", \"decorrelated\" or \"sidekiq\", found string \"fulll\"; did you mean `full`?");
  p = prepare_sweep_text(text + "[sweep.vary]\n\"workers.count\" = [2, 0]\n", "s.toml", {}, std::nullopt);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line != 0);
  CHECK(p.errors[0].key == "sweep.vary.workers.count");
  CHECK_THAT(p.errors[0].message, Catch::Contains("with workers.count = 0, the scenario does not load"));
  p = prepare_sweep_text(text, "s.toml", {}, std::nullopt);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].message ==
        "nothing to sweep: give --vary KEY=V1,V2,..., --seeds N (the file as written under N seeds) or a [sweep] table "
        "in the file");
}

TEST_CASE("a sweep with no key varied is one cell: the file as written under its seeds", "[sweep]") {
  const std::string text = catalogue("deploy_rolling_kill.toml");
  const sweep_input in = prepared_ok(text, {}, 3);
  const sweep_result r = run_sweep(in, 2);
  REQUIRE_FALSE(r.bad_cell);
  CHECK(r.axes.empty());
  REQUIRE(r.cells.size() == 1);
  CHECK(r.cells[0].values.empty());
  CHECK(r.cells[0].runs == 3);
  CHECK(r.world_seeds.size() == 3);
  // A [sweep] table with seeds and no vary says the same.
  const sweep_prepared table = prepare_sweep_text(text + "[sweep]\nseeds = 4\n", "s.toml", {}, std::nullopt);
  REQUIRE(table.errors.empty());
  CHECK(run_sweep(*table.input, 2).cells.at(0).runs == 4);
}

TEST_CASE("a sweep's progress counts its runs and changes nothing", "[sweep]") {
  const sweep_input in = prepared_ok(catalogue("double_refund.toml"), {axis("workers.count=1,2,3")}, 2);
  std::vector<explore::sweep_progress> seen;
  const sweep_result watched = run_sweep(in, 2, [&](const explore::sweep_progress& p) { seen.push_back(p); });
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back().done == 6);
  CHECK(seen.back().total == 6);
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].done >= seen[i - 1].done);
  const sweep_result plain = run_sweep(in, 2);
  REQUIRE(plain.cells.size() == watched.cells.size());
  for (std::size_t c = 0; c < plain.cells.size(); ++c) {
    CHECK(plain.cells[c].makespan_us.mean == watched.cells[c].makespan_us.mean);
    CHECK(plain.cells[c].violated == watched.cells[c].violated);
  }
}

TEST_CASE("a sweep runs every cell under the same seeds and counts what broke", "[sweep]") {
  const sweep_input in =
      prepared_ok(catalogue("double_refund.toml"), {axis("discipline.key=none,stable"), axis("workers.count=1,2")}, 3);
  const sweep_result r = run_sweep(in, 1);
  REQUIRE_FALSE(r.bad_cell);
  REQUIRE(r.cells.size() == 4);
  REQUIRE(r.world_seeds.size() == 3);
  CHECK(r.world_seeds[0] == 17);  // the file's seed: a one-seed cell is `twice run`
  CHECK(r.world_seeds[1] != r.world_seeds[2]);
  CHECK(r.cells[0].values == std::vector<std::string>{"none", "1"});
  CHECK(r.cells[1].values == std::vector<std::string>{"none", "2"});  // the last axis varies fastest
  CHECK(r.cells[3].values == std::vector<std::string>{"stable", "2"});
  for (const sweep_cell& c : r.cells) {
    CHECK(c.runs == 3);
    CHECK(c.runs_all_ended == 3);
    CHECK(c.makespan_us.n == 3);
    CHECK(c.job_time_us.n == 3);  // one job per run
    CHECK(c.retries == 1.0);      // the kill before the ack: every run delivers job_17 twice
  }
  // The incident: without the key, every seed pays twice.
  CHECK(r.cells[0].violated ==
        std::vector<std::pair<std::string, std::size_t>>{{"no_double_payment", 3}, {"ledgers_agree", 3}});
  CHECK(r.cells[3].violated.empty());
  // The story ends 30.416 s in without the key, when the second refund is done (as `twice run` says).
  CHECK(r.cells[0].makespan_us.p50 == 30'416'000);
  CHECK(r.cells[0].makespan_us.ci95 == 0.0);  // the same every seed: the kill is scripted
}

TEST_CASE("a sweep gives the same cells on any number of threads", "[sweep]") {
  const sweep_input in = prepared_ok(catalogue("retry_storm.toml"), {axis("retry.jitter=none,full")}, 3);
  const sweep_result one = run_sweep(in, 1);
  const sweep_result three = run_sweep(in, 3);
  REQUIRE(one.cells.size() == three.cells.size());
  for (std::size_t i = 0; i < one.cells.size(); ++i) {
    const sweep_cell& a = one.cells[i];
    const sweep_cell& b = three.cells[i];
    CHECK(a.makespan_us.mean == b.makespan_us.mean);
    CHECK(a.makespan_us.ci95 == b.makespan_us.ci95);
    CHECK(a.job_time_us.p99 == b.job_time_us.p99);
    CHECK(a.calls_per_job_milli.mean == b.calls_per_job_milli.mean);
    CHECK(a.calls_per_job_by_tool == b.calls_per_job_by_tool);
    CHECK(a.retries == b.retries);
    CHECK(a.violated == b.violated);
  }
  // Full jitter spreads the retries: the seeds differ, so the interval is not zero.
  CHECK(one.cells[1].makespan_us.ci95 > 0.0);
}

TEST_CASE("stat_of: nearest-rank percentiles and Student's t interval", "[sweep]") {
  const sweep_stat s = stat_of({5, 1, 4, 2, 3});
  CHECK(s.n == 5);
  CHECK(s.mean == 3.0);
  CHECK(s.p50 == 3);
  CHECK(s.p99 == 5);
  CHECK(s.max == 5);
  // sd = sqrt(2.5); t(4) = 2.776: 2.776 * 1.5811 / 2.2361 = 1.963
  CHECK(s.ci95 == Approx(1.963).epsilon(0.001));
  CHECK(stat_of({7}).ci95 == 0.0);
  CHECK(stat_of({}).n == 0);
}

namespace {
const sweep_check& check_of(const sweep_cell& c, std::string_view name) {
  for (const sweep_check& k : c.checks)
    if (k.name == name) return k;
  FAIL("no check " << name);
  return c.checks.front();
}
}  // namespace

TEST_CASE("a sweep holds every seed's verdicts against the cell's [expect]", "[sweep][junit]") {
  // double_refund.toml expects no_double_payment and ledgers_agree violated:
  // with the stable key they hold, so each seed fails the expectation.
  const sweep_input in = prepared_ok(catalogue("double_refund.toml"), {axis("discipline.key=none,stable")}, 3);
  const sweep_result r = run_sweep(in, 2);
  REQUIRE(r.cells.size() == 2);
  for (const sweep_cell& c : r.cells) {
    REQUIRE(c.checks.size() == r.cells.front().checks.size());
    for (const sweep_check& k : c.checks) {
      CHECK_FALSE(k.ignored);
      std::size_t violated = 0, unjudged = 0;
      for (const auto& [name, runs] : c.violated) violated += name == k.name ? runs : 0;
      for (const auto& [name, runs] : c.unjudged) unjudged += name == k.name ? runs : 0;
      const bool expected = k.name == "no_double_payment" || k.name == "ledgers_agree";
      CHECK(k.failed.size() == (expected ? c.runs - violated : violated + unjudged));
    }
  }
  CHECK(check_of(r.cells[0], "no_double_payment").failed.empty());
  const sweep_check& held = check_of(r.cells[1], "no_double_payment");
  REQUIRE(held.failed.size() == 3);
  CHECK(held.failed[2].first == 2);  // the seed's k, in seed order
  CHECK(held.failed[0].second.starts_with("expected to be violated, but held: "));

  // [expect] ignore: skipped, never failed.
  const sweep_result ignored =
      run_sweep(prepared_ok(catalogue("double_refund.toml") +
                                "ignore = [{ invariant = \"every_job_ends\", reason = \"not here\" }]\n",
                            {axis("workers.count=1")}, 1),
                1);
  CHECK(check_of(ignored.cells[0], "every_job_ends").ignored == std::optional<std::string>("not here"));
}

TEST_CASE("a sweep cell's --vary arguments give that cell alone, read back as written", "[sweep][junit]") {
  // A string that reads as a number is quoted; a float keeps its point.
  const sweep_result r =
      run_sweep(prepared_ok(catalogue("double_refund.toml"),
                            {axis("name=\"10\",ten"), axis("vendor.error_rates.unavailable=0.0")}, 1),
                1);
  REQUIRE(r.cells.size() == 2);
  CHECK(r.cells[0].vary_arguments == std::vector<std::string>{"name=\"10\"", "vendor.error_rates.unavailable=0.0"});
  CHECK(r.cells[1].vary_arguments == std::vector<std::string>{"name=ten", "vendor.error_rates.unavailable=0.0"});
  CHECK(axis(r.cells[0].vary_arguments[0]).values[0].type == doc_node::kind::string);
  CHECK(axis(r.cells[0].vary_arguments[1]).values[0].type == doc_node::kind::floating);

  // A case: the keys it sets, in its order.
  const sweep_result cases = run_sweep(
      prepared_ok(catalogue("double_refund.toml") +
                      "[sweep.vary]\nstrategy = [{ name = \"once\", \"retry.maximum_attempts\" = 1 },\n"
                      "  { name = \"capped\", \"retry.maximum_attempts\" = 4, \"retry.maximum_interval\" = \"5s\" }]\n",
                  {}, 1),
      1);
  REQUIRE(cases.cells.size() == 2);
  CHECK(cases.cells[0].vary_arguments == std::vector<std::string>{"retry.maximum_attempts=1"});
  CHECK(cases.cells[1].vary_arguments ==
        std::vector<std::string>{"retry.maximum_attempts=4", "retry.maximum_interval=5s"});
}
