// `twice explore` run as a user runs it: a bug switch flipped in a fixed
// scenario is found and written as a repro file that `twice run` fails on
// with the same invariant and the same trace digest; the output does not
// depend on --jobs; a correct scenario exits 0; bad input exits 2 with a
// located message and writes nothing.

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_twice.hpp"
#include "test_files.hpp"

namespace {
using twice::test::read_text;
using twice::test::run;
using twice::test::run_result;

std::filesystem::path fresh_dir(const std::string& name) {
  return twice::test::empty_temp_dir(std::filesystem::path("twice-cli-explore-test") / name);
}

// The fixed scenario with one switch flipped, written beside the outputs.
std::string flipped(const std::filesystem::path& dir, const std::string& file, const std::string& from,
                    const std::string& to) {
  std::string text = read_text(std::string(TWICE_SOURCE_DIR) + "/scenarios/" + file);
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const std::string path = (dir / file).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The summary without its one wall-clock line.
std::string without_timing(const std::string& out) {
  return std::regex_replace(out, std::regex("runs        [^\n]*\n"), "");
}
}  // namespace

TEST_CASE("twice explore finds a flipped bug switch and twice run reproduces the repro", "[cli][explore]") {
  const auto dir = fresh_dir("found");
  const std::string file = flipped(dir, "key_per_attempt_fixed.toml", "key = \"stable\"", "key = \"per_attempt\"");
  const std::string out = (dir / "out").string();
  const run_result r = run("explore " + file + " --runs 10 --jobs 2 --out " + out);
  INFO(r.out);
  REQUIRE(r.exit_code == 1);
  CHECK(r.out.find("runs        10 of 10 (root seed 10, 2 threads)") != std::string::npos);
  CHECK(r.out.find("  no_double_payment ") != std::string::npos);
  const std::string repro = out + "/key_per_attempt_fixed-no_double_payment.toml";
  REQUIRE(std::filesystem::exists(repro));
  CHECK(r.out.find("repro       " + repro + " (" + std::to_string(std::filesystem::file_size(repro)) + " bytes)") !=
        std::string::npos);
  std::smatch digest;
  REQUIRE(std::regex_search(r.out, digest, std::regex("exits 1 \\(trace digest ([0-9a-f]{16})\\)")));
  // Nothing but the repro and the result in the output directory (atomic
  // writes leave no temporaries).
  CHECK(std::distance(std::filesystem::directory_iterator(out), std::filesystem::directory_iterator()) == 2);
  const nlohmann::json result = nlohmann::json::parse(read_text(out + "/explore.json"));
  CHECK(result.at("runs_done") == 10);
  CHECK(result.at("findings").at(0).at("repro") == "key_per_attempt_fixed-no_double_payment.toml");
  CHECK(result.at("findings").at(0).at("repro_digest") == digest[1].str());
  CHECK(result.at("findings").at(0).at("cut_short") == false);
  CHECK(result.at("time_limit").is_null());
  CHECK(r.out.find("time limit") == std::string::npos);
  CHECK(r.out.find("cut short") == std::string::npos);

  const run_result again = run("run " + repro);
  INFO(again.out);
  CHECK(again.exit_code == 1);
  CHECK(again.out.find("VIOLATED no_double_payment") != std::string::npos);
  CHECK(again.out.find("Found by `twice explore`: the invariant no_double_payment is violated.") != std::string::npos);
  const run_result json = run("run --json " + repro);
  REQUIRE(json.exit_code == 1);
  CHECK(nlohmann::json::parse(json.out).at("trace_digest") == digest[1].str());
}

TEST_CASE("twice explore prints and writes the same whatever --jobs", "[cli][explore]") {
  const auto dir = fresh_dir("jobs");
  const std::string file = flipped(dir, "double_refund_fixed.toml", "key = \"stable\"", "key = \"none\"");
  const run_result one = run("explore " + file + " --runs 12 --all --jobs 1 --out " + (dir / "one").string());
  const run_result two = run("explore " + file + " --runs 12 --all --jobs 3 --out " + (dir / "two").string());
  REQUIRE(one.exit_code == 1);
  REQUIRE(two.exit_code == 1);
  std::string expected = without_timing(one.out);
  for (std::size_t at; (at = expected.find("/one/")) != std::string::npos;) expected.replace(at, 5, "/two/");
  CHECK(expected == without_timing(two.out));
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "one")) {
    ++files;
    CHECK(read_text(entry.path()) == read_text(dir / "two" / entry.path().filename()));
  }
  CHECK(files >= 2);  // no_double_payment and ledgers_agree at least
}

