#pragma once
// Inside `twice lint` (lint.hpp): what the rules share, and the rules
// themselves, one function each, in files by what they are about:
//   write_rules.cpp  writes and their keys, claims and records
//   retry_rules.cpp  backoff, jitter, what is retried, retry budgets
//   queue_rules.cpp  what bounds deliveries, dead letters, tenants
//   time_rules.cpp   leases, heartbeats, probes, deploys, timeouts
// (rule_helpers.cpp defines the helpers). Each rule appends its warnings to
// `out`; lint.cpp calls them in the order of lint_rules.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/lint/lint.hpp>
#include "sim/duration_text.hpp"

namespace twice::lint_rules_detail {

// ---- scenario key paths ------------------------------------------------------
// The settings warnings name, as scenario files write them. Kept together so
// they can follow the scenario format in one place.
namespace key {
inline constexpr std::string_view discipline_key = "discipline.key";
inline constexpr std::string_view pass_key_to_vendor = "discipline.pass_key_to_vendor";
inline constexpr std::string_view retry_non_retryable = "discipline.retry_non_retryable";
inline constexpr std::string_view reset_attempts = "discipline.reset_attempts_on_reenqueue";
inline constexpr std::string_view checkpoint = "discipline.checkpoint";
inline constexpr std::string_view hold_transaction = "discipline.hold_transaction_across_model";
inline constexpr std::string_view runtime_visibility = "runtime.visibility_timeout";
inline constexpr std::string_view queue_visibility = "queue.visibility_timeout";
inline constexpr std::string_view heartbeat = "runtime.heartbeat_interval";
inline constexpr std::string_view maximum_interval = "retry.maximum_interval";
inline constexpr std::string_view maximum_attempts = "retry.maximum_attempts";
inline constexpr std::string_view jitter = "retry.jitter";
inline constexpr std::string_view max_receive_count = "queue.max_receive_count";
inline constexpr std::string_view split_max_receive_count = "split.max_receive_count";
inline constexpr std::string_view dead_letter_enabled = "dead_letter_queue.enabled";
inline constexpr std::string_view pool_size = "store.pool_size";
inline std::string deploy_strategy(std::size_t index) { return fmt::format("deploy[{}].strategy", index); }
}  // namespace key

// Step names the world registers its built-in tools under.
namespace tool_name {
inline constexpr std::string_view refund = "refund";
inline constexpr std::string_view email = "email";
inline constexpr std::string_view model = "model";
inline constexpr std::string_view read = "read";
}  // namespace tool_name

std::string text(sim::duration d);
std::string ratio_text(std::uint32_t milli);
sim::duration third_of(sim::duration d);
// "Raise ..." from "raise ...".
std::string capitalized(std::string s);

// ---- advice ---------------------------------------------------------------------
// Values as a scenario file writes them (lint_advice::value).
std::string toml_duration(sim::duration d);  // "\"10s\""
std::string toml_word(std::string_view w);   // "\"stable\""
std::string toml_bool(bool b);               // "true"
std::string toml_int(std::uint64_t n);       // "5"
// One way to fix a warning: a value, or values set together.
inline lint_advice advise(std::string setting, std::string value) {
  return lint_advice{{advised_value{std::move(setting), std::move(value)}}};
}
inline lint_advice advise(std::vector<advised_value> values) { return lint_advice{std::move(values)}; }

// ---- the broker's own words -----------------------------------------------------
// Which broker the scenario runs (queue.flavour), as the rules tell them apart.
enum class broker_kind : std::uint8_t { sqs, sqs_fifo, sidekiq, celery, pubsub, kafka };
broker_kind broker_of(const world_config& config);
// What a delivery's lease is called: "visibility timeout", "ack deadline";
// empty where there is none (Sidekiq, Kafka).
std::string_view lease_word(const world_config& config);
// How a message whose slice died mid-step (a crash, a kill) comes back, or
// that it does not: "the message comes back after the visibility timeout
// (30s)", "the record is read again after the group's session timeout
// (45s) and a rebalance", "the job is lost with the process (BasicFetch)".
std::string after_death(const world_config& config);
// Whether a slice that dies with its message brings it back at all (not on
// Sidekiq's BasicFetch, nor on Celery without acks_late: the message went
// with the process or was acked when received).
bool death_redelivers(const world_config& config);
// What runs a step again after it acted, on this broker: "a crash before
// the ack (the message comes back after the visibility timeout, 30s) or a
// retry after a timeout"; on Sidekiq's BasicFetch no crash (it loses the
// job), but a retry or a job pushed back at a shutdown.
std::string step_repeats_after(const world_config& config);
// What else interrupts a job's run and runs it again, on this broker: "a
// crash, an expired lease", "a crash, a rebalance", "a shutdown that pushes
// the job back".
std::string_view interruptions(const world_config& config);
// The ways a job is delivered again on this broker: "a nack, a crash, a
// lease that ran out", "a record read again after a rebalance".
std::string_view redeliveries(const world_config& config);
// The setting that redrives a message after so many receives, and what it
// takes ("queue.max_receive_count"; Pub/Sub's "pubsub.max_delivery_attempts",
// 5 to 100); empty where the broker has none (Sidekiq, Celery, Kafka).
std::string_view redrive_setting(const world_config& config);
// The first step (in job order) that writes, and its effect in words: "the
// vendor's refund", "the charge through the charge tool" (money of the
// scenario's own), "the email's send", "the sms tool's effect".
// Empty when no step writes.
std::string first_effect(const world_config& config);

// The first step (in job order, then step order) that calls one of `tools`,
// and how many jobs call one at all.
// Copies of the job and step: a generated spec lives only while it is walked.
struct tool_use {
  std::string job;
  std::size_t step = 0;  // 1-based, as keys and timelines number steps
  step_spec spec;
  std::size_t jobs = 0;
};

std::optional<tool_use> find_use(const world_config& config, std::initializer_list<std::string_view> tools);
std::optional<tool_use> find_use(const world_config& config, const std::vector<std::string_view>& tools);
// The scenario's own write tools ([tools.NAME] with effect = "write", then
// the registered tools that say they write) whose far side takes a key
// (keyed = true) or ignores keys (keyed = false).
std::vector<std::string_view> own_write_tools(const world_config& config, bool keyed);
// Whether steps calling `tool` move money (the refund tool, or a tool of the
// scenario's own or a registered one with moves_money).
bool moves_money(const world_config& config, std::string_view tool);
std::string where(const tool_use& use);
std::string stable_key(const tool_use& use);
sim::duration visibility(const world_config& config);
std::string_view visibility_setting(const world_config& config);
bool redrive_active(const world_config& config);

// Whether the attempt counter bounds a job whose slice crashes every time,
// and one whose slice fails every time (rule_helpers.cpp says how).
bool crash_loops_counted(const world_config& config);
bool failures_counted(const world_config& config);

// Each tool as a caller sees it: how long it takes, how long the caller
// waits, whether it changes something. Write tools first: the payment
// vendor, then email, model, read, then the scenario's own in order.
struct called_tool {
  std::string_view step_name;
  const service_tool_config* tool;
  const latency_model* latency;
  sim::duration client_timeout;
  bool writes = false;
  // How long a call can hold its caller: the p99, bounded by the timeout.
  sim::duration hold() const { return std::min(latency->p99(), client_timeout); }
};
std::vector<called_tool> called_tools(const world_config& config);

// The job whose slice can take longest, and how long: its calls, each the
// p99 bounded by the caller's timeout (reads and model calls hold a slice
// as long as writes). Empty job when the scenario has no job.
struct longest_slice {
  std::string job;
  sim::duration length;
};
longest_slice longest_slice_of(const world_config& config);

// The first step (in job order) that is not recorded when it succeeds and
// that `matches`, with its job's type, and how many jobs have such a step.
struct unrecorded_use {
  tool_use use;
  std::string type;
};
template <class Matches>
std::optional<unrecorded_use> first_unrecorded(const world_config& config, Matches matches) {
  std::optional<unrecorded_use> found;
  std::size_t jobs = 0;
  for_each_job(config, [&](const job_spec& job) {
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
      const step_spec& s = job.steps[i];
      if (s.checkpointed || !matches(s)) continue;
      if (!found) found = unrecorded_use{tool_use{job.id, i + 1, s, 0}, job.type};
      jobs += 1;
      return;
    }
  });
  if (found) found->use.jobs = jobs;
  return found;
}

