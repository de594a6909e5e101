#pragma once
// `twice lint`: static warnings for the classic at-least-once mistakes,
// found in a world's configuration before anything runs. Each warning names
// the scenario setting to change (its key path, as scenario files write it),
// says why it bites in production with the configuration's own numbers, and
// says what to change. docs/lint.md documents every rule with an example.
//
//   for (const lint_warning& w : lint(scenario.world)) std::cout << format_warning(w);
//
// A rule fires only when its condition is really present: a rule about a
// tool fires only when some job calls that tool (tools are known by the step
// names the world registers: "refund" is the payment vendor and writes with
// a key; "email" writes and takes no key; "read" and "model" do not write;
// a scenario's own tools are what their [tools.NAME] tables say).
// Warnings come in rule order (the order of lint_rules below), and within a
// rule in the order of the settings they name (deploy[0] before deploy[1]).
// The linter only reads the configuration: same config, same warnings.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include <twice/world/world.hpp>

namespace twice {

// A value a warning's fix advises, as a scenario file writes it: the key
// path and the value in TOML ("\"10s\"", "true", "5").
struct advised_value {
  std::string setting;  // "runtime.heartbeat_interval", "deploy[0].strategy"
  std::string value;    // "\"10s\""
};

// One way to fix a warning: the values it sets, together. The loader
// accepts the scenario it was advised for with them set (tests/unit/lint/test_lint.cpp
// sets each advice's values in turn and loads the result).
struct lint_advice {
  std::vector<advised_value> values;
};

struct lint_warning {
  std::string rule;     // stable snake_case id, one of lint_rules
  std::string setting;  // scenario key path: "retry.maximum_interval", "deploy[0].strategy"
  std::string why;      // why it bites in production, with the numbers
  std::string fix;      // what to change
  // The ways to fix it `fix` names with values a scenario can take as they
  // are, each one on its own (none where the fix is a change of code or of
  // a job's steps).
  std::vector<lint_advice> advice = {};
};

// Every rule id, in the order warnings are reported.
inline constexpr std::array<std::string_view, 41> lint_rules{
    "write_without_key",
    "visibility_below_tool_p99",
    "heartbeat_too_slow",
    "no_backoff_cap",
    "no_jitter",
    "retries_non_retryable",
    "attempts_reset_on_reenqueue",
    "checkpoint_before_effect",
    "key_per_attempt",
    "transaction_across_model",
    "rolling_kill_without_drain",
    "dead_letter_threshold",
    "write_without_claim",
    "batch_without_item_progress",
    "retries_without_budget",
    "dead_letters_unread",
    "redrive_after_key_expiry",
    "liveness_probe_blocked",
    "drain_grace_below_work",
    "client_timeout_below_p99",
    "dedupe_window_below_retry_horizon",
    "tenants_share_queue_unfairly",
    "fifo_deduplication_per_send",
    "fifo_group_held_by_retry",
    "orphan_rescue_revives_exhausted",
    "orphan_rescue_before_work_ends",
    "job_table_without_transaction_timeout",
    "attempts_given_back",
    "celery_eta_beyond_visibility",
    "max_lease_below_work",
    "kafka_batch_beyond_poll_interval",
    "kafka_offset_reset_latest",
    "work_id_by_message",
    "kafka_batch_beyond_rebalance_timeout",
    "execution_timeout_below_work",
    "execution_timeout_near_lease",
    "page_resolved_before_answer",
    "attempts_left_by_equality",
    "kafka_offset_stored_before_processing",
    "retry_in_gives_up_transient",
    "sidekiq_wrapped_shutdown_retried",
};

std::vector<lint_warning> lint(const world_config& config);

// For the command line, one warning as a few lines ending in '\n':
//   warning[no_backoff_cap] retry.maximum_interval
//     why: ...
//     fix: ...
std::string format_warning(const lint_warning& warning);

}  // namespace twice
