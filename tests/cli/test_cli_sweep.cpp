// `twice sweep` run as a user runs it: the table, --json (the same on any
// --jobs), --csv, and bad input (exit 2, a message naming what is wrong).

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_twice.hpp"
#include "scenario_text.hpp"
#include "test_files.hpp"

namespace {
using twice::test::read_text;
using twice::test::run;

const std::string double_refund = std::string(TWICE_SOURCE_DIR) + "/scenarios/double_refund.toml";
}  // namespace

TEST_CASE("twice sweep compares the cells of a grid", "[cli][sweep]") {
  const auto r = run("sweep " + double_refund + " --vary discipline.key=none,stable --seeds 2 --jobs 2");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("grid       discipline.key: 2 cells, 2 seeds each (root seed 17), 4 runs"));
  CHECK_THAT(r.out, Catch::Contains("no_double_payment 2/2, ledgers_agree 2/2"));

  const auto one = run("sweep " + double_refund + " --vary discipline.key=none,stable --seeds 2 --jobs 1 --json");
  const auto two = run("sweep " + double_refund + " --vary discipline.key=none,stable --seeds 2 --jobs 2 --json");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == two.out);  // no wall clock in the JSON, and any --jobs gives the same cells
  const nlohmann::json j = nlohmann::json::parse(one.out);
  CHECK(j["root_seed"] == 17);
  CHECK(j["seeds"].size() == 2);
  CHECK(j["axes"][0]["key"] == "discipline.key");
  REQUIRE(j["cells"].size() == 2);
  CHECK(j["cells"][0]["values"]["discipline.key"] == "none");
  CHECK(j["cells"][0]["violated_runs"]["no_double_payment"] == 2);
  CHECK(j["cells"][1]["violated_runs"].empty());
  CHECK(j["cells"][1]["makespan_s"]["p50"] == 30.026);
}

TEST_CASE("twice sweep counts a verdict the budget left unjudged apart from held and violated", "[cli][sweep]") {
  // twice::test::dead_letter_job: cut at 1 h, no_message_lost cannot be judged; at
  // 48 h retention deletes the letter and it is violated.
  const auto dir = twice::test::empty_temp_dir("twice-cli-sweep-unjudged");
  const std::string file = (dir / "dead_letter.toml").string();
  std::ofstream(file) << twice::test::dead_letter_job("1h");
  const auto r = run("sweep " + file + " --vary budget.time_limit=1h,48h --json");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["cells"].size() == 2);
  CHECK(j["cells"][0]["unjudged_runs"]["no_message_lost"] == 1);
  CHECK_FALSE(j["cells"][0]["violated_runs"].contains("no_message_lost"));
  CHECK(j["cells"][1]["violated_runs"]["no_message_lost"] == 1);
  CHECK(j["cells"][1]["unjudged_runs"].empty());

  const auto table = run("sweep " + file + " --vary budget.time_limit=1h,48h");
  CHECK_THAT(table.out, Catch::Contains("unjudged: no_message_lost 1/1"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("twice sweep --csv and --markdown write a row per cell", "[cli][sweep]") {
  const auto dir = twice::test::empty_temp_dir("twice-cli-sweep-test");
  const std::string csv = (dir / "cells.csv").string();
  const std::string md = (dir / "cells.md").string();
  const auto r = run("sweep " + double_refund + " --vary workers.count=1,2,3 --csv " + csv + " --markdown " + md);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string table = read_text(md);
  CHECK(table.starts_with("# Sweep: double_refund\n"));
  CHECK_THAT(table, Catch::Contains("| `workers.count` | makespan | job p50 |"));
  CHECK_THAT(table, Catch::Contains("| 2 | 30.416s ±0.000s |"));
  const std::string text = read_text(csv);
  CHECK(text.starts_with("workers.count,runs,runs_all_ended,makespan_mean_s,"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
  CHECK_THAT(text, Catch::Contains("\n2,1,1,30.416000,"));
}

TEST_CASE("twice sweep --junit writes a case per cell and invariant, each failure the command that reruns it",
          "[cli][sweep][junit]") {
  const auto dir = twice::test::empty_temp_dir("twice-cli-sweep-junit");
  const std::string xml_path = (dir / "sweep.xml").string();
  const std::string csv = (dir / "cells.csv").string();
  // double_refund.toml's [expect] has no_double_payment and ledgers_agree
  // violated: with the stable key they hold, which is not what it asks.
  const auto r = run("sweep " + double_refund + " --vary discipline.key=none,stable --seeds 2 --jobs 2 --csv " + csv +
                     " --junit " + xml_path);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);  // a sweep reports; it does not judge its exit status
  const std::string xml = read_text(xml_path);
  INFO(xml);
  CHECK(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"twice sweep\" "));
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"twice sweep double_refund\" "));
  CHECK_THAT(xml, Catch::Contains("failures=\"2\" errors=\"0\" skipped=\"0\" file=\"" + double_refund + "\">"));
  // As expected: violated without the key, held with it.
  CHECK_THAT(
      xml, Catch::Contains("<testcase name=\"discipline.key=none: no_double_payment\" classname=\"double_refund\"/>"));
  CHECK_THAT(xml,
             Catch::Contains("<testcase name=\"discipline.key=stable: every_job_ends\" classname=\"double_refund\"/>"));
  const std::string command = "twice sweep " + double_refund + " --vary discipline.key=stable --seeds 1 --seed ";
  CHECK_THAT(
      xml, Catch::Contains("<testcase name=\"discipline.key=stable: no_double_payment\" classname=\"double_refund\">\n"
                           "      <failure message=\"expected to be violated, but held: "));
  CHECK_THAT(xml, Catch::Contains("(in 2 of 2 seeds, first seed 0); reproduce: " + command + "17\""));
  CHECK_THAT(xml, Catch::Contains("the sweep also wrote " + csv + " (--csv)\n"));
  // Each failing seed's own command: seed 1 is the second world seed.
  const nlohmann::json cells =
      nlohmann::json::parse(run("sweep " + double_refund + " --vary discipline.key=none,stable --seeds 2 --json").out);
  const std::string seed_1 = std::to_string(cells["seeds"][1].get<std::uint64_t>());
  CHECK_THAT(xml, Catch::Contains("seed 1 (world seed " + seed_1 + "): expected to be violated, but held: "));
  CHECK_THAT(xml, Catch::Contains("reproduce: " + command + seed_1 + "\n"));
  // The command reruns the point under that seed: the invariants hold again.
  const auto again = run(command.substr(std::string("twice ").size()) + seed_1 + " --json");
  const nlohmann::json j = nlohmann::json::parse(again.out);
  REQUIRE(j["cells"].size() == 1);
  CHECK(j["cells"][0]["violated_runs"].empty());
  CHECK(j["seeds"][0] == cells["seeds"][1]);

  // --junit is checked with the other outputs before anything runs.
  const auto clash = run("sweep " + double_refund + " --seeds 1 --junit " + double_refund);
  CHECK(clash.exit_code == 2);
  std::filesystem::remove_all(dir);
}