TEST_CASE("twice explore exits 0 on a correct scenario and prints no progress off a terminal", "[cli][explore]") {
  const auto dir = fresh_dir("clean");
  const std::string err = (dir / "stderr.txt").string();
  const run_result r = run("explore " + std::string(TWICE_SOURCE_DIR) + "/scenarios/key_per_attempt_fixed.toml" +
                               " --runs 8 --seed 3 --out " + (dir / "out").string(),
                           err);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("runs        8 of 8 (root seed 3,") != std::string::npos);
  CHECK(r.out.find("violations  none") != std::string::npos);
  CHECK(read_text(err).empty());
  // --out given: the result, and no repro.
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "out"), std::filesystem::directory_iterator()) == 1);
  const nlohmann::json result = nlohmann::json::parse(read_text(dir / "out" / "explore.json"));
  CHECK(result.at("runs").size() == 8);
  CHECK(result.at("violations").empty());
  // Without --out, a clean exploration writes nothing at all.
  const run_result quiet =
      run("explore " + std::string(TWICE_SOURCE_DIR) + "/scenarios/key_per_attempt_fixed.toml" + " --runs 2 --json");
  CHECK(quiet.exit_code == 0);
  CHECK(nlohmann::json::parse(quiet.out).at("runs_done") == 2);
  CHECK_FALSE(std::filesystem::exists("explore-out"));
}

TEST_CASE("twice explore reports bad input at its place and writes nothing", "[cli][explore]") {
  const auto dir = fresh_dir("bad");
  const std::string file = (dir / "bad.toml").string();
  std::ofstream(file) << "[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 1\n[explore]\nswarn = true\n";
  const run_result r = run("explore " + file + " --out " + (dir / "out").string());
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(file + ":6:1: explore.swarn: unknown key; did you mean `swarm`?") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
  const run_result limit = run("explore " + std::string(TWICE_SOURCE_DIR) + "/scenarios/outbox.toml --time-limit 10");
  CHECK(limit.exit_code == 2);
  CHECK(limit.out.find("--time-limit") != std::string::npos);
}

TEST_CASE("[expect] reach fails a run or an exploration that never reached a situation", "[cli][explore]") {
  const auto dir = fresh_dir("reach");
  auto with_reach = [&](const std::string& list) {
    return flipped(dir, "double_refund.toml", "[expect]\n", "[expect]\nreach = [" + list + "]\n");
  };
  // The double refund's pod dies after the refund and before the ack.
  std::string file = with_reach("\"crash_after_write_before_ack\"");
  CHECK(run("run " + file).exit_code == 0);
  const run_result explored = run("explore " + file + " --runs 20");
  CHECK(explored.exit_code == 0);
  CHECK(explored.out.find("  crash_after_write_before_ack ") != std::string::npos);

  file = with_reach("\"crash_after_write_before_ack\", \"circuit_opened\"");
  const run_result r = run("run " + file);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("the run never reached circuit_opened: a circuit breaker opened on a tool") != std::string::npos);
  const run_result e = run("explore " + file + " --runs 20 --out " + (dir / "out").string());
  INFO(e.out);
  CHECK(e.exit_code == 1);
  CHECK(e.out.find("expected    reach circuit_opened, but it never happened in 20 runs: a circuit breaker opened on "
                   "a tool") != std::string::npos);
  const nlohmann::json result = nlohmann::json::parse(read_text(dir / "out" / "explore.json"));
  CHECK(result.at("unreached_expected") == nlohmann::json::array({"circuit_opened"}));
  CHECK(result.at("violations").empty());

  file = with_reach("\"circuit_open\"");
  const run_result bad = run("run " + file);
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find(file + ":42:10: expect.reach[0]: unknown situation \"circuit_open\"; did you mean "
                            "`circuit_opened`?") != std::string::npos);
}

