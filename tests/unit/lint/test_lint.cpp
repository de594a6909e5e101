// `twice lint`: a clean configuration gives no warning at all; each rule
// fires, alone, on the one setting that breaks it (naming that setting, why
// and the fix), and stays quiet once the setting is fixed or the condition is
// absent (a write-tool rule with no job calling that tool).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <twice/lint/lint.hpp>
#include "scenario/document.hpp"
#include "scenario/key_path.hpp"
#include <twice/scenario/scenario.hpp>
#include <twice/runtime/job.hpp>
#include <twice/runtime/job_type.hpp>
#include "test_files.hpp"
#include "test_worlds.hpp"

using namespace twice;
using sim::duration;

namespace {

// The defaults plus one agent job (read, model, refund), a heartbeat, and a
// dead-letter threshold equal to the attempts: what a careful team ships.
world_config clean_config() {
  world_config c;
  c.jobs.push_back(agent_job("job_1", "inv_1", 500));
  c.runtime.heartbeat_interval = duration::from_s(5);
  c.queue.max_receive_count = c.runtime.retry.maximum_attempts;
  return c;
}

// clean_config() as a Kafka consumer reading from the earliest offset: no
// lease, no redrive, retries in place.
world_config clean_kafka_config() {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.queue.max_receive_count = 0;
  c.dead_letter_queue = false;
  c.runtime.kafka.emplace();
  c.runtime.kafka->reset_to_earliest = true;
  c.runtime.rules.retry = retry_mode::in_slice;
  return c;
}

// clean_config() as the Sidekiq flavour makes it: a job held until its ack,
// Sidekiq's schedule and 25 retries, the dead set.
world_config clean_sidekiq_config() {
  world_config c = clean_config();
  c.queue.hold_until_ack = true;
  c.runtime.heartbeat_interval.reset();
  c.queue.max_receive_count = 0;
  c.runtime.retry.jitter = jitter_kind::sidekiq;
  c.runtime.retry.maximum_interval.reset();
  c.runtime.retry.maximum_attempts = 26;
  c.runtime.count_attempts = attempt_counting::at_failure;
  c.dead_letter.dead_set = true;
  return c;
}

bool fires(const world_config& c, std::string_view rule) {
  for (const lint_warning& w : lint(c)) {
    if (w.rule == rule) return true;
  }
  return false;
}

// The one warning `c` produces; fails the test if there is not exactly one.
lint_warning only_warning(const world_config& c) {
  const std::vector<lint_warning> ws = lint(c);
  std::string printed;
  for (const lint_warning& w : ws) printed += format_warning(w);
  INFO(printed);
  REQUIRE(ws.size() == 1);
  CHECK_FALSE(ws[0].fix.empty());
  return ws[0];
}

using Catch::Matchers::Contains;

}  // namespace

TEST_CASE("a clean configuration gives no warning", "[lint]") {
  const world_config c = clean_config();
  // The defaults the baseline relies on: the model's p99 (20 s) fits the
  // 30 s lease, the heartbeat is a sixth of it, jitter and a cap are on.
  REQUIRE(c.model.latency.p99() == duration::from_s(20));
  REQUIRE(c.queue.visibility_timeout == duration::from_s(30));
  CHECK(lint(c).empty());

  world_config with_email = c;
  with_email.jobs.push_back(agent_job("job_2", "inv_2", 700, true));
  CHECK(lint(with_email).empty());

  CHECK(lint_rules.size() == 41);
}

// ---- 1. write_without_key ------------------------------------------------------

TEST_CASE("write_without_key: a refund with no key", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.key = key_mode::none;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "write_without_key");
  CHECK(w.setting == "discipline.key");
  CHECK_THAT(w.why, Contains("job_1 step 3 refunds 500 cents") && Contains("refunds again"));
  CHECK_THAT(w.fix, Contains("job_1:step_3:refund"));
}

TEST_CASE("write_without_key: a key the vendor never sees", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.pass_key_to_vendor = false;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "write_without_key");
  CHECK(w.setting == "discipline.pass_key_to_vendor");
  CHECK_THAT(w.why, Contains("never sent"));
}

TEST_CASE("write_without_key: quiet with a stable key passed on, or with no write", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.key = key_mode::stable;
  c.runtime.rules.pass_key_to_vendor = true;
  CHECK_FALSE(fires(c, "write_without_key"));

  // No key, but nothing writes through the vendor.
  c.runtime.rules.key = key_mode::none;
  c.jobs[0].steps.pop_back();  // drop the refund: read, model
  CHECK(lint(c).empty());
}

// ---- 2. visibility_below_tool_p99 --------------------------------------------------

TEST_CASE("visibility_below_tool_p99: a 10 s lease over a 20 s model call with no heartbeat", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.runtime.visibility_timeout = duration::from_s(10);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "visibility_below_tool_p99");
  CHECK(w.setting == "runtime.visibility_timeout");
  CHECK_THAT(w.why, Contains("visibility timeout 10s is below the model tool's p99 latency 20s") &&
                        Contains("job_1 step 2") && Contains("a second worker receives the message"));
}

TEST_CASE("visibility_below_tool_p99: the queue's lease when the runtime sets none", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.queue.visibility_timeout = duration::from_s(10);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "visibility_below_tool_p99");
  CHECK(w.setting == "queue.visibility_timeout");
  CHECK_THAT(w.why, Contains("visibility timeout 10s"));
}

TEST_CASE("visibility_below_tool_p99: a caller waits at most its client timeout", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.runtime.visibility_timeout = duration::from_s(40);
  c.model.latency = latency_model::lognormal(duration::from_s(10), duration::from_s(60));
  c.model.client_timeout = duration::from_s(45);
  const std::vector<lint_warning> ws = lint(c);
  REQUIRE(ws.size() == 2);  // and the timeout below the p99 is a warning of its own
  const lint_warning& w = ws[0];
  CHECK(w.rule == "visibility_below_tool_p99");
  CHECK_THAT(w.why, Contains("client timeout 45s") && Contains("p99 1m"));
  CHECK(ws[1].rule == "client_timeout_below_p99");

  c.model.client_timeout = duration::from_s(30);  // the call ends inside the lease
  CHECK_FALSE(fires(c, "visibility_below_tool_p99"));
}

TEST_CASE("visibility_below_tool_p99: a split tool is measured against the split queue's lease", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.model.latency = latency_model::fixed(duration::from_s(100));
  c.model.client_timeout = duration::from_s(300);
  const lint_warning unsplit = only_warning(c);
  CHECK(unsplit.setting == "queue.visibility_timeout");
  CHECK_THAT(unsplit.fix, Contains("[split] tool = \"model\""));

  c.runtime.rules.split_tool = "model";  // the split queue's 15 min lease fits the call
  CHECK(lint(c).empty());

  c.split.queue.visibility_timeout = duration::from_s(60);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "visibility_below_tool_p99");
  CHECK(w.setting == "split.visibility_timeout");
  CHECK_THAT(w.why, Contains("visibility timeout 1m is below the model tool's p99 latency 1m40s"));
}

TEST_CASE("visibility_below_tool_p99: a slow write is never offered the split", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.payments.latency = latency_model::fixed(duration::from_s(40));
  c.payments.client_timeout = duration::from_s(60);
  const lint_warning w = only_warning(c);
  CHECK_THAT(w.why, Contains("refund tool"));
  CHECK_FALSE(w.fix.find("[split]") != std::string::npos);
}

TEST_CASE("visibility_below_tool_p99: quiet with a heartbeat, or a lease above the p99", "[lint]") {
  world_config c = clean_config();
  c.runtime.visibility_timeout = duration::from_s(10);
  c.runtime.heartbeat_interval = duration::from_s(3);
  CHECK_FALSE(fires(c, "visibility_below_tool_p99"));

  c.runtime.heartbeat_interval.reset();
  c.runtime.visibility_timeout = duration::from_s(30);
  CHECK(lint(c).empty());

  // A short lease, but no job calls the slow tool.
  c.runtime.visibility_timeout = duration::from_s(10);
  c.jobs[0].steps.erase(c.jobs[0].steps.begin() + 1);  // read, refund
  CHECK(lint(c).empty());
}

// ---- 3. heartbeat_too_slow -------------------------------------------------------

TEST_CASE("heartbeat_too_slow: a 20 s heartbeat on a 30 s lease", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval = duration::from_s(20);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "heartbeat_too_slow");
  CHECK(w.setting == "runtime.heartbeat_interval");
  CHECK_THAT(w.why, Contains("heartbeat every 20s against a visibility timeout of 30s") &&
                        Contains("one lost or late heartbeat loses the lease"));
  CHECK_THAT(w.fix, Contains("10s"));
}

TEST_CASE("heartbeat_too_slow: a heartbeat slower than the lease", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval = duration::from_s(45);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "heartbeat_too_slow");
  CHECK_THAT(w.why, Contains("expires before the first heartbeat"));
}

TEST_CASE("heartbeat_too_slow: quiet at half the lease or below", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval = duration::from_s(10);
  CHECK(lint(c).empty());
  c.runtime.heartbeat_interval = duration::from_s(15);
  CHECK(lint(c).empty());
}

// ---- 4. no_backoff_cap -------------------------------------------------------------

TEST_CASE("no_backoff_cap: no maximum interval", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.maximum_interval.reset();
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "no_backoff_cap");
  CHECK(w.setting == "retry.maximum_interval");
  // 1 s doubling: retry #10 waits 2^9 s; 2^16 s is the first past 12 h.
  CHECK_THAT(w.why, Contains("2.0x per retry from 1s") && Contains("retry #10 waits 8m32s") &&
                        Contains("retry #17 passes 12h"));
  CHECK_THAT(w.fix, Contains("1m40s"));
}

TEST_CASE("no_backoff_cap: quiet with a cap, or a flat backoff", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.maximum_interval = duration::from_s(100);
  CHECK(lint(c).empty());

  c.runtime.retry.maximum_interval.reset();
  c.runtime.retry.coefficient_milli = 1000;  // nothing grows, nothing to cap
  CHECK(lint(c).empty());
}