// ---- the rules ----------------------------------------------------------------

// write_rules.cpp
void write_without_key(const world_config& config, std::vector<lint_warning>& out);
void checkpoint_before_effect(const world_config& config, std::vector<lint_warning>& out);
void key_per_attempt(const world_config& config, std::vector<lint_warning>& out);
void write_without_claim(const world_config& config, std::vector<lint_warning>& out);
void batch_without_item_progress(const world_config& config, std::vector<lint_warning>& out);
void redrive_after_key_expiry(const world_config& config, std::vector<lint_warning>& out);
void dedupe_window_below_retry_horizon(const world_config& config, std::vector<lint_warning>& out);

// retry_rules.cpp
void no_backoff_cap(const world_config& config, std::vector<lint_warning>& out);
void no_jitter(const world_config& config, std::vector<lint_warning>& out);
void retries_non_retryable(const world_config& config, std::vector<lint_warning>& out);
void attempts_reset_on_reenqueue(const world_config& config, std::vector<lint_warning>& out);
void orphan_rescue_revives_exhausted(const world_config& config, std::vector<lint_warning>& out);
void attempts_given_back(const world_config& config, std::vector<lint_warning>& out);
void attempts_left_by_equality(const world_config& config, std::vector<lint_warning>& out);
void retry_in_gives_up_transient(const world_config& config, std::vector<lint_warning>& out);
void retries_without_budget(const world_config& config, std::vector<lint_warning>& out);

