// The command line as a user meets it: exit codes, the JSON fields other
// tools rely on, located errors for bad input, nothing written on failure.
// Runs the built binary (its path comes from CMake).

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "run_twice.hpp"

namespace {
using twice::test::run;
using twice::test::run_result;

std::string scenario(const std::string& name) { return std::string(TWICE_SOURCE_DIR) + "/scenarios/" + name; }

std::filesystem::path temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / "twice-cli-test";
  std::filesystem::create_directories(dir);
  return dir;
}
}  // namespace

TEST_CASE("twice run exits 0 when expectations are met, and prints the story", "[cli]") {
  const run_result r = run("run " + scenario("double_refund.toml"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("seed 17") != std::string::npos);
  CHECK(r.out.find("refund job_17 step 3 key=(none) -> 200 re_2  new_write") != std::string::npos);
  CHECK(r.out.find("VIOLATED no_double_payment") != std::string::npos);
  CHECK(r.out.find("expectations met") != std::string::npos);
}

TEST_CASE("a partial [expect] hold does not pass a real double payment", "[cli]") {
  // The double refund with only `hold = ["every_job_ends"]`: no_double_payment
  // breaks, is not expected to, so the run fails (it used to exit 0).
  std::ifstream in(scenario("double_refund.toml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t expect = text.find("[expect]");
  REQUIRE(expect != std::string::npos);
  text = text.substr(0, expect) + "[expect]\nhold = [\"every_job_ends\"]\n";
  const std::filesystem::path file = temp_dir() / "partial_hold.toml";
  std::ofstream(file) << text;
  const run_result r = run("run --quiet " + file.string());
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("VIOLATED no_double_payment") != std::string::npos);
  CHECK(r.out.find("expectations NOT met\n  - no_double_payment was violated: invoice inv_17") != std::string::npos);
}

TEST_CASE("twice lint prints an allowed warning with its reason and does not count it", "[cli]") {
  const run_result drain = run("lint " + scenario("deploy_drain.toml"));
  CHECK(drain.exit_code == 0);
  CHECK(drain.out.find(": no warnings\nallowed[write_without_key] discipline.key: the pair shows the drain alone") !=
        std::string::npos);
  // The same world without the allowance warns; an allowance of a rule that
  // does not fire is pointed out, and does not hide anything.
  std::ifstream in(scenario("deploy_drain.toml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("allow = [");
  REQUIRE(at != std::string::npos);
  text = text.substr(0, at) + "allow = [{ rule = \"no_jitter\", reason = \"stale\" }]\n" +
         text.substr(text.find('\n', at) + 1);
  const std::filesystem::path file = temp_dir() / "drain_stale_allow.toml";
  std::ofstream(file) << text;
  const run_result stale = run("lint " + file.string());
  CHECK(stale.exit_code == 1);
  CHECK(stale.out.find("warning[write_without_key] discipline.key") != std::string::npos);
  CHECK(stale.out.find("note: [lint] allows no_jitter, but it does not fire on this file") != std::string::npos);
}

TEST_CASE("an empty or comment-only scenario is bad input", "[cli]") {
  const std::filesystem::path file = temp_dir() / "only_comments.toml";
  std::ofstream(file) << "# a story with no world\n";
  const run_result r = run("run " + file.string());
  CHECK(r.exit_code == 2);
  // stderr and stdout together: the located error and nothing else.
  CHECK(r.out.rfind(file.string() + ":1:1: the scenario defines no jobs", 0) == 0);
  CHECK(r.out.find("expectations") == std::string::npos);
}

TEST_CASE("twice run --json carries the documented fields", "[cli]") {
  const run_result r = run("run --json " + scenario("double_refund_fixed.toml"));
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("scenario") == "double_refund_fixed");
  CHECK(j.at("seed") == 17);
  CHECK(j.at("trace_digest").get<std::string>().size() == 16);
  CHECK(j.at("events").get<std::uint64_t>() > 0);
  CHECK(j.at("sim_time_us").get<std::int64_t>() > 0);
  CHECK(j.at("jobs").at("total") == 1);
  CHECK(j.at("jobs").at("succeeded") == 1);
  CHECK(j.at("jobs").at("failed") == 0);
  CHECK(j.at("jobs").at("dead_lettered") == 0);
  CHECK(j.at("ledger").at("rows") == 1);
  CHECK(j.at("ledger").at("total_cents") == 1999);
  CHECK(j.at("vendor").at("refunds") == 1);
  CHECK(j.at("vendor").at("calls") == 3);
  CHECK(j.at("vendor").at("total_cents") == 1999);
  const auto& attempts = j.at("attempts");
  REQUIRE(attempts.size() == 3);
  for (int a = 0; a < 3; ++a) {
    CHECK(attempts[a].at("job_id") == "job_17");
    CHECK(attempts[a].at("attempt") == a);
    CHECK(attempts[a].at("key") == "job_17:step_3:refund");
    CHECK(attempts[a].at("new_write") == (a == 0));
  }
  CHECK(attempts[0].at("outcome") == "retry");
  CHECK(attempts[2].at("outcome") == "done");
  CHECK(attempts[0].at("backoff_us") != attempts[1].at("backoff_us"));
  REQUIRE(j.at("invariants").size() == 12);
  for (const auto& v : j.at("invariants")) CHECK(v.at("held") == true);
  CHECK(j.at("expectations").at("met") == true);
  CHECK(j.at("expectations").at("failures").empty());
  CHECK(j.at("expectations").at("expected_violated").empty());
  CHECK(j.at("expectations").at("ignored").empty());
}

TEST_CASE("unmet expectations exit 1 and print the command that reproduces the run", "[cli]") {
  const auto file = temp_dir() / "unmet.toml";
  std::ofstream(file) << "seed = 3\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 5\n"
                         "[expect]\nvendor_refunds = 2\n";
  const run_result r = run("run --quiet " + file.string());
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("expected vendor refunds 2, got 1") != std::string::npos);
  CHECK(r.out.find("reproduce: twice run " + file.string() + " --seed 3") != std::string::npos);
}

TEST_CASE("bad input exits 2 with a located message and writes nothing", "[cli]") {
  const auto dir = temp_dir();
  const auto bad = dir / "bad.toml";
  std::ofstream(bad) << "seed = 1\n[queue]\nvisiblity_timeout = \"10s\"\n";
  const auto trace = dir / "never.jsonl";
  std::filesystem::remove(trace);
  const run_result r = run("run " + bad.string() + " --trace " + trace.string());
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(bad.string() + ":3:1: queue.visiblity_timeout:") != std::string::npos);
  CHECK(r.out.find("did you mean `visibility_timeout`?") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(trace));

  CHECK(run("run " + (dir / "missing.toml").string()).exit_code == 2);
  CHECK(run("run").exit_code == 2);
  CHECK(run("frobnicate").exit_code == 2);
}

TEST_CASE("--trace writes JSON lines and refuses to overwrite the scenario", "[cli]") {
  const auto trace = temp_dir() / "trace.jsonl";
  const run_result r = run("run --quiet " + scenario("double_refund.toml") + " --trace " + trace.string());
  REQUIRE(r.exit_code == 0);
  std::ifstream in(trace);
  std::string line;
  std::size_t spans = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j.at("kind") == "tool_call" && j.at("tool") == "refund") {
      ++spans;
      CHECK(j.contains("job"));
      CHECK(j.contains("attempt"));
      CHECK(j.contains("key"));
      CHECK(j.contains("sha"));
      CHECK(j.contains("status"));
    }
  }
  CHECK(spans == 2);
  const std::string same = scenario("double_refund.toml");
  CHECK(run("run " + same + " --trace " + same).exit_code == 2);
}

