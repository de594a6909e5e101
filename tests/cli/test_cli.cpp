// The command line as a user meets it: exit codes, the JSON fields other
// tools rely on, located errors for bad input, nothing written on failure.
// Runs the built binary (its path comes from CMake).

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_twice.hpp"
#include "test_files.hpp"

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

TEST_CASE("the text summary counts every tool's calls and answers", "[cli]") {
  const run_result r = run("run --quiet " + scenario("batch_email_resent.toml"));
  REQUIRE(r.exit_code == 0);
  // 20 sends, 3 refused by the outage, then the ten resent; no refund tool was called.
  CHECK(r.out.find("\ntools      email 33 calls: 30 executed, 3 answered 503; at most 1 in one 100 ms\n\ninvariants") !=
        std::string::npos);
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
  // Every tool called, in the order refund, email, model, read.
  const auto& tools = j.at("tools");
  REQUIRE(tools.size() == 3);
  CHECK(tools[0].at("name") == "refund");
  CHECK(tools[0].at("calls") == 3);
  CHECK(tools[1].at("name") == "model");
  CHECK(tools[2].at("name") == "read");
  for (const auto& t : tools) CHECK(t.at("rejected").is_object());
  const auto& attempts = j.at("attempts");
  REQUIRE(attempts.size() == 3);
  CHECK(j.at("attempts_total") == 3);
  CHECK(j.at("attempts_omitted") == 0);
  for (int a = 0; a < 3; ++a) {
    CHECK(attempts[a].at("job_id") == "job_17");
    CHECK(attempts[a].at("attempt") == a);
    CHECK(attempts[a].at("key") == "job_17:step_3:refund");
    CHECK(attempts[a].at("new_write") == (a == 0));
  }
  CHECK(attempts[0].at("outcome") == "retry");
  CHECK(attempts[2].at("outcome") == "done");
  CHECK(attempts[0].at("backoff_us") != attempts[1].at("backoff_us"));
  REQUIRE(j.at("invariants").size() == 17);
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
      CHECK(j.at("job_id") == "job_17");
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

TEST_CASE("a trace streamed as the run goes is the trace a kept run writes", "[cli]") {
  // --quiet with --trace alone streams each event to the file; without
  // --quiet the events are kept for the timeline and written at the end.
  const auto dir = temp_dir();
  const auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const char* name : {"double_refund.toml", "vendor_outage_jitter.toml", "deploy_rolling_kill.toml"}) {
    const auto streamed = dir / "streamed.jsonl", kept = dir / "kept.jsonl";
    REQUIRE(run("run --quiet " + scenario(name) + " --trace " + streamed.string()).exit_code <= 1);
    REQUIRE(run("run " + scenario(name) + " --trace " + kept.string()).exit_code <= 1);
    const std::string a = slurp(streamed);
    CHECK_FALSE(a.empty());
    CHECK(a == slurp(kept));
    CHECK_FALSE(std::filesystem::exists(dir / ".twice-tmp-streamed.jsonl"));
  }
  // A file that cannot be opened is bad input, found before anything runs.
  const run_result r =
      run("run --quiet " + scenario("double_refund.toml") + " --trace " + (dir / "no-such-dir" / "t.jsonl").string());
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("cannot write") != std::string::npos);
}

TEST_CASE("counts and their nouns agree in what the command line prints", "[cli]") {
  const run_result fixed = run("run --quiet " + scenario("double_refund_fixed.toml"));
  CHECK(fixed.out.find("ledgers    ours 1 row, 1999 cents\n           the payment vendor's 1 refund, 1999 cents\n") !=
        std::string::npos);
  CHECK(fixed.out.find("refund 3 calls: 1 executed") != std::string::npos);
  const run_result split = run("run --quiet " + scenario("slice_cannot_heartbeat_fixed.toml"));
  CHECK(split.out.find(", 1 worker\n") != std::string::npos);
  CHECK(split.out.find("(s)") == std::string::npos);
  const auto one = temp_dir() / "one_warning.toml";
  std::ofstream(one)
      << "[discipline]\nkey = \"none\"\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 5\n";
  const run_result lint = run("lint " + one.string());
  CHECK(lint.exit_code == 1);
  CHECK(lint.out.find(one.string() + ": 1 warning\n") != std::string::npos);
  const run_result sweep = run("sweep " + scenario("double_refund.toml") + " --vary workers.count=1,2 --jobs 1");
  CHECK(sweep.out.find("2 cells, 1 seed each (root seed 17), 2 runs on 1 thread in ") != std::string::npos);
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
  CHECK(text.out.find("determinism: 2 runs, 82 records, digest edff91e1dfb26e4f, identical\n") != std::string::npos);
  const run_result json = run("run --json --check-determinism " + scenario("double_refund.toml"));
  REQUIRE(json.exit_code == 0);
  const auto d = nlohmann::json::parse(json.out).at("determinism");
  CHECK(d.at("runs") == 2);
  CHECK(d.at("records") == 82);
  CHECK(d.at("digest") == "edff91e1dfb26e4f");
  CHECK(d.at("identical") == true);
  // Without the flag, nothing claims a check that did not happen.
  CHECK_FALSE(nlohmann::json::parse(run("run --json " + scenario("double_refund.toml")).out).contains("determinism"));
}