// ---- 5. no_jitter ----------------------------------------------------------------------

TEST_CASE("no_jitter: no jitter with two workers", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.jitter = jitter_kind::none;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "no_jitter");
  CHECK(w.setting == "retry.jitter");
  CHECK_THAT(w.why, Contains("no jitter with 2 workers") && Contains("(1s, 2s, 4s ...)") && Contains("stampede"));
}

TEST_CASE("no_jitter: quiet with jitter, or with one worker", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.jitter = jitter_kind::full;
  CHECK(lint(c).empty());
  c.runtime.retry.jitter = jitter_kind::none;
  c.workers = 1;
  CHECK(lint(c).empty());
}

// ---- 6. retries_non_retryable ---------------------------------------------------------

TEST_CASE("retries_non_retryable: 400s retried like 503s", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.retry_non_retryable = true;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "retries_non_retryable");
  CHECK(w.setting == "discipline.retry_non_retryable");
  CHECK_THAT(w.why, Contains("burns all 5 attempts"));
}

TEST_CASE("retries_non_retryable: quiet when 400s fail at once", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.retry_non_retryable = false;
  CHECK_FALSE(fires(c, "retries_non_retryable"));
}

// ---- 7. attempts_reset_on_reenqueue -----------------------------------------------------

TEST_CASE("attempts_reset_on_reenqueue: the counter goes back to 0", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "attempts_reset_on_reenqueue");
  CHECK(w.setting == "discipline.reset_attempts_on_reenqueue");
  CHECK_THAT(w.why, Contains("goes back to 0 on every delivery (a nack, a crash, a lease that ran out)") &&
                        Contains("retry.maximum_attempts = 5 is never reached across deliveries") &&
                        Contains("queue.max_receive_count = 5 deliveries"));
}

TEST_CASE("attempts_reset_on_reenqueue: quiet when the counter only goes up", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.reset_attempts_on_reenqueue = false;
  CHECK_FALSE(fires(c, "attempts_reset_on_reenqueue"));
}

TEST_CASE("attempts_reset_on_reenqueue: a crash redelivery resets too, whatever the retry mode", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  // Retries slept inside the slice still count up within a delivery; a
  // crash's redelivery starts the count again.
  c.runtime.rules.retry = retry_mode::in_slice;
  CHECK_THAT(only_warning(c).why, Contains("a message whose slice crashes or outlives its lease on every delivery"));
  // One attempt: the first failure dead-letters the job, a crash loop does not.
  c.runtime.rules.retry = retry_mode::nack;
  c.runtime.retry.maximum_attempts = 1;
  CHECK_THAT(only_warning(c).why, Contains("a message whose slice crashes"));
}

// ---- 12. dead_letter_threshold ---------------------------------------------------------
// Two bounds, as the runtime and the broker apply them: the attempt counter
// on the job row (it goes up when a slice starts, so it bounds crash loops
// and failures alike, unless reset on every delivery), and the broker's redrive
// (it counts deliveries, so it bounds crash loops and nacked failures, not
// retries slept inside one slice). The rule fires only when some path has
// neither.

namespace {
// Bounded only by the attempts: no redrive at all.
world_config attempts_only() {
  world_config c = clean_config();
  c.queue.max_receive_count = 0;
  return c;
}

lint_warning dead_letter_warning(const world_config& c) {
  const std::vector<lint_warning> ws = lint(c);
  std::string printed;
  for (const lint_warning& w : ws) printed += format_warning(w);
  INFO(printed);
  auto is_dead_letter = [](const lint_warning& w) { return w.rule == "dead_letter_threshold"; };
  const auto it = std::find_if(ws.begin(), ws.end(), is_dead_letter);
  REQUIRE(it != ws.end());
  CHECK(std::count_if(ws.begin(), ws.end(), is_dead_letter) == 1);
  return *it;
}
}  // namespace

TEST_CASE("dead_letter_threshold: quiet when only the attempts bound deliveries", "[lint]") {
  // The defaults: 5 attempts, no redrive policy. A crash loop is dead-lettered
  // by the runtime at the sixth delivery; a failing job after its fifth attempt.
  world_config c = attempts_only();
  CHECK(lint(c).empty());
  // No dead-letter queue at all: the runtime still ends the job (its row says
  // dead_lettered) and acks the message.
  c.dead_letter_queue = false;
  CHECK(lint(c).empty());
  // Retries slept inside the slice count on the same row.
  c.runtime.rules.retry = retry_mode::in_slice;
  CHECK(lint(c).empty());
}

TEST_CASE("dead_letter_threshold: quiet when only the redrive bounds deliveries", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.maximum_attempts = 0;  // unlimited
  c.queue.max_receive_count = 5;
  CHECK(lint(c).empty());
  // A redrive threshold above the attempts is no mistake: the runtime
  // dead-letters the job first, and the margin absorbs lost leases.
  c.runtime.retry.maximum_attempts = 5;
  c.queue.max_receive_count = 20;
  CHECK(lint(c).empty());
}

TEST_CASE("dead_letter_threshold: unlimited attempts and no redrive", "[lint]") {
  world_config c = attempts_only();
  c.runtime.retry.maximum_attempts = 0;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "dead_letter_threshold");
  CHECK(w.setting == "retry.maximum_attempts");
  CHECK_THAT(w.why, Contains("retry.maximum_attempts is unlimited, and there is no redrive (queue.max_receive_count "
                             "is not set)") &&
                        Contains("a job that keeps failing is re-enqueued forever") &&
                        Contains("crashes its worker or outlives its lease on every delivery comes back every 30s "
                                 "forever") &&
                        Contains("until the queue's retention, 96h, drops it") &&
                        Contains("neither is ever dead-lettered"));
  CHECK_THAT(w.fix,
             Contains("Set retry.maximum_attempts (e.g. 5)") && Contains("Or set queue.max_receive_count (e.g. 5)"));

  c.dead_letter_queue = false;
  const lint_warning no_dlq = only_warning(c);
  CHECK(no_dlq.setting == "retry.maximum_attempts");
  CHECK_THAT(no_dlq.why, Contains("there is no redrive (the dead-letter queue is disabled)"));
  CHECK_THAT(no_dlq.fix, Contains("Or enable the dead-letter queue (dead_letter_queue.enabled = true) and set "
                                  "queue.max_receive_count"));
}

TEST_CASE("dead_letter_threshold: the attempts reset on every delivery and no redrive", "[lint]") {
  world_config c = attempts_only();
  c.runtime.retry.maximum_attempts = 3;
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  CHECK(fires(c, "attempts_reset_on_reenqueue"));
  const lint_warning w = dead_letter_warning(c);
  CHECK(w.setting == "queue.max_receive_count");
  CHECK_THAT(w.why, Contains("a failing job never reaches retry.maximum_attempts = 3") &&
                        Contains("a job that keeps failing is re-enqueued forever") &&
                        Contains("comes back every 30s forever") && Contains("neither is ever dead-lettered"));
  CHECK_THAT(w.fix, Contains("Set queue.max_receive_count (3, the retry policy's attempts)") &&
                        Contains("Or set discipline.reset_attempts_on_reenqueue = false"));

  c.dead_letter_queue = false;
  CHECK(dead_letter_warning(c).setting == "dead_letter_queue.enabled");
}

TEST_CASE("dead_letter_threshold: with the reset, only a redrive bounds a crash loop", "[lint]") {
  world_config c = attempts_only();
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  // A redrive counts the deliveries the reset cannot undo.
  c.queue.max_receive_count = 5;
  CHECK_FALSE(fires(c, "dead_letter_threshold"));
  c.queue.max_receive_count = 0;
  REQUIRE(fires(c, "dead_letter_threshold"));
  // One attempt allowed: the first failure dead-letters the job, but every
  // crash's redelivery starts the count again.
  c.runtime.retry.maximum_attempts = 1;
  CHECK_THAT(dead_letter_warning(c).why, Contains("a crash loop never reaches retry.maximum_attempts = 1") &&
                                             Contains("comes back every") && !Contains("re-enqueued forever"));
  // Retries inside the slice count up within a delivery: a failing job is
  // dead-lettered, a crash loop is not.
  c.runtime.retry.maximum_attempts = 5;
  c.runtime.rules.retry = retry_mode::in_slice;
  CHECK_THAT(dead_letter_warning(c).why, Contains("comes back every") && !Contains("retried forever"));
  // Without the reset, the count bounds both.
  c.runtime.rules.reset_attempts_on_reenqueue = false;
  CHECK_FALSE(fires(c, "dead_letter_threshold"));
}

TEST_CASE("dead_letter_threshold: unlimited retries inside the slice escape the redrive", "[lint]") {
  world_config c = clean_config();  // a redrive after 5 receives
  c.runtime.retry.maximum_attempts = 0;
  c.runtime.rules.retry = retry_mode::in_slice;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "dead_letter_threshold");
  CHECK(w.setting == "retry.maximum_attempts");
  CHECK_THAT(w.why, Contains("the broker's redrive counts deliveries") &&
                        Contains("retried forever inside the slice that received it") &&
                        Contains("still redriven after queue.max_receive_count = 5 deliveries"));
  CHECK_THAT(w.fix, Contains("Set retry.maximum_attempts (e.g. 5)") && !Contains("max_receive_count"));
}

TEST_CASE("dead_letter_threshold: the split queue needs its own redrive", "[lint]") {
  world_config c = clean_config();  // the jobs' queue redrives after 5 receives
  c.runtime.retry.maximum_attempts = 0;
  c.runtime.rules.split_tool = "model";
  c.split.queue.max_receive_count = 0;
  const lint_warning w = only_warning(c);
  CHECK(w.setting == "retry.maximum_attempts");
  CHECK_THAT(w.why, Contains("there is no redrive (split.max_receive_count is not set)") &&
                        Contains("comes back every 15m forever"));
  CHECK_THAT(w.fix, Contains("Or set split.max_receive_count"));

  c.split.queue.max_receive_count = 5;
  CHECK(lint(c).empty());
  // Nothing is split off when no job calls the tool.
  c.split.queue.max_receive_count = 0;
  c.runtime.rules.split_tool = "email";
  CHECK(lint(c).empty());
}