TEST_CASE("explore --known fails only on findings not accepted, and --update-known accepts them", "[cli][explore]") {
  const auto dir = fresh_dir("known");
  const std::string bug = flipped(dir, "double_refund_fixed.toml", "key = \"stable\"", "key = \"none\"");
  const std::string known = (dir / "known.json").string();
  const std::string out = " --out " + (dir / "out").string();
  auto explore = [&](const std::string& file, const std::string& more) {
    return run("explore " + file + " --runs 40" + out + " --known " + known + more);
  };
  const run_result missing = explore(bug, "");
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.find(known + ": no such file (--update-known writes it)") != std::string::npos);

  CHECK(explore(bug, " --update-known").exit_code == 0);
  const nlohmann::json accepted = nlohmann::json::parse(read_text(known));
  REQUIRE(accepted.at("findings").size() == 2);  // --known implies --all: both invariants shrunk
  CHECK(accepted.at("findings").at(0).at("invariant") == "ledgers_agree");
  const run_result again = explore(bug, "");
  INFO(again.out);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("double_refund_fixed-no_double_payment.toml (") != std::string::npos);
  CHECK(again.out.find(", known: in " + known) != std::string::npos);
  CHECK(again.out.find("was not found this time") == std::string::npos);

  // Another scenario's finding is new; accepting it keeps the first one's.
  const std::string other = flipped(dir, "key_per_attempt_fixed.toml", "key = \"stable\"", "key = \"none\"");
  CHECK(explore(other, "").exit_code == 1);
  CHECK(explore(other, " --update-known").exit_code == 0);
  CHECK(nlohmann::json::parse(read_text(known)).at("findings").size() == 4);
  CHECK(explore(bug, "").exit_code == 0);

  // A digest that no longer matches: the finding is new again, the old one said.
  std::string text = read_text(known);
  for (std::size_t at; (at = text.find("\"repro_digest\":\"")) != std::string::npos;)
    text.replace(at, 16, "\"repro_digest\": \"0");
  std::ofstream(known, std::ios::binary) << text;
  const run_result changed = explore(bug, "");
  CHECK(changed.exit_code == 1);
  CHECK(changed.out.find("was not found this time: fixed? --update-known drops it") != std::string::npos);

  CHECK(run("explore " + bug + " --update-known").exit_code == 2);
  CHECK(run("explore " + bug + " --shard 0/2 --known " + known).exit_code == 2);
  std::ofstream(known) << "{\"format\": \"something else\"}";
  const run_result foreign = explore(bug, "");
  CHECK(foreign.exit_code == 2);
  CHECK(foreign.out.find("not a known-findings file") != std::string::npos);
}

TEST_CASE("twice explore --progress json writes NDJSON progress ending with the final counts", "[cli][explore]") {
  const auto dir = fresh_dir("progress-json");
  // The fixed double refund with its key taken away: some runs violate no_double_payment.
  const std::string bug = flipped(dir, "double_refund_fixed.toml", "key = \"stable\"", "key = \"none\"");
  const std::string err = (dir / "stderr.txt").string();
  const run_result r =
      run("explore " + bug + " --runs 30 --jobs 2 --progress json --out " + (dir / "out").string(), err);
  CHECK(r.exit_code == 1);
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_text(err));
  for (std::string line; std::getline(in, line);) {
    INFO(line);
    REQUIRE_NOTHROW(lines.push_back(nlohmann::json::parse(line)));
  }
  REQUIRE(!lines.empty());
  for (const nlohmann::json& l : lines) {
    CHECK(l.at("command") == "explore");
    CHECK(l.at("total") == 30);
    CHECK(l.at("done").get<int>() <= 30);
    CHECK(l.at("elapsed_s").is_number());
  }
  const nlohmann::json result = nlohmann::json::parse(read_text(dir / "out" / "explore.json"));
  CHECK(lines.back().at("final") == true);
  CHECK(lines.back().at("done") == 30);
  CHECK(result.at("violating_runs").get<int>() > 0);
  CHECK(lines.back().at("violating_runs") == result.at("violating_runs"));
}

TEST_CASE("explore --time-limit says how it splits, and a shrink cut short says so", "[cli][explore]") {
  const auto dir = fresh_dir("time-limit");
  const std::string file = flipped(dir, "key_per_attempt_fixed.toml", "key = \"stable\"", "key = \"per_attempt\"");
  const std::string out = (dir / "out").string();
  // A budget of one candidate cuts the shrink short whatever the clock
  // does; ten minutes are never reached by ten runs.
  const run_result r = run("explore " + file + " --runs 10 --time-limit 10m --shrink-runs 1 --out " + out);
  INFO(r.out);
  REQUIRE(r.exit_code == 1);
  CHECK(r.out.find("\ntime limit  10m: runs until 8m, 2m kept for shrinking\n") != std::string::npos);
  CHECK(r.out.find(" (1 candidate; cut short by its budget of 1 candidate) to ") != std::string::npos);
  const nlohmann::json result = nlohmann::json::parse(read_text(out + "/explore.json"));
  CHECK(result.at("stamp").at("shrink_runs") == 1);
  CHECK(result.at("time_limit") ==
        nlohmann::json({{"limit_us", 600000000}, {"runs_us", 480000000}, {"shrink_us", 120000000}}));
  CHECK(result.at("findings").at(0).at("cut_short") == true);
  CHECK(result.at("findings").at(0).at("cut_short_by") == "candidates");
  const std::string repro = read_text(out + "/key_per_attempt_fixed-no_double_payment.toml");
  CHECK(repro.find("(1 candidate tried, cut short by its budget of 1 candidate)") != std::string::npos);
  // --json has the same fields.
  const run_result json = run("explore " + file + " --runs 10 --time-limit 10m --shrink-runs 1 --json --out " + out);
  CHECK(nlohmann::json::parse(json.out) == result);

  CHECK(run("explore " + file + " --shrink-runs 0").exit_code == 2);
}