// queue_rules.cpp
void dead_letter_threshold(const world_config& config, std::vector<lint_warning>& out);
void dead_letters_unread(const world_config& config, std::vector<lint_warning>& out);
// The pager auto-resolves the dead-letter page before the on-call answers
// it, and no age alarm's page is open then.
void page_resolved_before_answer(const world_config& config, std::vector<lint_warning>& out);
void tenants_share_queue_unfairly(const world_config& config, std::vector<lint_warning>& out);
void fifo_deduplication_per_send(const world_config& config, std::vector<lint_warning>& out);
void fifo_group_held_by_retry(const world_config& config, std::vector<lint_warning>& out);
void work_id_by_message(const world_config& config, std::vector<lint_warning>& out);
void celery_eta_beyond_visibility(const world_config& config, std::vector<lint_warning>& out);
void max_lease_below_work(const world_config& config, std::vector<lint_warning>& out);
void execution_timeout_below_work(const world_config& config, std::vector<lint_warning>& out);
void execution_timeout_near_lease(const world_config& config, std::vector<lint_warning>& out);

// time_rules.cpp
void visibility_below_tool_p99(const world_config& config, std::vector<lint_warning>& out);
void heartbeat_too_slow(const world_config& config, std::vector<lint_warning>& out);
void transaction_across_model(const world_config& config, std::vector<lint_warning>& out);
void rolling_kill_without_drain(const world_config& config, std::vector<lint_warning>& out);
void liveness_probe_blocked(const world_config& config, std::vector<lint_warning>& out);
void drain_grace_below_work(const world_config& config, std::vector<lint_warning>& out);
void client_timeout_below_p99(const world_config& config, std::vector<lint_warning>& out);
void orphan_rescue_before_work_ends(const world_config& config, std::vector<lint_warning>& out);
void job_table_without_transaction_timeout(const world_config& config, std::vector<lint_warning>& out);
void kafka_batch_beyond_poll_interval(const world_config& config, std::vector<lint_warning>& out);
void kafka_batch_beyond_rebalance_timeout(const world_config& config, std::vector<lint_warning>& out);
void kafka_offset_reset_latest(const world_config& config, std::vector<lint_warning>& out);
void kafka_offset_stored_before_processing(const world_config& config, std::vector<lint_warning>& out);
void sidekiq_wrapped_shutdown_retried(const world_config& config, std::vector<lint_warning>& out);

}  // namespace twice::lint_rules_detail