// ---- 13. write_without_claim ------------------------------------------------------------

TEST_CASE("write_without_claim: an email with no local record", "[lint]") {
  world_config c = clean_config();
  c.jobs[0] = agent_job("job_1", "inv_1", 500, true);
  c.runtime.rules.claimed_tools.clear();
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "write_without_claim");
  CHECK(w.setting == "tools.email.claim");
  CHECK_THAT(w.fix, Contains("[tools.email] claim = true"));
  CHECK_THAT(w.why, Contains("job_1 step 4 sends email through a provider that takes no idempotency key") &&
                        Contains("emails the customer again"));
}

TEST_CASE("write_without_claim: quiet with a claim, with a keyed email, or with no email", "[lint]") {
  world_config c = clean_config();
  c.jobs[0] = agent_job("job_1", "inv_1", 500, true);
  c.runtime.rules.claimed_tools = {"email"};
  CHECK(lint(c).empty());

  c.runtime.rules.claimed_tools.clear();
  c.email.keys = key_handling::dedupe;  // the provider dedupes on the key: nothing to claim
  CHECK(lint(c).empty());

  c.email.keys = key_handling::ignored;
  c.jobs[0] = agent_job("job_1", "inv_1", 500, false);
  CHECK(lint(c).empty());
}

// ---- 14. batch_without_item_progress ----------------------------------------------------

job_type email_batch(progress_mode progress) { return {"statements", progress, {{"email", "customer", 0, 5}}}; }

TEST_CASE("batch_without_item_progress: a batch of bare emails recorded only at its end", "[lint]") {
  world_config c = clean_config();
  c.jobs.push_back(make_job(email_batch(progress_mode::per_step), "batch_1"));
  c.runtime.rules.claimed_tools = {"email"};
  CHECK(lint(c).empty());  // a claim per item: each send at most once

  c.runtime.rules.claimed_tools.clear();
  CHECK(fires(c, "write_without_claim"));
  const std::vector<lint_warning> ws = lint(c);
  REQUIRE(ws.size() == 2);
  const lint_warning& w = ws[1];
  CHECK(w.rule == "batch_without_item_progress");
  CHECK(w.setting == "job_type \"statements\" progress");
  // Item 5 is the batch's recorded end; items 1..4 are not recorded.
  CHECK_THAT(w.why, Contains("batch_1 step 1 calls email with no key") && Contains("done twice"));
  CHECK_THAT(w.fix, Contains("progress = \"per_item\""));
}

TEST_CASE("batch_without_item_progress: per-item progress, or a refund keyed, is quiet", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.claimed_tools.clear();
  c.jobs.push_back(make_job(email_batch(progress_mode::per_item), "batch_1"));
  CHECK_FALSE(fires(c, "batch_without_item_progress"));

  // Refunds in a job whose progress lives in the ack: safe while the key reaches the vendor.
  world_config r = clean_config();
  r.jobs.push_back(make_job({"payouts", progress_mode::none, {{"refund", "inv_{job}", 100, 3}}}, "payout_1"));
  CHECK(lint(r).empty());
  r.runtime.rules.pass_key_to_vendor = false;
  CHECK(fires(r, "batch_without_item_progress"));
  // A job with its own steps names the job, not a type.
  r.jobs.back().type.clear();
  CHECK(lint(r).back().setting == "job \"payout_1\" progress");
}

// ---- 15. retries_without_budget ---------------------------------------------------------

TEST_CASE("retries_without_budget: a few servers serving stale work, and retries with no budget", "[lint]") {
  world_config c = clean_config();
  c.read.pool.servers = 4;
  c.read.client_timeout = duration::from_s(1);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "retries_without_budget");
  CHECK(w.setting == "retry.budget");
  CHECK_THAT(w.why, Contains("job_1 step 1 calls the read tool, which has 4 servers") && Contains("1s client timeout"));
  CHECK_THAT(w.fix, Contains("tools.read.queue_timeout"));
  // The payment vendor is a tool like the others: its pool counts too, by the name steps call it.
  c.read.pool.servers = 0;
  c.payments.pool.servers = 2;
  const lint_warning vendor = only_warning(c);
  CHECK(vendor.rule == "retries_without_budget");
  CHECK_THAT(vendor.why, Contains("calls the refund tool, which has 2 servers"));
  // Its far side is [vendor] (or [tools.refund]), as vendor.client_timeout is.
  CHECK_THAT(vendor.fix, Contains("vendor.queue_timeout"));
}

TEST_CASE("retries_without_budget: quiet with a budget, a far side that sheds, or no retries", "[lint]") {
  world_config c = clean_config();
  c.read.pool.servers = 4;
  c.runtime.retry_budget = retry_budget_config{};
  CHECK(lint(c).empty());
  c.runtime.retry_budget.reset();
  c.runtime.circuit_breaker = circuit_breaker_config{};
  CHECK(lint(c).empty());
  c.runtime.circuit_breaker.reset();
  c.read.pool.queue_timeout = duration::from_s(1);
  CHECK(lint(c).empty());
  c.read.pool.queue_timeout.reset();
  c.read.pool.order = queue_order::lifo;
  CHECK(lint(c).empty());
  c.read.pool.order = queue_order::fifo;
  c.runtime.retry.maximum_attempts = 1;
  CHECK_FALSE(fires(c, "retries_without_budget"));
}

// ---- together ----------------------------------------------------------------------

TEST_CASE("warnings come in rule order and name the jobs that call a tool", "[lint]") {
  world_config c;  // the defaults: no heartbeat, no redrive threshold
  for (int i = 1; i <= 3; ++i) {
    c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100 * i, true));
  }
  c.runtime.visibility_timeout = duration::from_s(10);
  c.runtime.retry.maximum_interval.reset();
  c.runtime.retry.jitter = jitter_kind::none;
  c.runtime.rules.key = key_mode::none;
  c.runtime.rules.retry_non_retryable = true;
  c.runtime.rules.reset_attempts_on_reenqueue = true;
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;
  c.runtime.rules.hold_transaction_across_model = true;
  c.runtime.rules.claimed_tools.clear();
  deploy_spec kill;
  kill.strategy = deploy_strategy::rolling_kill;
  c.deploys = {kill, kill};

  std::vector<std::string> rules;
  for (const lint_warning& w : lint(c)) rules.push_back(w.rule);
  CHECK(rules == std::vector<std::string>{"write_without_key", "visibility_below_tool_p99", "no_backoff_cap",
                                          "no_jitter", "retries_non_retryable", "attempts_reset_on_reenqueue",
                                          "checkpoint_before_effect", "transaction_across_model",
                                          "rolling_kill_without_drain", "rolling_kill_without_drain",
                                          "dead_letter_threshold", "write_without_claim"});
  const std::vector<lint_warning> ws = lint(c);
  CHECK_THAT(ws[0].why, Contains("job_1 step 3 (and 2 other jobs)"));
  CHECK(ws[8].setting == "deploy[0].strategy");
  CHECK(ws[9].setting == "deploy[1].strategy");
  CHECK_THAT(ws[5].why, Contains("comes back forever, and nothing else stops it"));

  // Every rule id reported is a known one, in the declared order.
  std::size_t at = 0;
  for (const std::string& r : rules) {
    while (at < lint_rules.size() && lint_rules[at] != r) ++at;
    CHECK(at < lint_rules.size());
  }
}

TEST_CASE("format_warning prints the rule, the setting, why and the fix", "[lint]") {
  const lint_warning w{"no_jitter", "retry.jitter", "a stampede.", "Set retry.jitter = \"full\"."};
  CHECK(format_warning(w) ==
        "warning[no_jitter] retry.jitter\n"
        "  why: a stampede.\n"
        "  fix: Set retry.jitter = \"full\".\n");
}

// ---- 16. dead_letters_unread ------------------------------------------------------------

TEST_CASE("dead_letters_unread: a dead-letter queue nobody reads that keeps no longer than the source", "[lint]") {
  world_config c = clean_config();
  CHECK(lint(c).empty());  // the default keeps dead letters 14 days, the source 4
  c.dead_letter.retention = c.queue.retention;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "dead_letters_unread");
  CHECK(w.setting == "dead_letter_queue.retention");
  CHECK_THAT(w.why, Contains("keeps messages 96h, no longer than the source queue's 96h"));
  CHECK_THAT(w.fix, Contains("redrive_after"));
  c.dead_letter_redrive = dead_letter_redrive_config{};
  CHECK(lint(c).empty());  // read by the on-call's redrive
  c.dead_letter_redrive.reset();
  c.dead_letter_queue = false;
  c.queue.max_receive_count = 0;
  CHECK_FALSE(fires(c, "dead_letters_unread"));
}

// ---- 17. redrive_after_key_expiry -------------------------------------------------------