// Counts the occurrences of `what` in `text`.
std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST_CASE("twice sweep --report draws a line per value of one key against another", "[cli][sweep]") {
  const auto dir = twice::test::empty_temp_dir("twice-cli-sweep-report");
  const std::string page = (dir / "sweep.html").string();
  // Three axes: the numeric one is x, the first other the lines, the third a
  // set of charts per value.
  const auto r = run("sweep " + double_refund +
                     " --vary discipline.key=none,stable --vary workers.count=1,2,4 --vary deploy[0].at=2420ms,10s "
                     "--seeds 2 --jobs 2 --report " +
                     page);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text(page);
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(html.find("<script") == std::string::npos);  // self-contained, nothing to run
  CHECK(html.find("<link") == std::string::npos);
  // x: the last axis whose values are numbers or durations (the deploy's time, in seconds).
  CHECK(count_of(html, ">deploy[0].at (s)</text>") == 3 * 4);  // 3 panels x (makespan, calls, job p99, retries)
  CHECK(count_of(html, "<h2>workers.count = ") == 3);
  // A line per value of discipline.key in every chart, each in the legend.
  CHECK(count_of(html, "<g class=\"chart-line\" data-line=\"none\">") == 3 * 4);
  CHECK(count_of(html, "<g class=\"chart-line\" data-line=\"stable\">") == 3 * 4);
  // The key-less cells broke invariants: their points are ringed in red, and
  // the legend has the mark; no other red on the page.
  CHECK(count_of(html, "class=\"chart-violation\"") > 0);
  CHECK(count_of(html, ">a seed broke an invariant</text>") == 3 * 4);
  CHECK(count_of(html, "#c81e1e") == count_of(html, "class=\"chart-violation\"") + 3 * 4 + 1);
  CHECK_THAT(html, Catch::Contains("<td class=\"violated\">no_double_payment 2/2, ledgers_agree 2/2</td>"));
  // The same sweep on one thread writes the same page.
  const std::string again = (dir / "again.html").string();
  REQUIRE(run("sweep " + double_refund +
              " --vary discipline.key=none,stable --vary workers.count=1,2,4 --vary deploy[0].at=2420ms,10s "
              "--seeds 2 --jobs 1 --report " +
              again)
              .exit_code == 0);
  CHECK(read_text(again) == html);
}

TEST_CASE("twice sweep --seeds N without --vary runs the file as written under N seeds", "[cli][sweep]") {
  const std::string deploy = std::string(TWICE_SOURCE_DIR) + "/scenarios/deploy_rolling_kill.toml";
  const auto r = run("sweep " + deploy + " --seeds 3 --jobs 2");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("grid       the file as written: 1 cell, 3 seeds (root seed "));
  CHECK_THAT(r.out, Catch::Contains(", 3 runs on 2 threads in "));
  const auto json = run("sweep " + deploy + " --seeds 3 --jobs 2 --json");
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["axes"].empty());
  CHECK(j["seeds"].size() == 3);
  REQUIRE(j["cells"].size() == 1);
  CHECK(j["cells"][0]["runs"] == 3);
  CHECK(j["cells"][0]["values"].empty());
  // Seed 0 is the file's own: its makespan is what twice run gives.
  const auto one = run("sweep " + deploy + " --seeds 1 --json");
  const auto single = run("run --json --quiet " + deploy);
  REQUIRE(one.exit_code == 0);
  CHECK(nlohmann::json::parse(one.out)["cells"][0]["makespan_s"]["p50"] ==
        nlohmann::json::parse(single.out)["sim_time_us"].get<double>() / 1e6);
}

TEST_CASE("twice sweep: bad input exits 2 and says what is wrong", "[cli][sweep]") {
  auto r = run("sweep " + double_refund + " --vary retry.jitter");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("--vary retry.jitter: expected KEY=V1,V2,... like retry.jitter=none,full"));
  r = run("sweep " + double_refund + " --vary workers.count=1,0");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("--vary workers.count: with workers.count = 0, the scenario does not load"));
  r = run("sweep " + double_refund);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("nothing to sweep: give --vary KEY=V1,V2,..., --seeds N"));
  r = run("sweep " + double_refund + " --vary workers.count=1 --vary workers.count=2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("the key is varied twice"));
  r = run("sweep /nonexistent/file.toml --vary workers.count=1");
  CHECK(r.exit_code == 2);
}