TEST_CASE("an unknown command is named, with the closest one and the list", "[cli]") {
  const run_result typo = run("rnu x.toml");
  CHECK(typo.exit_code == 2);
  CHECK(typo.out.find("twice: unknown command \"rnu\"; did you mean \"run\"?") != std::string::npos);
  CHECK(typo.out.find("  explore") != std::string::npos);
  CHECK(typo.out.find("A subcommand is required") == std::string::npos);
  CHECK(run("explor x.toml").out.find("did you mean \"explore\"?") != std::string::npos);
  const run_result nothing_close = run("frobnicate");
  CHECK(nothing_close.exit_code == 2);
  CHECK(nothing_close.out.find("twice: unknown command \"frobnicate\"\n") != std::string::npos);
  const run_result none = run("");
  CHECK(none.exit_code == 2);
  CHECK(none.out.find("twice: a command is required") != std::string::npos);
}

TEST_CASE("twice help prints the help, twice help COMMAND the command's", "[cli]") {
  const run_result help = run("help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Usage: twice [OPTIONS] SUBCOMMAND") != std::string::npos);
  CHECK(help.out.find("explore") != std::string::npos);
  const run_result help_run = run("help run");
  CHECK(help_run.exit_code == 0);
  CHECK(help_run.out.find("Usage: twice run") != std::string::npos);
  CHECK(help_run.out.find("--check-determinism") != std::string::npos);
  const run_result unknown = run("help rnu");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out.find("did you mean \"run\"?") != std::string::npos);
}

TEST_CASE("every command's --help gives its exit status", "[cli]") {
  for (const char* command : {"run", "lint", "explore", "sweep", "demo", "incident", "help"}) {
    INFO(command);
    const run_result help = run(std::string(command) + " --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Exit status: 0") != std::string::npos);
  }
  CHECK(run("--help").out.find("Exit status: 0") != std::string::npos);
}

TEST_CASE("--seed refuses negative and out-of-range values in every command", "[cli]") {
  const std::string file = scenario("double_refund.toml");
  for (const std::string& command :
       {"run " + file, "explore --runs 1 " + file, std::string("demo"), std::string("incident")}) {
    for (const char* seed : {" -1", "=-1", " 18446744073709551616", " 0x10", " 1e3"}) {
      INFO(command << " --seed" << seed);
      const run_result r = run(command + " --seed" + seed);
      CHECK(r.exit_code == 2);
      CHECK(r.out.find("--seed: expected a seed from 0 to 18446744073709551615") != std::string::npos);
      CHECK(r.out.find("== double_refund") == std::string::npos);
    }
  }
  const run_result largest = run("run --quiet --json " + file + " --seed 18446744073709551615");
  CHECK(largest.exit_code == 0);
  CHECK(nlohmann::json::parse(largest.out).at("seed") == 18446744073709551615ULL);
}

TEST_CASE("two outputs naming one file are a usage error before anything runs", "[cli]") {
  const auto dir = temp_dir() / "same-output";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  const std::string file = scenario("double_refund.toml");
  const std::string f = (dir / "out").string();
  const std::string same = (dir / "sub" / ".." / "out").string();
  const run_result r = run("run " + file + " --report " + f + " --markdown " + same);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("twice run: --markdown " + same + " and --report " + f + " name the same file") !=
        std::string::npos);
  CHECK(r.out.find("== double_refund") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(f));
  CHECK(run("run " + file + " --trace " + f + " --perfetto " + f).exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(f));
  // Different files are fine.
  CHECK(run("run --quiet " + file + " --trace " + f + " --perfetto " + f + ".json").exit_code == 0);
}