TEST_CASE("redrive_after_key_expiry: a redrive later than the provider keeps keys, of an unrecorded refund", "[lint]") {
  world_config c = clean_config();
  c.jobs.push_back(make_job({"payouts", progress_mode::none, {{"refund", "inv_{job}", 100, 1}}}, "payout_1"));
  c.dead_letter_redrive = dead_letter_redrive_config{
      .after = duration::from_s(30 * 3600), .times = 1, .auto_resolve = {}, .age_alarm = {}, .renotify_every = {}};
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "redrive_after_key_expiry");
  CHECK(w.setting == "dead_letter_queue.redrive_after");
  CHECK_THAT(w.why, Contains("30h after the alarm") && Contains("keeps keys only 24h") && Contains("payout_1 step 1"));
  CHECK_THAT(w.fix, Contains("per_step"));
  c.dead_letter_redrive->after = duration::from_s(23 * 3600);
  CHECK(lint(c).empty());  // within the key's lifetime
  c.dead_letter_redrive->after = duration::from_s(30 * 3600);
  c.jobs.back() = make_job({"payouts", progress_mode::per_step, {{"refund", "inv_{job}", 100, 1}}}, "payout_1");
  CHECK(lint(c).empty());  // the refund's checkpoint is consulted before the call

  // A keyed write of your own whose far side keeps keys an hour.
  service_tool_config charge = test_worlds::keyed_write_tool("charge", duration::from_ms(50), false);
  charge.key_retention = duration::from_s(3600);
  c.tools.push_back(charge);
  c.jobs.back() = make_job({"renewals", progress_mode::none, {{"charge", "card_{job}", 100, 1}}}, "renewal_1");
  c.dead_letter_redrive->after = duration::from_s(2 * 3600);
  const lint_warning own = only_warning(c);
  CHECK(own.rule == "redrive_after_key_expiry");
  CHECK_THAT(own.why, Contains("the charge tool's far side keeps keys only 1h") &&
                          Contains("renewal_1 step 1 calls it") && Contains("its effect again"));
  c.dead_letter_redrive->after = duration::from_s(1800);
  CHECK(lint(c).empty());
}

// ---- 18. liveness_probe_blocked ---------------------------------------------------------

TEST_CASE("liveness_probe_blocked: a probe answered by the loop, and a call that blocks it past the threshold",
          "[lint]") {
  world_config c = clean_config();
  c.runtime.liveness_probe = liveness_probe_config{};  // 3 x 10 s, 1 s timeout: 21 s blocked restarts the pod
  c.payments.latency = latency_model::fixed(duration::from_s(20));
  CHECK(lint(c).empty());
  c.payments.latency = latency_model::fixed(duration::from_s(90));
  c.payments.client_timeout = duration::from_s(120);
  c.runtime.visibility_timeout = duration::from_s(180);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "liveness_probe_blocked");
  CHECK(w.setting == "runtime.liveness_probe");
  CHECK_THAT(w.why,
             Contains("a call that blocks the loop 21s or more") && Contains("job_1 step 3 waits on the refund"));
  CHECK_THAT(w.fix, Contains("thread of its own"));
  // The client timeout bounds the block.
  c.payments.client_timeout = duration::from_s(15);
  CHECK_FALSE(fires(c, "liveness_probe_blocked"));
  c.payments.client_timeout = duration::from_s(120);
  c.runtime.liveness_probe->failure_threshold = 10;  // 91 s tolerated
  CHECK_FALSE(fires(c, "liveness_probe_blocked"));
}

// ---- 19. drain_grace_below_work ---------------------------------------------------------

TEST_CASE("drain_grace_below_work: a drain whose grace period is shorter than the longest slice", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval = duration::from_s(5);
  c.model.latency = latency_model::fixed(duration::from_s(40));
  c.model.client_timeout = duration::from_s(60);
  deploy_spec d;
  d.at = sim::instant::epoch() + duration::from_s(10);
  d.grace_period = duration::from_s(60);
  c.deploys.push_back(d);
  CHECK_FALSE(fires(c, "drain_grace_below_work"));  // 40 s of model plus the default read and refund p99s
  c.deploys[0].grace_period = duration::from_s(30);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "drain_grace_below_work");
  CHECK(w.setting == "deploy[0].grace_period");
  CHECK_THAT(w.why, Contains("grace period of 30s, but a slice of job_1 can take"));
  // A rolling kill is the other rule's business.
  c.deploys[0].strategy = deploy_strategy::rolling_kill;
  CHECK_FALSE(fires(c, "drain_grace_below_work"));
  // A runtime's own shutdown timeout (Sidekiq's -t) that ends sooner is what counts.
  c.deploys[0].strategy = deploy_strategy::drain;
  c.deploys[0].grace_period = duration::from_s(90);
  c.runtime.shutdown_timeout = duration::from_s(25);
  const lint_warning own = only_warning(c);
  CHECK(own.setting == "runtime.shutdown_timeout");
  CHECK_THAT(own.why, Contains("waits 25s for its slices (Sidekiq's -t)") && Contains("pushes its job back"));
  c.runtime.shutdown_timeout = duration::from_s(85);
  CHECK_FALSE(fires(c, "drain_grace_below_work"));
}

// ---- 20. client_timeout_below_p99 -------------------------------------------------------

TEST_CASE("client_timeout_below_p99: a caller that gives up before the far side usually answers", "[lint]") {
  world_config c = clean_config();
  c.payments.latency = latency_model::fixed(duration::from_s(3));
  c.payments.client_timeout = duration::from_s(2);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "client_timeout_below_p99");
  CHECK(w.setting == "vendor.client_timeout");
  CHECK_THAT(w.why,
             Contains("job_1 step 3 calls the refund tool with a client timeout of 2s, below its p99 latency 3s"));
  c.payments.client_timeout = duration::from_s(3);
  CHECK(lint(c).empty());
  c.email.latency = latency_model::fixed(duration::from_s(3));
  c.email.client_timeout = duration::from_s(1);
  CHECK(lint(c).empty());  // no job sends email
}

TEST_CASE("dead_letter_threshold: attempts counted only at failure leave a crash loop unbounded", "[lint]") {
  world_config c = clean_config();
  c.queue.max_receive_count = 0;
  CHECK(lint(c).empty());  // counted at the start: a crash loop is bounded
  c.runtime.count_attempts = attempt_counting::at_failure;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "dead_letter_threshold");
  CHECK(w.setting == "queue.max_receive_count");
  CHECK_THAT(w.why, Contains("count_attempts = \"at_failure\" counts only failures") && Contains("crash loop"));
  CHECK_THAT(w.fix, Contains("set runtime.count_attempts = \"at_start\""));
  c.queue.max_receive_count = 5;  // the broker counts receives, crashes included
  CHECK(lint(c).empty());
}

// ---- 21. dedupe_window_below_retry_horizon --------------------------------------------

TEST_CASE("dedupe_window_below_retry_horizon: a dedupe window shorter than the retries, on an unrecorded step",
          "[lint]") {
  world_config c = clean_config();
  service_tool_config publish;
  publish.name = "publish";
  publish.effect = tool_effect::write;
  publish.keys = key_handling::dedupe;
  publish.key_retention = duration::from_s(300);
  publish.latency = latency_model::fixed(duration::from_ms(50));
  c.tools.push_back(publish);
  c.runtime.retry.initial_interval = duration::from_s(10);
  c.runtime.retry.maximum_interval = duration::from_s(600);
  c.runtime.retry.maximum_attempts = 10;
  const job_type order{"order", progress_mode::none, {{"publish", "topic", 0, 1}, {"read", "stock", 0, 1}}};
  c.jobs.push_back(make_job(order, "order_17"));
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "dedupe_window_below_retry_horizon");
  CHECK(w.setting == "tools.publish.key_retention");
  // 10 + 20 + 40 + 80 + 160 + 320 + 600 x 3 seconds
  CHECK_THAT(w.why, Contains("order_17 step 1 calls publish") && Contains("only for 5m") && Contains("reach 40m30s"));
  CHECK_THAT(w.fix, Contains("per_step"));
  c.tools[0].key_retention = duration::from_s(3600);
  CHECK(lint(c).empty());  // the window outlasts every retry
  c.runtime.retry.maximum_attempts = 0;
  CHECK(fires(c, "dedupe_window_below_retry_horizon"));  // unlimited attempts outlast any window
  c.jobs.back() = make_job(job_type{"order", progress_mode::per_step, order.steps}, "order_17");
  CHECK(lint(c).empty());  // recorded when it succeeds: no retry repeats it
  c.jobs.back() = make_job(order, "order_17");
  c.tools[0].keys = key_handling::stored_response;
  CHECK_FALSE(fires(c, "dedupe_window_below_retry_horizon"));  // Stripe's layer is write_without_key's business
}

// ---- 22. tenants_share_queue_unfairly -------------------------------------------------

TEST_CASE("tenants_share_queue_unfairly: tenants on one queue with no message groups, or too few consumers", "[lint]") {
  world_config c = clean_config();
  job_type a{"a_report", progress_mode::per_step, {{"read", "doc_{job}", 0, 1}}, "acme"};
  job_type b{"b_report", progress_mode::per_step, {{"read", "doc_{job}", 0, 1}}, "beta"};
  c.jobs.push_back(make_job(a, "a_1"));
  CHECK(lint(c).empty());  // one tenant: nobody to starve
  c.jobs.push_back(make_job(b, "b_1"));
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "tenants_share_queue_unfairly");
  CHECK(w.setting == "queue.message_group_id");
  CHECK_THAT(w.why, Contains("(acme, beta)"));
  c.message_group = message_group_source::tenant;
  const lint_warning few = only_warning(c);
  CHECK(few.setting == "workers.count");
  CHECK_THAT(few.why, Contains("at least 30 of its own in flight"));
  c.workers = 40;
  CHECK_FALSE(fires(c, "tenants_share_queue_unfairly"));
  // No groups, but a limit per tenant below the workers: a burst leaves workers free.
  c.message_group = message_group_source::none;
  c.runtime.tenant_limit = tenant_limit_config{.concurrency = 20, .over_limit_delay = duration::from_s(1)};
  CHECK_FALSE(fires(c, "tenants_share_queue_unfairly"));
  c.runtime.tenant_limit->concurrency = 40;  // as many as the workers: limits nothing
  CHECK(fires(c, "tenants_share_queue_unfairly"));
}

