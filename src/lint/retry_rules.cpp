#include <limits>

#include "lint/rules.hpp"

// Retries: how long they wait, what they retry, and what stops a storm of them.

namespace twice::lint_rules_detail {
namespace {

bool backoff_grows(const retry_policy& policy) {
  return policy.initial_interval > sim::duration::zero() && policy.coefficient_milli > 1000;
}

// The first retry (0-based) whose uncapped envelope passes `limit`, if one
// does within a bounded number of retries.
std::optional<std::uint32_t> first_retry_above(const retry_policy& policy, sim::duration limit) {
  constexpr std::uint32_t retries_max = 100'000;
  std::int64_t us = policy.initial_interval.us();
  for (std::uint32_t n = 0; n < retries_max; ++n) {
    if (us > limit.us()) return n;
    if (us > std::numeric_limits<std::int64_t>::max() / policy.coefficient_milli) return n + 1;
    const std::int64_t next = us * policy.coefficient_milli / 1000;
    if (next == us) return std::nullopt;  // flat: never passes it
    us = next;
  }
  return std::nullopt;
}

// A Pub/Sub client's nack waits on the subscription's RetryPolicy (none by
// default, no jitter: broker/pubsub_retry_policy.hpp), not on [retry], whose
// delays only pace retries inside a slice there.
bool pubsub_nack(const world_config& config) {
  return config.queue.pubsub && config.runtime.rules.retry == retry_mode::nack;
}

}  // namespace

void no_backoff_cap(const world_config& config, std::vector<lint_warning>& out) {
  const retry_policy& policy = config.runtime.retry;
  if (policy.maximum_interval || pubsub_nack(config)) return;
  if (!backoff_grows(policy)) return;  // a flat backoff needs no cap
  // Sidekiq's schedule has no cap by design: it grows as n^4 and ends with
  // its retries (25 over about three weeks), for a person to fix the cause.
  // On any other broker its long waits are a lease or a delay like any other.
  if (policy.jitter == jitter_kind::sidekiq && policy.maximum_attempts != 0 && config.queue.hold_until_ack) return;
  std::string why = fmt::format(
      "no cap on the backoff: the delay grows {}x per retry from {} without bound (retry #10 waits {})",
      ratio_text(policy.coefficient_milli), text(policy.initial_interval), text(backoff_envelope(policy, 9)));
  // The longest a retry can wait in the broker: an SQS message's
  // visibility (12h), a Pub/Sub message's ack deadline (600s). Celery's
  // retries wait as ETAs in the workers, Sidekiq's in its retry set (no
  // limit), and a retry in place sleeps in the slice.
  const broker_kind broker = broker_of(config);
  const bool held_by_broker =
      config.runtime.rules.retry == retry_mode::nack &&
      (broker == broker_kind::sqs || broker == broker_kind::sqs_fifo || broker == broker_kind::pubsub);
  const sim::duration limit = broker == broker_kind::pubsub ? max_ack_deadline : max_visibility_timeout;
  if (const std::optional<std::uint32_t> n = first_retry_above(policy, limit); n && held_by_broker) {
    why += fmt::format(" and retry #{} passes {}, the longest the broker can hold a message back", *n + 1, text(limit));
  }
  why += "; a job that failed through an outage then waits hours after the dependency recovered.";
  const sim::duration cap = std::min(policy.initial_interval * 100, uncapped_ceiling);
  out.push_back({"no_backoff_cap",
                 std::string(key::maximum_interval),
                 std::move(why),
                 fmt::format("Set retry.maximum_interval to a duration (Temporal's default is 100 x the initial "
                             "interval: {}).",
                             text(cap)),
                 {advise(std::string(key::maximum_interval), toml_duration(cap))}});
}

void no_jitter(const world_config& config, std::vector<lint_warning>& out) {
  const retry_policy& policy = config.runtime.retry;
  if (policy.jitter != jitter_kind::none || pubsub_nack(config)) return;
  if (config.workers <= 1) return;
  std::string delays;
  if (policy.coefficient_milli >= 1000) {
    delays = fmt::format(" ({}, {}, {} ...)", text(backoff_envelope(policy, 0)), text(backoff_envelope(policy, 1)),
                         text(backoff_envelope(policy, 2)));
  }
  out.push_back({"no_jitter", std::string(key::jitter),
                 fmt::format("no jitter with {} workers: jobs that failed together in an outage wait exactly the "
                             "same delays{} and retry at the same instants, so the recovering dependency gets a "
                             "stampede at every step and can fall over again.",
                             config.workers, delays),
                 effective_cap(policy) == sim::duration::zero()
                     ? "Give the retries a backoff to spread (retry.initial_interval and retry.maximum_interval above "
                       "0s, e.g. \"1s\" and \"30s\": these retry at once, as Spring Kafka's DefaultErrorHandler does "
                       "by default) and set retry.jitter = \"full\": each worker draws its delays from its own stream."
                     : "Set retry.jitter = \"full\" (or \"equal\", \"decorrelated\"): each worker draws its delays "
                       "from its own stream and the retries spread out.",
                 effective_cap(policy) == sim::duration::zero()
                     ? std::vector<lint_advice>{advise(
                           {{"retry.initial_interval", toml_duration(sim::duration::from_s(1))},
                            {std::string(key::maximum_interval), toml_duration(sim::duration::from_s(30))},
                            {std::string(key::jitter), toml_word("full")}})}
                     : std::vector<lint_advice>{advise(std::string(key::jitter), toml_word("full"))}});
}

void retries_non_retryable(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.rules.retry_non_retryable) return;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  const std::string cost =
      attempts == 0 ? std::string(
                          "is retried forever (retry.maximum_attempts is unlimited), hammering the tool, and "
                          "never reaches the failure someone must look at")
                    : fmt::format(
                          "burns all {} attempts and their backoff before it fails, hammering the tool and "
                          "delaying the failure someone must look at",
                          attempts);
  out.push_back({"retries_non_retryable",
                 std::string(key::retry_non_retryable),
                 fmt::format("non-retryable errors (400: invoice_not_found, idempotency_error) are retried like "
                             "503s: they fail the same way every time, so each such job {}.",
                             cost),
                 "Set discipline.retry_non_retryable = false: a 400 fails the job at once.",
                 {advise(std::string(key::retry_non_retryable), toml_bool(false))}});
}

