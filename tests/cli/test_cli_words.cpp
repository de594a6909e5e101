// `twice run`'s header and summary speak of the world the file describes:
// the tools it has (no payment vendor, no refunds, no ledgers where nothing
// refunds or moves money), a ledger line for every money tool of its own,
// and each broker's own schedule in the words its backoff lines use.

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_twice.hpp"

using Catch::Matchers::Contains;
using twice::test::run;

namespace {

const std::string source = TWICE_SOURCE_DIR;

// Writes `text` to a file of the test's own and returns its path.
std::string scenario_file(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("twice_words_" + name + ".toml");
  std::ofstream(path) << text;
  return path.string();
}

// The lines of `out` that start with `prefix`.
std::string lines_starting(const std::string& out, const std::string& prefix) {
  std::string found;
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t end = out.find('\n', at);
    const std::string line = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind(prefix, 0) == 0) found += line + "\n";
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return found;
}

// Welcome emails: a read and an email per job, nothing that refunds.
const std::string emails_only =
    "name = \"welcome_emails\"\nseed = 3\n"
    "[[job_type]]\nname = \"welcome\"\n"
    "steps = [{ tool = \"read\", target = \"user_{job}\" }, { tool = \"email\", target = \"user_{job}\" }]\n"
    "[[job]]\nid = \"job_1\"\ntype = \"welcome\"\n"
    "[[job]]\nid = \"job_2\"\ntype = \"welcome\"\n";

}  // namespace

TEST_CASE("run: a world without refunds has no vendor line, no refunds and no ledgers", "[cli][words]") {
  const twice::test::run_result r = run("run " + scenario_file("emails", emails_only) + " --quiet");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string header = r.out.substr(0, r.out.find("\noutcome"));
  CHECK_THAT(header, !Contains("vendor") && !Contains("refund"));
  const std::string summary =
      r.out.substr(r.out.find("\noutcome"), r.out.find("\ninvariants") - r.out.find("\noutcome"));
  CHECK_THAT(summary, !Contains("vendor") && !Contains("refund") && !Contains("ledger"));
  CHECK_THAT(summary, Contains("tools      email 2 calls") && Contains("           read 2 calls"));
}

TEST_CASE("run: a world that refunds names the payment vendor as a tool, and its ledger on a line of its own",
          "[cli][words]") {
  const twice::test::run_result r = run("run " + source + "/scenarios/double_refund.toml --quiet");
  INFO(r.out);
  CHECK_THAT(r.out, Contains("tool       refund: write (the payment vendor), keys stored_response for 24h, latency "
                             "fixed(400ms), client timeout 30s\n"));
  CHECK_THAT(r.out, !Contains("vendor     latency"));
  CHECK(lines_starting(r.out, "ledgers") == "ledgers    ours 1 row, 1999 cents\n");
  CHECK_THAT(r.out,
             Contains("ledgers    ours 1 row, 1999 cents\n           the payment vendor's 2 refunds, 3998 cents\n"));
}

TEST_CASE("run: a money tool of the scenario's own has its ledger line, and no refund is spoken of", "[cli][words]") {
  const twice::test::run_result r = run("run " + source + "/scenarios/billing_retry_double_charge.toml --quiet");
  INFO(r.out);
  const std::string summary =
      r.out.substr(r.out.find("\noutcome"), r.out.find("\ninvariants") - r.out.find("\noutcome"));
  CHECK_THAT(summary, Contains("ledgers    ours 300 rows, 360000 cents\n"
                               "           the charge tool's 332 rows, 398400 cents\n"));
  CHECK_THAT(summary, !Contains("refund") && !Contains("vendor"));
  // The tool's own line says what it was asked, its ledger is on its line.
  CHECK_THAT(summary, Contains("charge 332 calls: 332 executed, 32 timed out; at most 4 in one 100 ms\n"));
  CHECK_THAT(r.out, Contains("(not sent to the far side)"));
}

TEST_CASE("run: Sidekiq's header gives its own schedule, in the words its backoff lines use", "[cli][words][sidekiq]") {
  const std::string text =
      "name = \"sidekiq_retry\"\nseed = 3\n[queue]\nflavour = \"sidekiq\"\n[workers]\ncount = 1\n"
      "[vendor]\nlatency = { fixed = \"400ms\" }\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n"
      "[[fault]]\npoint = \"after_tool\"\nstep = 3\nmax_times = 2\naction = \"error\"\n";
  const twice::test::run_result r = run("run " + scenario_file("sidekiq_retry", text));
  INFO(r.out);
  // No cap of its own: the bound is its last retry's longest wait, 24^4 + 15 + 249 s.
  CHECK(lines_starting(r.out, "retry ") ==
        "retry      Sidekiq's schedule (retry n waits n^4 + 15 s + rand(10(n+1)) s), no cap: its last retry waits at "
        "most 92h14m, max attempts 26\n");
  CHECK_THAT(r.out, Contains("(to the retry set; Sidekiq's schedule, no cap: its last retry waits at most "
                             "92h14m): injected error at after_tool"));
  CHECK_THAT(r.out, !Contains("(nack; cap") && !Contains("cap NONE") && !Contains("initial 1s"));
  // A fetch holds no lease: nothing to heartbeat.
  CHECK(lines_starting(r.out, "workers") == "workers    1 on v1, BRPOP timeout 2s, restart after 10s\n");
}

TEST_CASE("run: a cap the file sets is the cap the header and the backoff lines give", "[cli][words]") {
  const std::string text =
      "name = \"capped\"\nseed = 3\n[queue]\nflavour = \"sidekiq\"\n[workers]\ncount = 1\n"
      "[retry]\nmaximum_interval = \"30s\"\n[vendor]\nlatency = { fixed = \"400ms\" }\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n"
      "[[fault]]\npoint = \"after_tool\"\nstep = 3\nmax_times = 1\naction = \"error\"\n";
  const twice::test::run_result r = run("run " + scenario_file("capped", text));
  INFO(r.out);
  CHECK_THAT(lines_starting(r.out, "retry "), Contains(", cap 30s, max attempts 26"));
  CHECK_THAT(r.out, Contains("(to the retry set; cap 30.000000s)"));
}

TEST_CASE("run: a Kafka consumer's header has no lease heartbeat or long poll", "[cli][words][kafka]") {
  const twice::test::run_result r = run("run " + source + "/scenarios/kafka_max_poll_interval.toml --quiet");
  INFO(r.out);
  CHECK(lines_starting(r.out, "workers") == "workers    2 on v1, restart after 10s\n");
}