TEST_CASE("- reads a scenario from standard input, once", "[cli]") {
  const std::string file = scenario("double_refund.toml");
  const run_result r = run("run --quiet - < " + file);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("== double_refund (<stdin>)") != std::string::npos);
  CHECK(r.out.find("expectations met") != std::string::npos);
  auto from_stdin = nlohmann::json::parse(run("run --quiet --json - < " + file).out);
  auto from_file = nlohmann::json::parse(run("run --quiet --json " + file).out);
  CHECK(from_stdin.at("path") == "<stdin>");
  from_stdin.erase("path");
  from_file.erase("path");
  CHECK(from_stdin == from_file);
  const run_result lint = run("lint - < " + file);
  CHECK(lint.exit_code == 1);
  CHECK(lint.out.find("<stdin>: 2 warnings") != std::string::npos);
  const auto bad = temp_dir() / "bad-stdin.toml";
  std::ofstream(bad) << "seed = 1\n[queue]\nvisiblity_timeout = \"10s\"\n";
  const run_result located = run("run - < " + bad.string());
  CHECK(located.exit_code == 2);
  CHECK(located.out.find("<stdin>:3:1: queue.visiblity_timeout: unknown key") != std::string::npos);
  const run_result twice_stdin = run("run - - < " + file);
  CHECK(twice_stdin.exit_code == 2);
  CHECK(twice_stdin.out.find("twice run: - (standard input) is given more than once") != std::string::npos);
  CHECK(run("lint - - < " + file).exit_code == 2);
}

TEST_CASE("a run read from standard input prints a command that reproduces it", "[cli]") {
  // Standard input is gone once read: "twice run - --seed 3" would wait for
  // input that never comes. The line names a saved copy instead.
  const auto unmet = temp_dir() / "unmet-stdin.toml";
  const std::string text =
      "seed = 3\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 5\n"
      "[expect]\nvendor_refunds = 2\n";
  std::ofstream(unmet) << text;
  const run_result r = run("run --quiet - < " + unmet.string());
  CHECK(r.exit_code == 1);
  const std::string prefix = "reproduce: twice run ";
  const std::size_t at = r.out.find(prefix);
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at + prefix.size(), r.out.find('\n', at) - at - prefix.size());
  INFO(line);
  const std::string copy = line.substr(0, line.find(' '));
  CHECK(copy != "-");
  CHECK(line.find(" --seed 3") != std::string::npos);
  std::ifstream in(copy, std::ios::binary);
  CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == text);
  // Pasted, the command runs the same world to the same end.
  const run_result again = run("run --quiet " + copy + " --seed 3");
  CHECK(again.exit_code == 1);
  const auto outcome = [](const std::string& out) { return out.substr(out.find("\noutcome"), 80); };
  CHECK(outcome(again.out) == outcome(r.out));
}

TEST_CASE("a mistyped option is named with the option it most likely meant", "[cli]") {
  const std::string file = scenario("double_refund.toml");
  const run_result report = run("run " + file + " --reprot x.html");
  CHECK(report.exit_code == 2);
  CHECK(report.out.find("twice run: unknown option --reprot; did you mean --report?\n") != std::string::npos);
  CHECK(report.out.find("== double_refund") == std::string::npos);
  CHECK(run("sweep " + file + " --sedes 2").out.find("twice sweep: unknown option --sedes; did you mean --seeds?") !=
        std::string::npos);
  CHECK(run("run " + file + " --check_determinism").out.find("did you mean --check-determinism?") != std::string::npos);
  CHECK(run("explore --rusn 2 " + file).out.find("twice explore: unknown option --rusn; did you mean --runs?") !=
        std::string::npos);
  // Nothing close: the command's options, and no guess from one letter.
  const run_result far = run("sweep " + file + " --quiet");
  CHECK(far.exit_code == 2);
  CHECK(far.out.find("twice sweep: unknown option --quiet; the options are --help, --vary, --seeds,") !=
        std::string::npos);
  CHECK(run("run " + file + " -x").out.find("unknown option -x; the options are") != std::string::npos);
  // Before the command word too.
  CHECK(run("--reprot run " + file).out.find("unknown option --reprot; did you mean --report?") != std::string::npos);
}