void attempts_reset_on_reenqueue(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.rules.reset_attempts_on_reenqueue) return;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  std::string why;
  if (attempts == 0) {
    why = fmt::format(
        "the attempt counter on the job row goes back to 0 on every delivery ({}): attempt numbers "
        "repeat, so nothing can tell how often a job ran, and a retry.maximum_attempts set later never "
        "takes effect.",
        redeliveries(config));
  } else {
    const std::string bound =
        redrive_active(config)
            ? fmt::format("until the broker redrives it after queue.max_receive_count = {} deliveries",
                          config.queue.max_receive_count)
            : std::string("forever, and nothing else stops it");
    // What the count still bounds: failures retried inside one delivery.
    const std::string lease = lease_word(config).empty() ? std::string()
                              : config.queue.pubsub      ? std::string(" or outlives its ack deadline")
                                                         : std::string(" or outlives its lease");
    const std::string who = failures_counted(config)
                                ? fmt::format("a {} whose slice crashes{} on every delivery",
                                              config.runtime.kafka ? "record" : "message", lease)
                                : std::string("a job that always fails, or whose slice crashes on every delivery,");
    why = fmt::format(
        "the attempt counter on the job row goes back to 0 on every delivery ({}), so "
        "retry.maximum_attempts = {} is never reached across deliveries: {} comes back {}.",
        redeliveries(config), attempts, who, bound);
  }
  out.push_back({"attempts_reset_on_reenqueue",
                 std::string(key::reset_attempts),
                 std::move(why),
                 "Set discipline.reset_attempts_on_reenqueue = false: the counter lives on the job row and only "
                 "goes up.",
                 {advise(std::string(key::reset_attempts), toml_bool(false))}});
}

// An orphan rescue that grants a job out of attempts one more on every
// rescue (Lifeline's retry_exhausted, the Lazarus fork): the limit no
// longer bounds a job that kills its worker, which is rescued and run again
// every rescue_after, killing a worker each time (oban-bg/oban#137: 32
// attempts on a max_attempts 1 job).
void orphan_rescue_revives_exhausted(const world_config& config, std::vector<lint_warning>& out) {
  const std::optional<orphan_rescue_config>& rescue = config.runtime.orphan_rescue;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  if (!rescue || rescue->exhausted != exhausted_orphans::retry || attempts == 0) return;
  out.push_back({"orphan_rescue_revives_exhausted",
                 "runtime.orphan_rescue.exhausted",
                 fmt::format("the orphan rescue grants a job that has used its {} attempt{} one more on every rescue: "
                             "a job that kills its worker (out of memory, a segfault, a liveness kill) never records a "
                             "failure, is taken for an orphan every {} and runs again, killing a worker each time, "
                             "and retry.maximum_attempts bounds nothing.",
                             attempts, attempts == 1 ? "" : "s", text(rescue->rescue_after)),
                 "Set runtime.orphan_rescue.exhausted = \"discard\" (Oban's Lifeline does by default): a rescued job "
                 "out of attempts is dead-lettered for a person to look at.",
                 {advise("runtime.orphan_rescue.exhausted", toml_word("discard"))}});
}