TEST_CASE("twice lint exits 1 with warnings and 0 without", "[cli]") {
  const run_result broken = run("lint " + scenario("double_refund.toml"));
  CHECK(broken.exit_code == 1);
  CHECK(broken.out.find("warning[write_without_key] discipline.key") != std::string::npos);
  CHECK(broken.out.find("warning[rolling_kill_without_drain]") != std::string::npos);
  const auto clean = temp_dir() / "clean.toml";
  std::ofstream(clean) << "[queue]\nmax_receive_count = 5\n[runtime]\nheartbeat_interval = \"5s\"\n"
                          "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 5\n";
  const run_result ok = run("lint " + clean.string());
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("no warnings") != std::string::npos);
}

TEST_CASE("--version and --help", "[cli]") {
  CHECK(run("--version").out.find("twice 0.1.0") != std::string::npos);
  const run_result help = run("run --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--json") != std::string::npos);
  CHECK(help.out.find("Exit status") != std::string::npos);
}

TEST_CASE("--check-determinism runs every catalogue scenario twice and finds the same trace", "[cli]") {
  std::string files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TWICE_SOURCE_DIR) + "/scenarios"))
    if (entry.path().extension() == ".toml") files += " " + entry.path().string();
  const run_result r = run("run --quiet --check-determinism" + files);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("not deterministic") == std::string::npos);
}

TEST_CASE("--check-determinism says so when it passes, in text and in JSON", "[cli]") {
  const run_result text = run("run --quiet --check-determinism " + scenario("double_refund.toml"));
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("determinism: 2 runs, 82 records, digest 1c26774827ea65b5, identical\n") != std::string::npos);
  const run_result json = run("run --json --check-determinism " + scenario("double_refund.toml"));
  REQUIRE(json.exit_code == 0);
  const auto d = nlohmann::json::parse(json.out).at("determinism");
  CHECK(d.at("runs") == 2);
  CHECK(d.at("records") == 82);
  CHECK(d.at("digest") == "1c26774827ea65b5");
  CHECK(d.at("identical") == true);
  // Without the flag, nothing claims a check that did not happen.
  CHECK_FALSE(nlohmann::json::parse(run("run --json " + scenario("double_refund.toml")).out).contains("determinism"));
}