TEST_CASE("usage mistakes are told in twice's words, with exit 2", "[cli]") {
  const std::string file = scenario("double_refund.toml");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"run", "twice run: no FILE given: scenario files (TOML); - reads one from standard input\n"},
      {"sweep", "twice sweep: no FILE given: scenario file (TOML); its [sweep] table is the default grid\n"},
      {"explore --runs abc " + file,
       "twice explore: --runs: expected a whole number from 1 to 100000000, found \"abc\"\n"},
      {"explore --runs 0 " + file, "twice explore: --runs: expected a whole number from 1 to 100000000, found \"0\"\n"},
      {"sweep " + file + " --seeds 10001",
       "twice sweep: --seeds: expected a whole number from 1 to 10000, found \"10001\"\n"},
      {"sweep " + file + " --jobs -1", "twice sweep: --jobs: expected a whole number from 1 to 1024, found \"-1\"\n"},
      {"run " + file + " --seed", "twice run: --seed needs a value (SEED)\n"},
      {"run --json=x " + file, "twice run: --json takes no value, found \"x\"\n"},
      {"sweep " + file + " other.toml",
       "twice sweep: unexpected argument \"other.toml\": twice sweep takes one FILE and options\n"},
      {"demo extra", "twice demo: unexpected argument \"extra\": twice demo takes options only\n"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const run_result r = run(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.starts_with(message));
    CHECK(r.out.find("Run twice ") != std::string::npos);
    // None of CLI11's own words.
    for (const char* theirs : {"is required", "not in range", "Run with --help", "not expected", "Could not convert",
                               "required SEED missing"})
      CHECK(r.out.find(theirs) == std::string::npos);
  }
}

TEST_CASE("output paths are checked before anything runs", "[cli]") {
  const auto dir = temp_dir() / "outputs-checked";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "a_directory");
  std::ofstream(dir / "plain_file") << "x";
  const std::string file = scenario("double_refund.toml");
  const std::string missing = (dir / "no-such-dir" / "r.html").string();
  const std::string under_file = (dir / "plain_file" / "r.md").string();
  const std::string a_directory = (dir / "a_directory").string();
  const std::vector<std::pair<std::string, std::string>> cases{
      {"run " + file + " --report " + missing,
       "twice run: cannot write --report " + missing + ": no directory " + (dir / "no-such-dir").string() + "\n"},
      {"run " + file + " --markdown " + under_file, "twice run: cannot write --markdown " + under_file + ": " +
                                                        (dir / "plain_file").string() + " is not a directory\n"},
      {"run " + file + " --perfetto " + a_directory,
       "twice run: cannot write --perfetto " + a_directory + ": it is a directory; give a file name\n"},
      // A place no file can be made in, even by root.
      {"run " + file + " --trace /proc/twice-cli-test.jsonl",
       "twice run: cannot write --trace /proc/twice-cli-test.jsonl: "},
      {"sweep " + file + " --vary workers.count=1,2 --csv " + missing,
       "twice sweep: cannot write --csv " + missing + ": no directory "},
      {"sweep " + file + " --vary workers.count=1,2 --report " + a_directory,
       "twice sweep: cannot write --report " + a_directory + ": it is a directory"},
      {"sweep " + file + " --vary workers.count=1,2 --markdown " + file,
       "twice sweep: --markdown " + file + " would overwrite the scenario itself\n"},
      {"explore --runs 1 " + file + " --out " + (dir / "plain_file" / "repros").string(),
       "twice explore: cannot write --out " + (dir / "plain_file" / "repros").string() + ": " +
           (dir / "plain_file").string() + " is not a directory\n"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const run_result r = run(args);
    CHECK(r.exit_code == 2);
    // The message, and nothing else: no run started, nothing was printed or written.
    CHECK(r.out.starts_with(message));
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  }
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"a_directory", "plain_file"});
  CHECK(std::filesystem::is_empty(dir / "a_directory"));
  if (geteuid() != 0) {  // root writes anywhere: the permission check is for everyone else
    std::filesystem::create_directories(dir / "read_only");
    std::filesystem::permissions(dir / "read_only",
                                 std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    const run_result r = run("run " + file + " --report " + (dir / "read_only" / "r.html").string());
    CHECK(r.exit_code == 2);
    CHECK(r.out.find(": Permission denied\n") != std::string::npos);
    std::filesystem::permissions(dir / "read_only", std::filesystem::perms::owner_all);
  }
  // A device is written in place, never replaced by a renamed file.
  CHECK(run("run --quiet " + file + " --trace /dev/null").exit_code == 0);
  CHECK(std::filesystem::is_character_file("/dev/null"));
}

