#!/usr/bin/env bash
# `twice lint` over the whole catalogue, file by file: a fixed scenario lints
# clean (exit 0, "no warnings"), and a broken one draws exactly the warnings
# listed for it (exit 1), the anti-pattern it shows among them. Every file in
# scenarios/ must be listed, so a new scenario is classified when it is added.
# Usage: lint_catalogue.sh TWICE_BINARY SCENARIOS_DIR
set -uo pipefail
twice=$1
scenarios=$2

# file: the rules it warns about, in the order lint prints them ("" = clean).
declare -A expected=(
  [ambiguous_timeout]="write_without_key"
  [ambiguous_timeout_fixed]=""
  [attempts_reset]="attempts_reset_on_reenqueue dead_letter_threshold"
  [attempts_reset_fixed]=""
  [backoff_no_cap]="no_backoff_cap"
  [backoff_no_cap_fixed]=""
  [checkpoint_before_effect]="checkpoint_before_effect"
  [checkpoint_before_effect_fixed]=""
  # Refunds with no key, on purpose (the pair shows the drain alone): the
  # file allows write_without_key in [lint], with that reason.
  [dead_letters_expire]="dead_letters_unread"
  [dead_letters_expire_fixed]=""
  [dead_letter_alarm_auto_resolved]="page_resolved_before_answer"
  [dead_letter_alarm_auto_resolved_fixed]=""
  [dedupe_window_expired]="dedupe_window_below_retry_horizon"
  [dedupe_window_expired_fixed]=""
  [deploy_drain]=""
  [fifo_exactly_once]="write_without_key rolling_kill_without_drain"
  [fifo_exactly_once_fixed]=""
  [fifo_group_blocked]="fifo_group_held_by_retry"
  [fifo_group_blocked_fixed]=""
  [fifo_dedup_per_retry]="fifo_deduplication_per_send"
  [fifo_dedup_per_retry_fixed]=""
  [brooker_retry_budget]=""
  [brooker_jitter]=""
  [deploy_rolling_kill]="write_without_key rolling_kill_without_drain"
  [double_refund]="write_without_key rolling_kill_without_drain"
  [double_refund_fixed]=""
  [double_refund_rolling_deploy_fixed]=""
  [email_no_dedupe]="write_without_claim"
  [email_no_dedupe_fixed]=""
  [standard_queue_duplicate]="write_without_claim"
  [standard_queue_duplicate_fixed]=""
  [billing_retry_double_charge]="write_without_key"
  [billing_retry_double_charge_fixed]=""
  [attempts_decremented_twice]="attempts_given_back"
  [attempts_decremented_twice_fixed]=""
  [attempts_counted_past_limit]="dead_letter_threshold attempts_left_by_equality"
  # No broker redrive on purpose (Kue's Redis): allowed in [lint].
  [attempts_counted_past_limit_fixed]=""
  [noisy_tenant_limited]=""
  [noisy_tenant_queues]=""
  [batch_email_resent]="write_without_claim batch_without_item_progress"
  # Per-item progress alone, without a claim before the send: allowed in [lint].
  [batch_email_resent_fixed]=""
  [key_per_attempt]="key_per_attempt"
  [key_per_attempt_fixed]=""
  # No key, on purpose (the fixed file adds one): allowed in [lint].
  # No key, on purpose (the fixed file adds one): allowed in [lint].
  [execution_timeout_mid_job]="batch_without_item_progress execution_timeout_below_work"
  [execution_timeout_mid_job_fixed]=""
  [liveness_kill_mid_write]="liveness_probe_blocked"
  # The probe still kills the pod mid-call: allowed in [lint], the key is the fix shown.
  [liveness_kill_mid_write_fixed]=""
  [noisy_tenant]="tenants_share_queue_unfairly"
  [noisy_tenant_fixed]=""
  [outbox]=""
  [poison_pill_uncounted]="dead_letter_threshold"
  [poison_pill_uncounted_fixed]=""
  [orphan_rescue_over_limit]="orphan_rescue_revives_exhausted"
  [orphan_rescue_over_limit_fixed]=""
  [postgres_long_transaction]="job_table_without_transaction_timeout"
  [postgres_long_transaction_fixed]=""
  [redrive_after_key_expiry]="redrive_after_key_expiry"
  [redrive_after_key_expiry_fixed]=""
  [retry_400]="retries_non_retryable"
  [retry_400_fixed]=""
  [retry_storm]="retries_without_budget"
  [metastable_retry_storm]="retries_without_budget"
  [metastable_retry_storm_fixed]=""
  [retry_storm_budget]=""
  [retry_storm_breaker]=""
  [retry_storm_fixed]=""
  [sidekiq_term_timeout]="write_without_key batch_without_item_progress drain_grace_below_work"
  [sidekiq_term_timeout_fixed]=""
  [sidekiq_shutdown_wrapped]="write_without_key batch_without_item_progress drain_grace_below_work sidekiq_wrapped_shutdown_retried"
  [sidekiq_shutdown_wrapped_fixed]=""
  # The block's catch-all discards every transient kind: one warning each.
  [sidekiq_retry_in_discard]="retry_in_gives_up_transient retry_in_gives_up_transient retry_in_gives_up_transient retry_in_gives_up_transient"
  [sidekiq_retry_in_discard_fixed]=""
  [celery_eta_beyond_visibility]="write_without_key no_jitter celery_eta_beyond_visibility"
  # The broker setting alone, no key on purpose, one job's countdown without jitter: allowed in [lint].
  [celery_eta_beyond_visibility_fixed]=""
  [pubsub_no_lease_management]="write_without_key visibility_below_tool_p99"
  # Lease management alone, no key on purpose: allowed in [lint].
  [pubsub_no_lease_management_fixed]=""
  [pubsub_redelivered_forever]="write_without_key visibility_below_tool_p99 dead_letter_threshold work_id_by_message"
  [pubsub_redelivered_forever_fixed]=""
  [kafka_max_poll_interval]="write_without_key no_jitter kafka_batch_beyond_poll_interval"
  # max.poll.records alone, no key on purpose, nothing retried: allowed in [lint].
  [kafka_max_poll_interval_fixed]=""
  [kafka_rebalance_timeout]="write_without_key no_jitter kafka_batch_beyond_rebalance_timeout"
  # The rebalance timeout alone, no key on purpose, nothing retried: allowed in [lint].
  [kafka_rebalance_timeout_fixed]=""
  [kafka_no_job_table]="write_without_key work_id_by_message"
  # The job table alone, no key on purpose: allowed in [lint].
  [kafka_no_job_table_fixed]=""
  [kafka_offset_stored_early]="kafka_offset_stored_before_processing"
  [kafka_offset_stored_early_fixed]=""
  [slice_cannot_heartbeat]="write_without_key visibility_below_tool_p99"
  # As deploy_drain: the key is missing on purpose, allowed in [lint].
  [slice_cannot_heartbeat_fixed]=""
  [transaction_across_model]="transaction_across_model"
  [transaction_across_model_fixed]=""
  [vendor_outage_jitter]=""
  [vendor_outage_stampede]="no_jitter"
  [visibility_shorter_than_tool]="write_without_key visibility_below_tool_p99"
  [visibility_shorter_than_tool_fixed]=""
)

