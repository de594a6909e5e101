// The retry budget (runtime/retry_budget.hpp): the AWS SDKs' standard-mode
// retry quota, its numbers and rules, and what it does to a retry storm.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/run_command.hpp"
#include <twice/scenario/scenario.hpp>
#include "runtime/retry_breaker.hpp"
#include "runtime/retry_budget.hpp"
#include "scenario_run.hpp"
#include "test_files.hpp"

using namespace twice;

TEST_CASE("the SDKs' numbers: 500 tokens, 5 a retry, 10 after a timeout, 1 back per first-try success",
          "[retry_budget]") {
  const retry_budget_config c;
  CHECK(c.tokens == 500);
  CHECK(c.retry_cost == 5);
  CHECK(c.timeout_cost == 10);
  CHECK(c.success_refund == 1);

  retry_budget b(c);
  // 50 retries after timeouts empty the bucket; the 51st is refused.
  for (int i = 0; i < 50; ++i) REQUIRE(b.try_retry(true));
  CHECK(b.available() == 0);
  CHECK_FALSE(b.try_retry(false));
  CHECK(b.refused() == 1);
  // Successes refill it: a first attempt by 1, a retry by what it cost.
  for (int i = 0; i < 4; ++i) b.on_success(false, 0);
  CHECK(b.available() == 4);
  CHECK_FALSE(b.try_retry(false));  // 5 needed
  b.on_success(true, 10);
  CHECK(b.available() == 14);
  CHECK(b.try_retry(true));
  CHECK(b.available() == 4);
  // Never above its size.
  for (int i = 0; i < 1000; ++i) b.on_success(true, 5);
  CHECK(b.available() == 500);
}

TEST_CASE("Brooker's adaptive retries: every success puts back the same part of a token", "[retry_budget]") {
  // In tenths: a bucket of 5 tokens, 1 a retry, 0.1 back per success.
  retry_budget b({.tokens = 50, .retry_cost = 10, .timeout_cost = 10, .success_refund = 1, .retry_success_refund = 1});
  for (int i = 0; i < 5; ++i) REQUIRE(b.try_retry(false));
  CHECK_FALSE(b.try_retry(false));
  b.on_success(true, 10);  // a retry that succeeded: 0.1, not the 1 it cost
  CHECK(b.available() == 1);
  for (int i = 0; i < 9; ++i) b.on_success(false, 0);
  CHECK(b.try_retry(false));  // ten successes buy one retry
}

TEST_CASE("Brooker's simulation: the bucket fills per call; the breaker of retries counts a client's life",
          "[retry_budget]") {
  retry_budget b({.tokens = 50, .retry_cost = 10, .timeout_cost = 10, .success_refund = 1, .refill_per_call = true});
  for (int i = 0; i < 5; ++i) REQUIRE(b.try_retry(false));
  b.on_success(false, 0);  // a success puts nothing back
  CHECK(b.available() == 0);
  for (int i = 0; i < 10; ++i) b.on_first_try();  // every call puts 0.1 in as it starts
  CHECK(b.try_retry(false));

  retry_breaker breaker({.failure_percent = 10});
  for (int i = 0; i < 20; ++i) breaker.on_first_try();
  CHECK(breaker.on_failure());        // 1 of 20 calls failed: 5%
  CHECK(breaker.on_failure());        // 10%: still at most
  CHECK_FALSE(breaker.on_failure());  // 15%: no more retries
  for (int i = 0; i < 20; ++i) breaker.on_first_try();
  CHECK(breaker.on_failure());  // 4 failures of 40 calls: 10% again
}

TEST_CASE("a retry budget ends the storm that a far side serving stale work keeps going", "[retry_budget][world]") {
  const std::filesystem::path dir = twice::test::repo_root() / "scenarios";
  auto run = [&](const char* name) {
    load_result r = load_scenario_file((dir / name).string());
    REQUIRE(r.ok());
    return cli::run_one(*r.value, false).summary;
  };
  const run_summary storm = run("retry_storm.toml");
  const run_summary budget = run("retry_storm_budget.toml");
  // Same arrivals, same trigger. Without a budget the jobs after the
  // trigger never succeed; with one, checks succeed again once the buckets
  // have run dry, and far fewer calls are made.
  CHECK(storm.jobs_total == budget.jobs_total);
  CHECK(budget.jobs_succeeded > 2 * storm.jobs_succeeded);
  CHECK(budget.jobs_succeeded + budget.jobs_dead_lettered == budget.jobs_total);
  REQUIRE(storm.tools.size() == 1);
  REQUIRE(budget.tools.size() == 1);
  CHECK(budget.tools[0].calls * 2 < storm.tools[0].calls);
  CHECK(budget.result.story_end < storm.result.story_end);
}