TEST_CASE("tenants_share_queue_unfairly on a FIFO queue: groups by job are served oldest first", "[lint]") {
  world_config c = clean_config();
  c.queue.fifo = true;
  c.message_group = message_group_source::job;
  job_type a{"a_report", progress_mode::per_step, {{"read", "doc_{job}", 0, 1}}, "acme"};
  job_type b{"b_report", progress_mode::per_step, {{"read", "doc_{job}", 0, 1}}, "beta"};
  c.jobs.push_back(make_job(a, "a_1"));
  c.jobs.push_back(make_job(b, "b_1"));
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "tenants_share_queue_unfairly");
  CHECK_THAT(w.why, Contains("FIFO queues have no fair delivery"));
  c.workers = 40;  // no fair delivery to start: more consumers do not help
  CHECK(fires(c, "tenants_share_queue_unfairly"));
  c.runtime.tenant_limit = tenant_limit_config{.concurrency = 20, .over_limit_delay = duration::from_s(1)};
  CHECK_FALSE(fires(c, "tenants_share_queue_unfairly"));
}

// ---- 23. fifo_deduplication_per_send ------------------------------------------------------

TEST_CASE("fifo_deduplication_per_send: a FIFO producer whose re-send is a new message", "[lint]") {
  world_config c = clean_config();
  c.deduplication = deduplication_source::per_send;
  CHECK(lint(c).empty());  // a standard queue: no deduplication to defeat
  c.queue.fifo = true;
  c.message_group = message_group_source::job;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "fifo_deduplication_per_send");
  CHECK(w.setting == "queue.deduplication");
  CHECK_THAT(w.why, Contains("becomes a second message"));
  CHECK_THAT(w.fix, Contains("\"job_id\""));
  c.deduplication = deduplication_source::content;
  CHECK(lint(c).empty());
}

// ---- 24. fifo_group_held_by_retry -----------------------------------------------------------

TEST_CASE("fifo_group_held_by_retry: a tenant's FIFO group held by one job's retries", "[lint]") {
  world_config c = clean_config();
  c.queue.fifo = true;
  c.message_group = message_group_source::tenant;
  job_type a{"a_report", progress_mode::per_step, {{"read", "doc_{job}", 0, 1}}, "acme"};
  c.jobs.push_back(make_job(a, "a_1"));
  CHECK(lint(c).empty());  // one job of the tenant: nothing waits behind it
  c.jobs.push_back(make_job(a, "a_2"));
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "fifo_group_held_by_retry");
  CHECK(w.setting == "queue.message_group_id");
  CHECK_THAT(w.why, Contains("tenant acme waits behind it") && Contains("after 5 attempts") &&
                        Contains("retry.maximum_interval = 1m40s"));
  c.runtime.retry.maximum_attempts = 1;
  CHECK(lint(c).empty());  // nothing is retried
  c.runtime.retry.maximum_attempts = 5;
  c.message_group = message_group_source::job;
  CHECK(lint(c).empty());
}

// ---- 25. orphan_rescue_revives_exhausted ----------------------------------------------

TEST_CASE("orphan_rescue_revives_exhausted: a rescue that grants attempts past the limit", "[lint]") {
  world_config c = clean_config();
  c.runtime.orphan_rescue = orphan_rescue_config{};
  CHECK(lint(c).empty());  // Lifeline's default: discard what is out of attempts
  c.runtime.orphan_rescue->exhausted = exhausted_orphans::retry;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "orphan_rescue_revives_exhausted");
  CHECK(w.setting == "runtime.orphan_rescue.exhausted");
  CHECK_THAT(w.why, Contains("used its 5 attempts one more on every rescue") && Contains("every 1h"));
  CHECK_THAT(w.fix, Contains("exhausted = \"discard\""));
  c.runtime.retry.maximum_attempts = 0;
  CHECK_FALSE(fires(c, "orphan_rescue_revives_exhausted"));  // no limit to revive past
}

// ---- 26. orphan_rescue_before_work_ends -----------------------------------------------

TEST_CASE("orphan_rescue_before_work_ends: a rescue that takes a slow slice for an orphan", "[lint]") {
  world_config c = clean_config();
  c.runtime.orphan_rescue = orphan_rescue_config{.rescue_after = duration::from_s(20)};
  // The agent job: read, model (p99 20 s), refund: a slice of more than 20 s.
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "orphan_rescue_before_work_ends");
  CHECK(w.setting == "runtime.orphan_rescue.rescue_after");
  CHECK_THAT(w.why, Contains("running for 20s") && Contains("a slice of job_1 can take"));
  CHECK_THAT(w.fix, Contains("well above the longest slice"));
  c.runtime.orphan_rescue->rescue_after = duration::from_s(600);
  CHECK(lint(c).empty());
}

// ---- 27. job_table_without_transaction_timeout ----------------------------------------

TEST_CASE("job_table_without_transaction_timeout: MVCC on the job table and no bound on a transaction", "[lint]") {
  world_config c = clean_config();
  c.store.dead_row_cost = duration::from_us(7);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "job_table_without_transaction_timeout");
  CHECK(w.setting == "store.transaction_timeout");
  CHECK_THAT(w.why, Contains("dead_row_cost 7us") && Contains("6s300ms a fetch"));
  CHECK_THAT(w.fix, Contains("transaction_timeout"));
  c.store.transaction_timeout = duration::from_s(60);
  CHECK(lint(c).empty());
  c.store.dead_row_cost.reset();
  c.store.transaction_timeout.reset();
  CHECK(lint(c).empty());  // MVCC not modelled: nothing to say
}

// ---- 28. attempts_given_back -------------------------------------------------------------

TEST_CASE("attempts_given_back: a 503 that gives its attempt back, once or twice", "[lint]") {
  world_config c = clean_config();
  c.runtime.uncount_unavailable = attempt_take_back::twice;
  lint_warning w = only_warning(c);
  CHECK(w.rule == "attempts_given_back");
  CHECK(w.setting == "runtime.uncount_unavailable");
  CHECK_THAT(w.why, Contains("the counter goes down with every one"));
  CHECK_THAT(w.fix, Contains("uncount_unavailable = \"never\""));
  c.runtime.uncount_unavailable = attempt_take_back::once;
  w = only_warning(c);
  CHECK_THAT(w.why, Contains("the counter stays where it is"));
  c.runtime.uncount_unavailable = attempt_take_back::never;
  CHECK(lint(c).empty());
}

// ---- 29. celery_eta_beyond_visibility ---------------------------------------------------

TEST_CASE("celery_eta_beyond_visibility: a retry's countdown longer than the Redis visibility timeout", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();  // a Celery worker has none
  c.queue.max_receive_count = 0;
  c.queue.redis_ack_emulation = true;
  c.queue.visibility_timeout = duration::from_s(3600);
  c.runtime.celery.emplace();
  c.runtime.retry.initial_interval = duration::from_s(600);  // 10m, 20m, 40m, 80m: the last retry passes 1h
  c.runtime.retry.maximum_interval = duration::from_s(7200);
  c.runtime.retry.maximum_attempts = 5;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "celery_eta_beyond_visibility");
  CHECK(w.setting == "queue.visibility_timeout");
  CHECK_THAT(w.why, Contains("countdown reaches 1h20m") && Contains("visibility timeout is 1h") &&
                        Contains("At the ETA both run the task"));
  CHECK_THAT(w.fix, Contains("(e.g. 2h40m)"));
  c.runtime.retry.maximum_attempts = 4;  // 10m, 20m, 40m: every ETA within the hour
  CHECK(lint(c).empty());
  c.runtime.retry.maximum_attempts = 0;  // unlimited: the cap, 2h, is reached
  CHECK(fires(c, "celery_eta_beyond_visibility"));
  c.queue.visibility_timeout = duration::from_s(3 * 3600);
  CHECK_FALSE(fires(c, "celery_eta_beyond_visibility"));
  // acks_late: a task longer than the timeout is restored while it runs.
  c.queue.visibility_timeout = duration::from_s(10);
  c.runtime.retry.maximum_attempts = 1;
  CHECK_FALSE(fires(c, "visibility_below_tool_p99"));  // acked on receipt: nothing to restore
  c.runtime.celery->acks_late = true;
  const std::vector<lint_warning> all = lint(c);
  REQUIRE(all.size() == 1);
  CHECK(all[0].rule == "visibility_below_tool_p99");
  CHECK_THAT(all[0].fix, Contains("cannot extend it while a task runs"));
}

// ---- 30. max_lease_below_work -----------------------------------------------------------

TEST_CASE("max_lease_below_work: a Pub/Sub client that stops extending before the slice ends", "[lint]") {
  world_config c = clean_config();
  c.queue.pubsub = true;
  c.queue.visibility_timeout = duration::from_s(10);
  c.queue.max_receive_count = 0;
  c.dead_letter_queue = false;
  c.runtime.max_lease_duration = duration::from_s(3600);
  CHECK(lint(c).empty());  // the agent job's slice: well under an hour
  c.runtime.max_lease_duration = duration::from_s(15);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "max_lease_below_work");
  CHECK(w.setting == "pubsub.max_lease_duration");
  CHECK_THAT(w.why, Contains("for at most 15s") && Contains("a slice of job_1 can take"));
  // Without lease management, the deadline itself is the bound.
  c.runtime.heartbeat_interval.reset();
  c.runtime.max_lease_duration.reset();
  const lint_warning plain = only_warning(c);
  CHECK(plain.rule == "visibility_below_tool_p99");
  CHECK(plain.setting == "pubsub.ack_deadline");
  CHECK_THAT(plain.fix, Contains("streaming pull"));
}

// ---- 31. kafka_batch_beyond_poll_interval ----------------------------------------------

TEST_CASE("kafka_batch_beyond_poll_interval: one poll's batch outlasts max.poll.interval.ms", "[lint][kafka]") {
  world_config c = clean_kafka_config();
  CHECK(lint(c).empty());  // one job: a batch of one, well inside 5 minutes
  for (int i = 2; i <= 40; ++i)
    c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100, false));
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "kafka_batch_beyond_poll_interval");
  CHECK(w.setting == "kafka.max_poll_records");
  // 40 jobs in one poll (max.poll.records 500, but only 40 records), each up to its calls' p99.
  CHECK_THAT(w.why, Contains("hand a consumer 40 records (max.poll.records 500)") &&
                        Contains("above max.poll.interval.ms (5m)"));
  c.runtime.kafka->max_poll_records = 5;
  CHECK(lint(c).empty());
  c.runtime.kafka->max_poll_records = 500;
  c.runtime.kafka->group.max_poll_interval = duration::from_s(3600);
  CHECK(lint(c).empty());
}