status=0
file_failed=0
fail() {
  echo "FAIL $1: $2"
  status=1
  file_failed=1
}

checked=0
for file in "$scenarios"/*.toml; do
  name=$(basename "$file" .toml)
  if [[ ! -v expected[$name] ]]; then
    fail "$name" "not listed in $0: say which warnings it should draw"
    continue
  fi
  file_failed=0
  out=$("$twice" lint "$file")
  code=$?
  rules=$(grep -o '^warning\[[a-z_0-9]*\]' <<<"$out" | sed 's/^warning\[\(.*\)\]$/\1/' | paste -sd' ' -)
  want=${expected[$name]}
  if [[ -z $want ]]; then
    [[ $code -eq 0 ]] || fail "$name" "exit $code, expected 0"
    grep -q ': no warnings$' <<<"$out" || fail "$name" "expected no warnings"
  else
    [[ $code -eq 1 ]] || fail "$name" "exit $code, expected 1"
  fi
  [[ $rules == "$want" ]] || fail "$name" "warned about [$rules], expected [$want]"
  [[ $file_failed -eq 0 ]] || echo "$out"
  checked=$((checked + 1))
done

for name in "${!expected[@]}"; do
  [[ -f $scenarios/$name.toml ]] || fail "$name" "listed but not in $scenarios"
done

[[ $status -eq 0 ]] && echo "lint_catalogue: $checked scenarios lint as expected"
exit $status