TEST_CASE("[retry.budget] loads with the SDKs' defaults, and each key in range", "[retry_budget][scenario]") {
  const std::string job = "[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 1\n";
  const load_result none = load_scenario_text(job, "t.toml");
  REQUIRE(none.ok());
  CHECK_FALSE(none.value->world.runtime.retry_budget.has_value());
  const load_result defaults = load_scenario_text("[retry.budget]\n" + job, "t.toml");
  REQUIRE(defaults.ok());
  REQUIRE(defaults.value->world.runtime.retry_budget.has_value());
  CHECK(defaults.value->world.runtime.retry_budget->tokens == 500);
  const load_result bad = load_scenario_text("[retry.budget]\nretry_cost = -1\n" + job, "t.toml");
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0].to_string() ==
        "t.toml:2:14: retry.budget.retry_cost: must be between 0 and 1000000 tokens, found -1");
}

namespace {
// One worker, in-slice retries, a bucket of 10 tokens that only a refund
// refills (a first try that succeeds puts nothing back), and a lookup that
// times out once for each of two jobs: a latency spike covers each job's
// first call (1 s client timeout), not its retry 100 ms later.
// `refund_line` is spliced into [retry.budget].
std::string timed_out_once_world(std::string_view refund_line) {
  return fmt::format(R"(seed = 1
[workers]
count = 1
[discipline]
retry = "in_slice"
[retry]
initial_interval = "100ms"
maximum_interval = "100ms"
jitter = "none"
maximum_attempts = 3
[retry.budget]
tokens = 10
retry_cost = 5
timeout_cost = 10
success_refund = 0
{}
[tools.lookup]
effect = "read"
latency = {{ fixed = "100ms" }}
client_timeout = "1s"
[[tools.lookup.latency_spike]]
start = "0s"
end = "1s"
extra = "5s"
[[tools.lookup.latency_spike]]
start = "60s"
end = "61s"
extra = "5s"
[[job]]
id = "first"
steps = [{{ tool = "lookup", target = "a" }}]
[[job]]
id = "second"
enqueue_at = "60s"
steps = [{{ tool = "lookup", target = "b" }}]
)",
                     refund_line);
}
}  // namespace

TEST_CASE("a worker refunds an in-slice retry that timed out and then succeeded: what it paid, through the world",
          "[retry_budget][world]") {
  // first's retry after its timeout takes all 10 tokens; its success must
  // put the 10 back (the SDKs: a retry that succeeds returns its cost, and
  // an in-slice retry's cost is known to the worker that paid it), or
  // second's retry after its own timeout finds the bucket short and second
  // is dead-lettered. A refund of the plain retry cost (5) would not do either.
  test::scenario_run run(timed_out_once_world(""));
  CHECK(run.w->refused().retries_by_budget == 0);
  std::vector<const sim::trace_record*> second;
  for (const sim::trace_record* r : run.records("attempt_start"))
    if (r->get_string("job") == "second") second.push_back(r);
  REQUIRE(second.size() == 2);
  CHECK(second[1]->get_int("receive_count") == 1);  // retried in the slice, same delivery
  CHECK(run.records("tool_call").size() == 4);
  CHECK(run.status_of("first") == job_status::done);
  CHECK(run.status_of("second") == job_status::done);
  // The same world whose successes put nothing back: second's retry is refused.
  test::scenario_run unrefunded(timed_out_once_world("retry_success_refund = 0"));
  CHECK(unrefunded.w->refused().retries_by_budget == 1);
  CHECK(unrefunded.status_of("second") == job_status::dead_lettered);
  // Half of it back is not enough either.
  test::scenario_run half(timed_out_once_world("retry_success_refund = 5"));
  CHECK(half.w->refused().retries_by_budget == 1);
}