// ---- 32. kafka_offset_reset_latest ----------------------------------------------------

TEST_CASE("kafka_offset_reset_latest: jobs sent before the group's first assignment are skipped", "[lint][kafka]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.queue.max_receive_count = 0;
  c.dead_letter_queue = false;
  c.runtime.kafka.emplace();
  c.runtime.rules.retry = retry_mode::in_slice;
  c.workers = 2;
  const lint_warning w = only_warning(c);  // job_1 at 0s; two workers: assigned at 6s at the earliest
  CHECK(w.rule == "kafka_offset_reset_latest");
  CHECK(w.setting == "kafka.auto_offset_reset");
  CHECK_THAT(w.why, Contains("job_1 is sent at 0s") && Contains("at 6s at the earliest"));
  c.jobs[0].enqueue_at = sim::instant::epoch() + duration::from_s(6);
  CHECK(lint(c).empty());
  c.jobs[0].enqueue_at = sim::instant::epoch();
  c.runtime.kafka->reset_to_earliest = true;
  CHECK(lint(c).empty());
}

TEST_CASE("no_backoff_cap: Sidekiq's schedule is quiet only on Sidekiq's own queue", "[lint]") {
  world_config c = clean_config();
  c.runtime.retry.jitter = jitter_kind::sidekiq;
  c.runtime.retry.maximum_interval.reset();
  c.runtime.retry.maximum_attempts = 26;
  // On SQS its waits pass 12 h at retry 15 and are refused there.
  lint_warning w = only_warning(c);
  CHECK(w.rule == "no_backoff_cap");
  CHECK_THAT(w.why, Contains("passes 12h"));
  c.queue.hold_until_ack = true;
  c.runtime.heartbeat_interval.reset();
  c.queue.max_receive_count = 0;
  CHECK_FALSE(fires(c, "no_backoff_cap"));
}

// ---- write rules over tools of your own -------------------------------------------------

TEST_CASE("write_without_key and write_without_claim cover write tools of the scenario's own", "[lint]") {
  world_config c;
  c.runtime.heartbeat_interval = duration::from_s(5);
  c.queue.max_receive_count = c.runtime.retry.maximum_attempts;
  service_tool_config upload;
  upload.name = "upload";
  upload.effect = tool_effect::write;
  upload.keys = key_handling::stored_response;
  upload.latency = latency_model::fixed(duration::from_ms(50));
  c.tools.push_back(upload);
  const job_type sync{"sync", progress_mode::per_step, {{"upload", "file_{job}", 0, 1}}};
  c.jobs.push_back(make_job(sync, "sync_1"));
  CHECK(lint(c).empty());  // a stable key, sent
  c.runtime.rules.key = key_mode::none;
  lint_warning w = only_warning(c);
  CHECK(w.rule == "write_without_key");
  CHECK(w.setting == "discipline.key");
  CHECK_THAT(w.why, Contains("sync_1 step 1 calls the upload tool") && Contains("with no key at all"));
  CHECK_THAT(w.fix, Contains("\"sync_1:step_1:upload\""));
  c.runtime.rules.key = key_mode::stable;
  c.runtime.rules.pass_key_to_vendor = false;
  w = only_warning(c);
  CHECK(w.setting == "discipline.pass_key_to_vendor");
  CHECK_THAT(w.why, Contains("but the key is never sent to it"));

  // A far side that ignores keys: a local claim is the only defence, and a
  // tool of your own has one only if it asks (the email's default claim
  // does not reach it).
  c.runtime.rules.pass_key_to_vendor = true;
  c.tools[0].keys = key_handling::ignored;
  w = only_warning(c);
  CHECK(w.rule == "write_without_claim");
  CHECK(w.setting == "tools.upload.claim");
  CHECK_THAT(w.why, Contains("sync_1 step 1 calls the upload tool, a write that takes no idempotency key") &&
                        Contains("has its effect again"));
  CHECK_THAT(w.fix, Contains("[tools.upload] claim = true") && Contains("each upload call at most once"));
  c.runtime.rules.claimed_tools.push_back("upload");
  CHECK(lint(c).empty());
  c.tools[0].effect = tool_effect::read;
  CHECK(lint(c).empty());  // a read repeats nothing
}

TEST_CASE("key_per_attempt and checkpoint_before_effect cover write tools of the scenario's own", "[lint]") {
  world_config c;
  c.runtime.heartbeat_interval = duration::from_s(5);
  c.queue.max_receive_count = c.runtime.retry.maximum_attempts;
  c.tools.push_back(test_worlds::keyed_write_tool("charge", duration::from_ms(50), true));
  const job_type renewal{"renewal", progress_mode::per_step, {{"charge", "card_{job}", 1200, 1}}};
  c.jobs.push_back(make_job(renewal, "renewal_1"));
  CHECK(lint(c).empty());
  c.runtime.rules.key = key_mode::per_attempt;
  lint_warning w = only_warning(c);
  CHECK(w.rule == "key_per_attempt");
  CHECK_THAT(w.why, Contains("so the charge tool's far side sees each retry of renewal_1 step 1 as a new request") &&
                        Contains("acts again"));
  c.runtime.rules.key = key_mode::stable;
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;
  w = only_warning(c);
  CHECK(w.rule == "checkpoint_before_effect");
  CHECK_THAT(w.why, Contains("the charge tool's effect never happens"));
  c.runtime.rules.checkpoint = checkpoint_mode::after_success;
  c.runtime.rules.pass_key_to_vendor = false;
  w = only_warning(c);
  CHECK(w.rule == "write_without_key");
  CHECK_THAT(w.why, Contains("(no_double_payment, ledgers_agree)"));  // a money write: the money invariants
}

TEST_CASE("batch_without_item_progress: a keyless write of your own in an unrecorded step", "[lint]") {
  world_config c;
  c.runtime.heartbeat_interval = duration::from_s(5);
  c.queue.max_receive_count = c.runtime.retry.maximum_attempts;
  service_tool_config notify;
  notify.name = "notify";
  notify.effect = tool_effect::write;
  notify.keys = key_handling::stored_response;
  notify.latency = latency_model::fixed(duration::from_ms(50));
  c.tools.push_back(notify);
  c.jobs.push_back(make_job({"fanout", progress_mode::none, {{"notify", "user_{job}", 0, 3}}}, "fanout_1"));
  CHECK(lint(c).empty());  // keyed and the key is sent: each repeat is a replay
  c.runtime.rules.pass_key_to_vendor = false;
  bool batch = false;
  for (const lint_warning& w : lint(c))
    if (w.rule == "batch_without_item_progress") {
      batch = true;
      CHECK(w.setting == "job_type \"fanout\" progress");
      CHECK_THAT(w.why, Contains("fanout_1 step 1 calls notify"));
    }
  CHECK(batch);
}

// ---- 33. work_id_by_message ----------------------------------------------------------------

TEST_CASE("work_id_by_message: a consumer keyed on the messageId where a job can be two messages", "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.work_id = work_id_mode::message;
  const lint_warning w = only_warning(c);  // a standard queue deduplicates no send
  CHECK(w.rule == "work_id_by_message");
  CHECK(w.setting == "discipline.work_id");
  CHECK_THAT(w.why, Contains("a standard queue deduplicates no send"));
  CHECK_THAT(w.fix, Contains("discipline.work_id = \"job\""));

  c.queue.fifo = true;  // deduplicated by the job's id: a retry within 5 minutes is dropped
  c.message_group = message_group_source::job;
  CHECK(lint(c).empty());
  c.queue_faults.push_back({.what = queue_fault::kind::send_timeout,
                            .job = "job_1",
                            .nth = 1,
                            .probability_ppm = 0,
                            .resend_after = duration::from_s(6 * 60)});
  const lint_warning late = only_warning(c);
  CHECK(late.rule == "work_id_by_message");
  CHECK_THAT(late.why, Contains("retry 6m after its send comes after FIFO's 5-minute deduplication interval"));
  c.queue_faults.back().resend_after = duration::from_s(60);
  CHECK(lint(c).empty());

  c.deduplication = deduplication_source::per_send;  // rule 23 says it, naming this consumer
  const lint_warning per_send = only_warning(c);
  CHECK(per_send.rule == "fifo_deduplication_per_send");
  CHECK_THAT(per_send.why, Contains("runs the job twice, each write under a key of its own"));
  c.runtime.rules.work_id = work_id_mode::job;
  CHECK_THAT(only_warning(c).why, Contains("A consumer that checks the job's row acks the second message"));
}

TEST_CASE("work_id_by_message: off SQS the consumer keyed on the message keeps no record, every redelivery runs again",
          "[lint]") {
  world_config c = clean_config();
  c.runtime.rules.work_id = work_id_mode::message;
  c.queue.pubsub = true;
  const lint_warning pubsub = only_warning(c);
  CHECK(pubsub.rule == "work_id_by_message");
  CHECK_THAT(pubsub.why, Contains("keeps no job table and no record"));
  CHECK_THAT(pubsub.why, Contains("a message redelivered past its ack deadline runs its effects again"));
  CHECK_THAT(pubsub.fix, Contains("discipline.work_id = \"job\""));
  c.queue.pubsub = false;
  c.queue.hold_until_ack = true;
  CHECK_THAT(only_warning(c).why, Contains("a job pushed back at shutdown or retried"));
  c.runtime.rules.work_id = work_id_mode::job;
  CHECK(lint(c).empty());
}

// ---- 34. kafka_batch_beyond_rebalance_timeout ------------------------------------------