// A 503 or 429 that gives its attempt back (runtime.uncount_unavailable):
// given back twice, the counter goes down with every one (Kue's -16518
// remaining, Automattic/kue#338); given back once, it stays where it is,
// which is River's snooze (riverqueue/river#730) and needs a bound of its
// own. Either way a dependency that stays down keeps the job retrying
// forever, and retry.maximum_attempts bounds nothing.
void attempts_given_back(const world_config& config, std::vector<lint_warning>& out) {
  const attempt_take_back take_back = config.runtime.uncount_unavailable;
  if (take_back == attempt_take_back::never) return;
  const bool twice = take_back == attempt_take_back::twice;
  out.push_back({"attempts_given_back",
                 "runtime.uncount_unavailable",
                 twice ? std::string("each 503 or 429 gives its attempt back twice, so the counter goes down with "
                                     "every one: attempt numbers repeat and fall, the counter never reaches "
                                     "retry.maximum_attempts while a dependency stays down, the job never "
                                     "dead-letters, and its backoff never grows past the first step.")
                       : std::string("each 503 or 429 gives its attempt back, so the counter stays where it is: "
                                     "attempt numbers repeat, and while a dependency stays down the job retries "
                                     "forever without reaching retry.maximum_attempts."),
                 "Set runtime.uncount_unavailable = \"never\": every attempt counts, and a job whose dependency "
                 "stays down is dead-lettered for a person to redrive once it is back.",
                 {advise("runtime.uncount_unavailable", toml_word("never"))}});
}

// Out of attempts only at exactly the limit (runtime.attempts_left =
// "not_at_limit", Kue's `if (remaining)` before 0d5ef62): a counter that
// steps over the limit (two failure paths each counting, as Kue's did, or a
// limit lowered under a running job's count) never equals it again, and the
// job retries forever (Automattic/kue#338).
void attempts_left_by_equality(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.attempts_left != attempts_left_check::not_at_limit) return;
  if (config.runtime.retry.maximum_attempts == 0) return;  // unlimited either way
  const bool twice = config.runtime.count_failures == failure_counting::twice;
  out.push_back({"attempts_left_by_equality",
                 "runtime.attempts_left",
                 std::string("a job is out of attempts only when its count equals retry.maximum_attempts, so a "
                             "count that steps over the limit never stops it") +
                     (twice ? ": each failure adds 2 (runtime.count_failures = \"twice\"), so with an odd limit the "
                              "count never equals it, and the job retries until something else stops it."
                            : "; a failure counted twice, or a limit lowered under a running job's count, retries "
                              "the job forever."),
                 "Set runtime.attempts_left = \"below_limit\" (Kue's fix: retry while remaining > 0): a count at or "
                 "past the limit ends the job, whatever step it took to get there.",
                 {advise("runtime.attempts_left", toml_word("below_limit"))}});
}

// Sidekiq before PR #1805 (runtime/sidekiq_retry_config.hpp): the
// Sidekiq::Shutdown raised into a thread blocked in a call comes out of the
// HTTP client wrapped in its own error, which JobRetry took for a failure:
// the job the hard shutdown pushed back also goes to the retry set, two
// copies. The fix re-raises a Shutdown found in the cause chain.
void sidekiq_wrapped_shutdown_retried(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.queue.hold_until_ack || !config.runtime.sidekiq_retry.wrapped_shutdown_retried) return;
  out.push_back({"sidekiq_wrapped_shutdown_retried",
                 "sidekiq.wrapped_shutdown",
                 "this Sidekiq predates PR #1805 (merged 2014-06-27): at a hard shutdown (after the shutdown "
                 "timeout, -t) it pushes the unfinished jobs back, then raises Sidekiq::Shutdown in each busy "
                 "thread; one blocked in a call sees it wrapped in the client's own error, which JobRetry takes "
                 "for a failure and puts the job in the retry set too: the job runs twice, once from the queue and "
                 "once from the retry set.",
                 "Upgrade Sidekiq (JobRetry re-raises a Sidekiq::Shutdown found in the cause chain, "
                 "exception_caused_by_shutdown?): sidekiq.wrapped_shutdown = \"not_retried\"; and give every write a "
                 "key, so the copy that runs again replays.",
                 {advise("sidekiq.wrapped_shutdown", toml_word("not_retried"))}});
}