TEST_CASE("invalid UTF-8 in a scenario is reported at the byte itself", "[cli]") {
  const auto file = temp_dir() / "bad-utf8.toml";
  std::ofstream(file, std::ios::binary) << "seed = 1\n\xff = 2\n";
  const run_result r = run("run " + file.string());
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(file.string() + ":2:1: invalid UTF-8: byte 0xFF cannot start a character") != std::string::npos);
}

TEST_CASE("text beyond ASCII prints as text, in results and in errors", "[cli]") {
  const auto file = temp_dir() / "umlauts.toml";
  std::ofstream(file, std::ios::binary) << "name = \"Best\xc3\xa4tigung\"\n[queue]\nflavour = \"sq\xc3\xa4\"\n"
                                           "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 5\n";
  const run_result bad = run("run " + file.string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("found string \"sq\xc3\xa4\"") != std::string::npos);
  CHECK(bad.out.find("\\x") == std::string::npos);
  const run_result dur = run("explore --runs 1 --time-limit 10s\xc3\xa4 " + scenario("double_refund.toml"));
  CHECK(dur.exit_code == 2);
  CHECK(dur.out.find("unexpected character '\xc3\xa4' at position 3") != std::string::npos);
  // A name that loads prints as written.
  const auto good = temp_dir() / "umlaut-name.toml";
  std::ofstream(good, std::ios::binary)
      << "name = \"Best\xc3\xa4tigung\"\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\n"
         "amount_cents = 5\n";
  CHECK(run("run --quiet " + good.string()).out.starts_with("== Best\xc3\xa4tigung ("));
}

namespace {
// The benchmarks' steady traffic cut to 1,000 jobs: some 23,000 events, so
// the world calls the progress hook several times.
std::filesystem::path busy_scenario() {
  std::string s = twice::test::read_text(std::string(TWICE_SOURCE_DIR) + "/bench/scenarios/steady_traffic.toml");
  const std::string count = "count = 10000";
  REQUIRE(s.find(count) != std::string::npos);
  s.replace(s.find(count), count.size(), "count = 1000");
  const auto file = temp_dir() / "steady_1000.toml";
  std::ofstream(file) << s;
  return file;
}

// `twice ARGS` on a pseudo-terminal (util-linux's script): what the terminal shows.
std::string on_terminal(const std::string& args) {
  const std::string command = "script -qfec '" + std::string(TWICE_BINARY) + " " + args + "' /dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}
}  // namespace

TEST_CASE("twice run shows a progress line on a terminal, and only there", "[cli]") {
  const std::string file = busy_scenario().string();
  const std::string erase = "\r\033[K";
  const std::string shown = on_terminal("run --quiet " + file);
  INFO(shown.substr(0, 300));
  CHECK(shown.find(erase + "steady_traffic: ") != std::string::npos);
  CHECK(shown.find(" events, ") != std::string::npos);
  CHECK(shown.find("/1000 jobs ended") != std::string::npos);
  // Erased before the results print.
  CHECK(shown.find(erase + "== steady_traffic") != std::string::npos);
  CHECK(shown.find("expectations met") != std::string::npos);

  // --json is for machines, even on a terminal.
  CHECK(on_terminal("run --quiet --json " + file).find("jobs ended") == std::string::npos);

  // Through a pipe: not one byte of it, on stdout or stderr.
  const auto err = temp_dir() / "progress-stderr.txt";
  const run_result piped = run("run --quiet " + file, err.string());
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find('\r') == std::string::npos);
  CHECK(piped.out.find("jobs ended") == std::string::npos);
  std::ifstream err_in(err);
  const std::string err_text((std::istreambuf_iterator<char>(err_in)), std::istreambuf_iterator<char>());
  CHECK(err_text.empty());
}