TEST_CASE("kafka_batch_beyond_rebalance_timeout: a client's own rebalance timeout below one poll's batch",
          "[lint][kafka]") {
  world_config c = clean_kafka_config();
  for (int i = 2; i <= 3; ++i)
    c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100, false));
  CHECK(lint(c).empty());  // unset: max.poll.interval.ms, well above three records
  c.runtime.kafka->group.rebalance_timeout = duration::from_s(1);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "kafka_batch_beyond_rebalance_timeout");
  CHECK(w.setting == "kafka.rebalance_timeout");
  CHECK_THAT(w.why, Contains("waits at most 1s (the rebalance timeout)") && Contains("one poll's 3 records"));
  CHECK_THAT(w.fix, Contains("Raise kafka.rebalance_timeout above one poll's batch"));
  c.runtime.kafka->group.rebalance_timeout = duration::from_s(3600);
  CHECK(lint(c).empty());
}

// ---- 38. attempts_left_by_equality ------------------------------------------------

TEST_CASE("attempts_left_by_equality: out of attempts only at exactly the limit", "[lint]") {
  world_config c = clean_config();
  c.runtime.attempts_left = attempts_left_check::not_at_limit;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "attempts_left_by_equality");
  CHECK(w.setting == "runtime.attempts_left");
  CHECK_THAT(w.why, Contains("a failure counted twice, or a limit lowered"));
  CHECK_THAT(w.fix, Contains("runtime.attempts_left = \"below_limit\""));
  c.runtime.count_attempts = attempt_counting::at_failure;
  c.runtime.count_failures = failure_counting::twice;
  c.queue.max_receive_count = 3;  // so dead_letter_threshold stays quiet
  CHECK_THAT(only_warning(c).why, Contains("each failure adds 2"));
  c.runtime.retry.maximum_attempts = 0;
  CHECK(lint(c).empty());  // unlimited: nothing to step over
  c.runtime.retry.maximum_attempts = 3;
  c.runtime.attempts_left = attempts_left_check::below_limit;
  CHECK(lint(c).empty());
}

// ---- 39. kafka_offset_stored_before_processing ------------------------------------

TEST_CASE("kafka_offset_stored_before_processing: librdkafka commits in the background what poll handed over",
          "[lint][kafka]") {
  world_config c = clean_kafka_config();
  CHECK(lint(c).empty());  // the Java client commits in poll, after the records ran
  c.runtime.kafka->client = kafka_client::librdkafka;
  c.runtime.kafka->max_poll_records = 1;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "kafka_offset_stored_before_processing");
  CHECK(w.setting == "kafka.enable_auto_offset_store");
  CHECK_THAT(w.why, Contains("commits the stored offsets every 5s whatever the handler is doing"));
  CHECK_THAT(w.fix, Contains("kafka.enable_auto_offset_store = false"));
  c.runtime.kafka->enable_auto_offset_store = false;
  CHECK(lint(c).empty());
  c.runtime.kafka->enable_auto_offset_store = true;
  c.runtime.kafka->enable_auto_commit = false;  // the application commits what it chooses
  CHECK(lint(c).empty());
}

// ---- 40. retry_in_gives_up_transient ----------------------------------------------

TEST_CASE("retry_in_gives_up_transient: a sidekiq_retry_in that discards or kills a 503, a 429 or a timeout",
          "[lint][sidekiq]") {
  world_config c = clean_sidekiq_config();  // nothing for the other rules to find
  REQUIRE(lint(c).empty());
  sidekiq_retry_in& block = c.runtime.sidekiq_retry.retry_in;
  // A 400 is what :kill is for: no warning.
  block[static_cast<std::size_t>(sidekiq_failure::bad_request)] = {retry_in_action::kill, duration::zero()};
  c.runtime.rules.retry_non_retryable = true;
  CHECK_FALSE(fires(c, "retry_in_gives_up_transient"));
  block[static_cast<std::size_t>(sidekiq_failure::unavailable)] = {retry_in_action::discard, duration::zero()};
  std::vector<lint_warning> ws;
  for (const lint_warning& w : lint(c))
    if (w.rule == "retry_in_gives_up_transient") ws.push_back(w);
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].setting == "sidekiq.retry_in.unavailable");
  CHECK_THAT(ws[0].why, Contains("returns :discard for unavailable") && Contains("in no dead set"));
  CHECK_THAT(ws[0].fix, Contains("sidekiq.retry_in.unavailable = \"default\""));
  // One warning per kind, in the kinds' order; :kill says the dead set.
  block[static_cast<std::size_t>(sidekiq_failure::timeout)] = {retry_in_action::kill, duration::zero()};
  ws.clear();
  for (const lint_warning& w : lint(c))
    if (w.rule == "retry_in_gives_up_transient") ws.push_back(w);
  REQUIRE(ws.size() == 2);
  CHECK(ws[1].setting == "sidekiq.retry_in.timeout");
  CHECK_THAT(ws[1].why, Contains("returns :kill for timeout") && Contains("waits in the dead set"));
  // A delay is a retry: no warning.
  block[static_cast<std::size_t>(sidekiq_failure::unavailable)] = {retry_in_action::delay, duration::from_s(60)};
  block[static_cast<std::size_t>(sidekiq_failure::timeout)] = {retry_in_action::schedule, duration::zero()};
  CHECK_FALSE(fires(c, "retry_in_gives_up_transient"));
}

// ---- 41. sidekiq_wrapped_shutdown_retried -----------------------------------------

TEST_CASE("sidekiq_wrapped_shutdown_retried: a Sidekiq before PR #1805 retries a wrapped Shutdown", "[lint][sidekiq]") {
  world_config c = clean_sidekiq_config();
  REQUIRE(lint(c).empty());
  c.runtime.sidekiq_retry.wrapped_shutdown_retried = true;
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "sidekiq_wrapped_shutdown_retried");
  CHECK(w.setting == "sidekiq.wrapped_shutdown");
  CHECK_THAT(w.why, Contains("predates PR #1805") && Contains("the job runs twice"));
  CHECK_THAT(w.fix, Contains("sidekiq.wrapped_shutdown = \"not_retried\""));
  c.queue.hold_until_ack = false;  // the setting is Sidekiq's only
  CHECK_FALSE(fires(c, "sidekiq_wrapped_shutdown_retried"));
}

// ---- advice the loader takes, in each broker's words -----------------------------

namespace {

struct lint_fixture {
  std::string name;
  std::string text;
};

std::string agent_jobs(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i)
    out += "[[job]]\nid = \"job_" + std::to_string(i) + "\"\ninvoice = \"inv_" + std::to_string(i) +
           "\"\namount_cents = 500\n";
  return out;
}

std::string tenant_jobs() {
  return "[[job_type]]\nname = \"a\"\ntenant = \"acme\"\nsteps = [{ tool = \"read\", target = \"doc_{job}\" }]\n"
         "[[job_type]]\nname = \"b\"\ntenant = \"bolt\"\nsteps = [{ tool = \"read\", target = \"doc_{job}\" }]\n"
         "[[job]]\nid = \"job_1\"\ntype = \"a\"\n[[job]]\nid = \"job_2\"\ntype = \"a\"\n"
         "[[job]]\nid = \"job_3\"\ntype = \"b\"\n";
}

const std::string rolling_kill = "[[deploy]]\nat = \"5s\"\nsha = \"v2\"\nstrategy = \"rolling_kill\"\n";