// A sidekiq_retry_in block that discards or kills a failure a later
// attempt may get past: the first 503 of an outage, a timeout or a 429
// ends the job at once. :discard leaves it in no dead set, only the death
// handlers see it (sidekiq/sidekiq v8.1.7 lib/sidekiq/job_retry.rb lines
// 192-195); :kill moves it to the dead set without a retry (lines 196-197).
void retry_in_gives_up_transient(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.queue.hold_until_ack) return;
  for (std::size_t i = 0; i < sidekiq_failure_count; ++i) {
    const retry_in_choice& choice = config.runtime.sidekiq_retry.retry_in[i];
    const bool discard = choice.action == retry_in_action::discard;
    if (!is_transient(static_cast<sidekiq_failure>(i)) || (!discard && choice.action != retry_in_action::kill))
      continue;
    const std::string kind(sidekiq_failure_names[i]);
    const std::string setting = "sidekiq.retry_in." + kind;
    out.push_back(
        {"retry_in_gives_up_transient",
         setting,
         fmt::format("sidekiq_retry_in returns :{} for {}, a failure the next attempt may get past: the first one "
                     "ends the job, with no retry. {}",
                     discard ? "discard" : "kill", kind,
                     discard ? "Discarded, it is in no dead set: nobody can retry it from the Web UI, and only a "
                               "death handler hears of it; during a vendor's outage every job that calls it is lost."
                             : "Killed, it waits in the dead set for a person; during a vendor's outage every job "
                               "that calls it does."),
         fmt::format("Set {} = \"default\" (the block returns nil: Sidekiq's schedule, 25 retries over about 3 "
                     "weeks), or a delay; keep :discard and :kill for the failures no retry fixes (bad_request).",
                     setting),
         {advise(setting, toml_word("default"))}});
  }
}

// Retries with no budget against a far side with a fixed number of servers
// that serves its queue oldest first with no queue timeout: a short slowdown
// can tip it into a storm that outlives the slowdown (server_pool.hpp).
void retries_without_budget(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.retry_budget || config.runtime.circuit_breaker || config.runtime.retry.maximum_attempts == 1)
    return;
  for (const called_tool& called : called_tools(config)) {  // the payment vendor ("refund") too
    const std::string_view name = called.step_name;
    const service_tool_config* tool = called.tool;
    const server_pool_config& pool = tool->pool;
    if (pool.servers == 0 || pool.queue_timeout || pool.order == queue_order::lifo) continue;
    const std::optional<tool_use> use = find_use(config, {name});
    if (!use) continue;
    // The refund tool's far side is [vendor] (or [tools.refund]).
    const std::string far_side =
        name == tool_name::refund ? std::string("vendor.") : "tools." + std::string(name) + ".";
    out.push_back(
        {"retries_without_budget",
         "retry.budget",
         fmt::format("{} calls the {} tool, which has {} servers and serves its queue oldest first, including the "
                     "requests whose callers already timed out; retries have no budget. A slowdown that pushes "
                     "waits past the {} client timeout makes every caller retry, every abandoned request still takes "
                     "a server, and the queue can stay full after the slowdown ends: a retry storm.",
                     where(*use), name, pool.servers, text(tool->client_timeout)),
         "Add [retry.budget] (the AWS SDKs' retry quota: retries stop when most calls fail) or "
         "[retry.circuit_breaker] (calls fail fast while most fail), or have the far side "
         "shed stale work: " +
             far_side + "queue_timeout at the callers' timeout (" + text(tool->client_timeout) +
             ") and queue_order = \"lifo\".",
         {advise("retry.budget", "{}"), advise("retry.circuit_breaker", "{}"),
          advise({{far_side + "queue_timeout", toml_duration(tool->client_timeout)},
                  {far_side + "queue_order", toml_word("lifo")}})}});
    return;  // one warning names the first such tool
  }
}

}  // namespace twice::lint_rules_detail
