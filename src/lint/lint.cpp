#include <twice/lint/lint.hpp>

#include <fmt/format.h>

#include "lint/rules.hpp"

namespace twice {

std::vector<lint_warning> lint(const world_config& config) {
  using namespace lint_rules_detail;
  std::vector<lint_warning> out;
  write_without_key(config, out);
  visibility_below_tool_p99(config, out);
  heartbeat_too_slow(config, out);
  no_backoff_cap(config, out);
  no_jitter(config, out);
  retries_non_retryable(config, out);
  attempts_reset_on_reenqueue(config, out);
  checkpoint_before_effect(config, out);
  key_per_attempt(config, out);
  transaction_across_model(config, out);
  rolling_kill_without_drain(config, out);
  dead_letter_threshold(config, out);
  write_without_claim(config, out);
  batch_without_item_progress(config, out);
  retries_without_budget(config, out);
  dead_letters_unread(config, out);
  redrive_after_key_expiry(config, out);
  liveness_probe_blocked(config, out);
  drain_grace_below_work(config, out);
  client_timeout_below_p99(config, out);
  dedupe_window_below_retry_horizon(config, out);
  tenants_share_queue_unfairly(config, out);
  fifo_deduplication_per_send(config, out);
  fifo_group_held_by_retry(config, out);
  orphan_rescue_revives_exhausted(config, out);
  orphan_rescue_before_work_ends(config, out);
  job_table_without_transaction_timeout(config, out);
  attempts_given_back(config, out);
  celery_eta_beyond_visibility(config, out);
  max_lease_below_work(config, out);
  kafka_batch_beyond_poll_interval(config, out);
  kafka_batch_beyond_rebalance_timeout(config, out);
  kafka_offset_reset_latest(config, out);
  work_id_by_message(config, out);
  execution_timeout_below_work(config, out);
  execution_timeout_near_lease(config, out);
  page_resolved_before_answer(config, out);
  attempts_left_by_equality(config, out);
  kafka_offset_stored_before_processing(config, out);
  retry_in_gives_up_transient(config, out);
  sidekiq_wrapped_shutdown_retried(config, out);
  return out;
}

std::string format_warning(const lint_warning& warning) {
  return fmt::format("warning[{}] {}\n  why: {}\n  fix: {}\n", warning.rule, warning.setting, warning.why, warning.fix);
}

}  // namespace twice