TEST_CASE("twice sweep shows its runs on a terminal, and only there", "[cli][sweep]") {
  const std::string args = "sweep " + scenario("double_refund.toml") + " --vary workers.count=1,2 --seeds 2 --jobs 1";
  const std::string erase = "\r\033[K";
  const std::string shown = on_terminal(args);
  INFO(shown.substr(0, 300));
  // At least the first finished run is drawn, then erased before the table.
  CHECK(shown.find(erase + "sweep double_refund: ") != std::string::npos);
  CHECK(shown.find("/4 runs, ") != std::string::npos);
  CHECK(shown.find(erase + "twice sweep ") != std::string::npos);
  CHECK(on_terminal(args + " --json").find("/4 runs") == std::string::npos);
  // Through a pipe: not a byte of it.
  const auto err = temp_dir() / "sweep-progress-stderr.txt";
  const run_result piped = run(args, err.string());
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find('\r') == std::string::npos);
  std::ifstream err_in(err);
  CHECK(std::string(std::istreambuf_iterator<char>(err_in), std::istreambuf_iterator<char>()).empty());
}

namespace {
// Every line of `text` as a JSON object (a line that does not parse fails the test).
std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    INFO(line);
    REQUIRE_NOTHROW(out.push_back(nlohmann::json::parse(line)));
    REQUIRE(out.back().is_object());
  }
  return out;
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("twice run --progress json writes NDJSON progress on stderr, even in a pipe", "[cli]") {
  const std::string file = busy_scenario().string();
  const auto err = temp_dir() / "progress-json-stderr.txt";
  const run_result r = run("run --quiet --progress json " + file, err.string());
  CHECK(r.exit_code == 0);
  // stdout is what it was without progress.
  CHECK(r.out == run("run --quiet " + file).out);
  const std::vector<nlohmann::json> lines = json_lines(file_text(err));
  REQUIRE(lines.size() >= 2);  // the first hook's call, then the final line
  std::uint64_t events = 0;
  for (const nlohmann::json& l : lines) {
    CHECK(l.at("command") == "run");
    CHECK(l.at("scenario") == "steady_traffic");
    CHECK(l.at("jobs_total") == 1000);
    CHECK(l.at("elapsed_s").is_number());
    CHECK(l.at("events").get<std::uint64_t>() >= events);  // counts only grow
    events = l.at("events").get<std::uint64_t>();
    CHECK(l.contains("final") == (&l == &lines.back()));
  }
  // The last reports the run's final counts, as --json does.
  const nlohmann::json summary = nlohmann::json::parse(run("run --json " + file).out);
  CHECK(lines.back().at("final") == true);
  CHECK(lines.back().at("events") == summary.at("events"));
  CHECK(lines.back().at("sim_time_us") == summary.at("sim_time_us"));
  CHECK(lines.back().at("jobs_ended") == 1000);

  // With --json on stdout too: both machine formats, each on its stream.
  const auto err2 = temp_dir() / "progress-json-stderr-2.txt";
  const run_result both =
      run("run --json --progress json --check-determinism " + scenario("double_refund.toml"), err2.string());
  CHECK(nlohmann::json::parse(both.out).at("scenario") == "double_refund");
  const std::vector<nlohmann::json> finals = json_lines(file_text(err2));
  REQUIRE(finals.size() == 2);  // one final line per run; the story is too short for the hook
  CHECK(finals[0].at("final") == true);
  CHECK(!finals[0].contains("pass"));
  CHECK(finals[1].at("pass") == 2);
  CHECK(finals[1].at("events") == 70);
  CHECK(finals[1].at("jobs_ended") == 1);

  // none: not even on a terminal; a word it does not know is bad usage.
  CHECK(on_terminal("run --quiet --progress none " + file).find("jobs ended") == std::string::npos);
  const run_result bad = run("run --progress xml " + file);
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("--progress: expected auto, json or none, found \"xml\"") != std::string::npos);
}

TEST_CASE("twice sweep --progress json ends with the runs done", "[cli][sweep]") {
  const auto err = temp_dir() / "sweep-progress-json.txt";
  const run_result r = run(
      "sweep " + scenario("double_refund.toml") + " --vary workers.count=1,2 --seeds 2 --jobs 1 --progress json --json",
      err.string());
  CHECK(r.exit_code == 0);
  CHECK_NOTHROW(nlohmann::json::parse(r.out));
  const std::vector<nlohmann::json> lines = json_lines(file_text(err));
  REQUIRE(!lines.empty());
  for (const nlohmann::json& l : lines) {
    CHECK(l.at("command") == "sweep");
    CHECK(l.at("total") == 4);
  }
  CHECK(lines.back().at("final") == true);
  CHECK(lines.back().at("done") == 4);
}