// Scenario files that draw the rules the catalogue does not, or draw them on
// another broker: each flavour's words and limits.
std::vector<lint_fixture> lint_fixtures() {
  const std::string sqs = "[queue]\nflavour = \"sqs\"\n";
  const std::string fifo = "[queue]\nflavour = \"sqs_fifo\"\n";
  const std::string sidekiq = "[queue]\nflavour = \"sidekiq\"\n";
  const std::string celery = "[queue]\nflavour = \"celery_redis\"\n";
  const std::string pubsub = "[queue]\nflavour = \"pubsub\"\n";
  const std::string kafka = "[queue]\nflavour = \"kafka\"\n";
  std::vector<lint_fixture> out = {
      {"heartbeat_slow", "[runtime]\nheartbeat_interval = \"20s\"\n" + agent_jobs(1)},
      {"lease_zero_heartbeat",
       "[queue]\nvisibility_timeout = \"0s\"\n[runtime]\nheartbeat_interval = \"1s\"\n" + agent_jobs(1)},
      {"lease_zero", "[queue]\nvisibility_timeout = \"0s\"\n" + agent_jobs(1)},
      {"execution_timeout_near_lease",
       "[runtime]\nvisibility_timeout = \"1m\"\nexecution_timeout = \"58s\"\n" + agent_jobs(1)},
      {"lease_below_13h_call",
       "[tools.model]\nlatency = { fixed = \"13h\" }\nclient_timeout = \"14h\"\n" + agent_jobs(1)},
      {"client_timeout", "[tools.model]\nclient_timeout = \"1s\"\n" + agent_jobs(1)},
      {"refund_as_tools_refund", "[tools.refund]\nservers = 2\n[discipline]\nkey = \"none\"\n" + agent_jobs(2)},
      {"orphan_rescue_early", "[runtime.orphan_rescue]\nrescue_after = \"5s\"\n" + agent_jobs(1)},
      {"work_id_message", "[discipline]\nwork_id = \"message\"\n" + agent_jobs(1)},
      {"drain_short_grace",
       "[[deploy]]\nat = \"5s\"\nsha = \"v2\"\nstrategy = \"drain\"\ngrace_period = \"5s\"\n" + agent_jobs(1)},
      {"email_rolling_kill",
       "[[job_type]]\nname = \"welcome\"\nsteps = [{ tool = \"email\", target = \"user_{job}\" }]\n"
       "[[job]]\nid = \"job_1\"\ntype = \"welcome\"\n" +
           rolling_kill},
      {"sqs_tenants", sqs + tenant_jobs()},
      {"fifo_tenants", fifo + tenant_jobs()},
      {"sidekiq_tenants", sidekiq + tenant_jobs()},
      {"celery_tenants", celery + tenant_jobs()},
      {"pubsub_tenants", pubsub + tenant_jobs()},
      {"kafka_tenants", kafka + "[kafka]\nauto_offset_reset = \"earliest\"\n" + tenant_jobs()},
      {"sqs_unbounded", sqs + "[retry]\nmaximum_attempts = 0\n" + agent_jobs(1)},
      {"pubsub_unbounded", pubsub + "[retry]\nmaximum_attempts = 0\n" + agent_jobs(1)},
      {"pubsub_no_cap",
       pubsub + "[retry]\nmaximum_interval = \"none\"\n[discipline]\nretry = \"in_slice\"\n" + agent_jobs(1)},
      {"pubsub_short_lease", pubsub + "[pubsub]\nmax_lease_duration = \"5s\"\n" + agent_jobs(1)},
      {"pubsub_slow_heartbeat", pubsub + "[runtime]\nheartbeat_interval = \"8s\"\n" + agent_jobs(1)},
      {"sidekiq_unbounded", sidekiq + "[retry]\nmaximum_attempts = 0\n" + agent_jobs(1)},
      {"sidekiq_reset", sidekiq + "[discipline]\nreset_attempts_on_reenqueue = true\n" + agent_jobs(1)},
      {"sidekiq_no_cap", sidekiq + "[retry]\njitter = \"full\"\n" + agent_jobs(1)},
      {"sidekiq_rolling_kill", sidekiq + agent_jobs(1) + rolling_kill},
      {"celery_unbounded", celery + "[retry]\nmaximum_attempts = 0\n" + agent_jobs(1)},
      {"celery_long_countdown",
       celery + "[retry]\ninitial_interval = \"400h\"\nmaximum_interval = \"400h\"\n" + agent_jobs(1)},
      {"celery_rolling_kill", celery + "[celery]\nacks_late = true\n" + agent_jobs(1) + rolling_kill},
      {"kafka_unbounded",
       kafka + "[kafka]\nauto_offset_reset = \"earliest\"\n[retry]\nmaximum_attempts = 0\n" + agent_jobs(1)},
      {"kafka_reset", kafka +
                          "[kafka]\nauto_offset_reset = \"earliest\"\n[discipline]\nreset_attempts_on_reenqueue = "
                          "true\n" +
                          agent_jobs(1)},
      {"kafka_latest", kafka + agent_jobs(1)},
      {"kafka_rolling_kill", kafka + "[kafka]\nauto_offset_reset = \"earliest\"\n" + agent_jobs(1) + rolling_kill},
  };
  const std::filesystem::path dir = twice::test::repo_root() / "scenarios";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& f : files) out.push_back({f.filename().string(), twice::test::read_text(f)});
  return out;
}

using namespace twice::scenario_detail;

// The scenario `text` with one advice's values set in it, loaded.
load_result load_advised(const std::string& text, const lint_advice& advice) {
  parsed_document doc = parse_document(text, "advised.toml");
  REQUIRE(doc.ok);
  for (const advised_value& v : advice.values) {
    // The refund tool's far side is [vendor] or, by its newer name, [tools.refund].
    std::string setting = v.setting;
    const doc_node* tools = doc.root.find("tools");
    if (setting.starts_with("vendor.") && tools != nullptr && tools->find("refund") != nullptr)
      setting = "tools.refund." + setting.substr(7);
    if (setting.starts_with("tools.refund.") && doc.root.find("vendor") != nullptr)
      setting = "vendor." + setting.substr(13);
    const std::optional<key_path> path = parse_key_path(setting);
    INFO(setting);
    REQUIRE(path.has_value());
    parsed_document value = parse_document("v = " + v.value, "value.toml");
    INFO(v.value);
    REQUIRE(value.ok);
    REQUIRE(set_node(doc.root, *path, *value.root.find("v")));
  }
  return load_scenario_document(doc.root, "advised.toml");
}

}  // namespace

TEST_CASE("lint: every advised value loads, set in the scenario that drew the warning, and the fix names it",
          "[lint]") {
  std::set<std::string, std::less<>> fired;
  for (const lint_fixture& f : lint_fixtures()) {
    const load_result loaded = load_scenario_text(f.text, f.name);
    INFO(f.name << (loaded.errors.empty() ? std::string() : ": " + loaded.errors[0].to_string()));
    REQUIRE(loaded.ok());
    for (const lint_warning& w : lint(loaded.value->world)) {
      fired.insert(w.rule);
      INFO(format_warning(w));
      for (const lint_advice& a : w.advice) {
        REQUIRE_FALSE(a.values.empty());
        for (const advised_value& v : a.values) {
          // The fix says what the advice sets: the key, and the value.
          CHECK_THAT(w.fix, Contains(v.setting.substr(v.setting.rfind('.') + 1)));
          std::string shown = v.value;
          if (shown.size() >= 2 && shown.front() == '"') shown = shown.substr(1, shown.size() - 2);
          if (shown != "{}") CHECK_THAT(w.fix, Contains(shown));
        }
        const load_result advised = load_advised(f.text, a);
        INFO((advised.errors.empty() ? std::string() : advised.errors[0].to_string()));
        CHECK(advised.ok());
      }
    }
  }
  // Every rule drew a warning somewhere above, so every rule's advice was loaded.
  for (const std::string_view rule : lint_rules) {
    INFO(rule);
    CHECK(fired.contains(rule));
  }
}

TEST_CASE("lint: a heartbeat is never advised below what the loader takes", "[lint]") {
  for (const char* text : {"[queue]\nvisibility_timeout = \"0s\"\n[runtime]\nheartbeat_interval = \"1s\"\n",
                           "[queue]\nvisibility_timeout = \"0s\"\n"}) {
    const load_result loaded = load_scenario_text(std::string(text) + agent_jobs(1), "t.toml");
    REQUIRE(loaded.ok());
    const std::vector<lint_warning> ws = lint(loaded.value->world);
    REQUIRE_FALSE(ws.empty());
    for (const lint_warning& w : ws) {
      INFO(format_warning(w));
      CHECK_THAT(w.fix, !Contains("(e.g. 0s)") && !Contains("= \"0s\""));
    }
  }
}

TEST_CASE("lint: each broker's warnings in its own words", "[lint]") {
  auto warnings_of = [](const std::string& text) {
    const load_result loaded = load_scenario_text(text, "t.toml");
    INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
    REQUIRE(loaded.ok());
    std::string all;
    for (const lint_warning& w : lint(loaded.value->world)) all += format_warning(w);
    return all;
  };
  for (const lint_fixture& f : lint_fixtures()) {
    const std::string text = warnings_of(f.text);
    INFO(f.name << "\n" << text);
    const bool kafka = f.text.find("flavour = \"kafka\"") != std::string::npos;
    const bool sidekiq = f.text.find("flavour = \"sidekiq\"") != std::string::npos;
    // Kafka has sessions, polls and rebalances; Sidekiq a fetch with no lease.
    if (kafka || sidekiq) CHECK_THAT(text, !Contains("visibility timeout") && !Contains("lease"));
    if (kafka || sidekiq) CHECK_THAT(text, !Contains("max_receive_count"));
  }
  // A kill mid-step is after the step's own effect: an email is sent, not refunded.
  const std::string email = warnings_of(
      "[[job_type]]\nname = \"welcome\"\nsteps = [{ tool = \"email\", target = \"user_{job}\" }]\n"
      "[[job]]\nid = \"job_1\"\ntype = \"welcome\"\n" +
      rolling_kill);
  CHECK_THAT(email, Contains("die mid-step (after the email's send, before the ack)") && !Contains("refund"));
  // Kafka: what a kill costs is a session timeout and a rebalance.
  const std::string kafka = warnings_of("[queue]\nflavour = \"kafka\"\n[kafka]\nauto_offset_reset = \"earliest\"\n" +
                                        agent_jobs(1) + rolling_kill);
  CHECK_THAT(kafka, Contains("the record is read again after the group's session timeout (45s) and a rebalance"));
  // Sidekiq's BasicFetch loses a killed job.
  const std::string sidekiq = warnings_of("[queue]\nflavour = \"sidekiq\"\n" + agent_jobs(1) + rolling_kill);
  CHECK_THAT(sidekiq, Contains("the job is lost with the process (Sidekiq's BasicFetch): its work is never done"));
}

TEST_CASE("execution_timeout_below_work: a timeout that cuts the slice off", "[lint]") {
  world_config c = clean_config();
  // The agent job's slice: read, model (p99 20 s) and refund; 10 s cuts it off.
  c.runtime.execution_timeout = duration::from_s(10);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "execution_timeout_below_work");
  CHECK(w.setting == "runtime.execution_timeout");
  CHECK_THAT(w.why, Contains("kills the worker process") && Contains("after 10s") && Contains("job_1"));
  c.runtime.execution_timeout = duration::from_s(25);  // above the slice, 5 s below the 30 s lease
  CHECK(lint(c).empty());
}

TEST_CASE("execution_timeout_near_lease: a timeout not several seconds below the lease", "[lint]") {
  world_config c = clean_config();
  c.runtime.heartbeat_interval.reset();
  c.runtime.visibility_timeout = duration::from_s(60);
  c.runtime.execution_timeout = duration::from_s(58);
  const lint_warning w = only_warning(c);
  CHECK(w.rule == "execution_timeout_near_lease");
  CHECK_THAT(w.why, Contains("58s") && Contains("runtime.visibility_timeout") && Contains("twice at once"));
  CHECK_THAT(w.fix, Contains("55s"));
  c.runtime.execution_timeout = duration::from_s(55);
  CHECK(lint(c).empty());
  // A heartbeat keeps the lease: nothing runs out before the timeout.
  c.runtime.execution_timeout = duration::from_s(58);
  c.runtime.heartbeat_interval = duration::from_s(10);
  CHECK_FALSE(fires(c, "execution_timeout_near_lease"));
}
