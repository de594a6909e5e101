#include "lint/rules.hpp"

#include <algorithm>

namespace twice::lint_rules_detail {

// Writes: whether a repeated call has its effect again (keys, claims,
// checkpoints, the record a retry finds).

// A write of the scenario's own whose far side honours keys, called without
// one (the key discipline is none, or the key is never sent): its refund-free
// version of the double refund.
void own_write_without_key(const world_config& config, std::vector<lint_warning>& out) {
  const discipline& rules = config.runtime.rules;
  if (rules.key != key_mode::none && rules.pass_key_to_vendor) return;
  const std::optional<tool_use> use = find_use(config, own_write_tools(config, true));
  if (!use) return;
  const bool none = rules.key == key_mode::none;
  const bool money = moves_money(config, use->spec.tool);
  // A registered tool reports no effects: the invariants that catch its
  // repeat are the program's own.
  const bool registered = std::any_of(config.registered_tools.begin(), config.registered_tools.end(),
                                      [&](const auto& t) { return t.name == use->spec.tool; });
  std::vector<advised_value> keyed;
  if (none) keyed.push_back({std::string(key::discipline_key), toml_word("stable")});
  if (!rules.pass_key_to_vendor) keyed.push_back({std::string(key::pass_key_to_vendor), toml_bool(true)});
  out.push_back(
      {"write_without_key",
       std::string(none ? key::discipline_key : key::pass_key_to_vendor),
       fmt::format("{} calls the {} tool, a write whose far side honours idempotency keys, {}: the step "
                   "runs again after {}, and the far side acts again ({}).",
                   where(*use), use->spec.tool, none ? "with no key at all" : "but the key is never sent to it",
                   step_repeats_after(config),
                   registered ? "a registered tool: your own invariants see it"
                   : money    ? "no_double_payment, ledgers_agree"
                              : "one_effect_per_step"),
       fmt::format("Set discipline.key = \"stable\" and discipline.pass_key_to_vendor = true: the far side "
                   "then recognises \"{}\" on a retry and does not act twice.",
                   stable_key(*use)),
       {advise(std::move(keyed))}});
}

void write_without_key(const world_config& config, std::vector<lint_warning>& out) {
  const std::optional<tool_use> use = find_use(config, {tool_name::refund});
  if (!use) return own_write_without_key(config, out);
  const discipline& rules = config.runtime.rules;
  if (rules.key == key_mode::none) {
    std::vector<advised_value> keyed{{std::string(key::discipline_key), toml_word("stable")}};
    if (!rules.pass_key_to_vendor) keyed.push_back({std::string(key::pass_key_to_vendor), toml_bool(true)});
    out.push_back({"write_without_key",
                   std::string(key::discipline_key),
                   fmt::format("{} refunds {} cents through the payment vendor with no idempotency key: the step "
                               "runs again after {}, and refunds again (two rows in the vendor's ledger: the double "
                               "refund).",
                               where(*use), use->spec.amount_cents, step_repeats_after(config)),
                   fmt::format("Set discipline.key = \"stable\" (job:step:tool, e.g. \"{}\") and {} "
                               "discipline.pass_key_to_vendor = true: the vendor then replays its first answer for a "
                               "key it has seen instead of refunding again.",
                               stable_key(*use), rules.pass_key_to_vendor ? "keep" : "set"),
                   {advise(std::move(keyed))}});
    return;
  }
  if (!rules.pass_key_to_vendor) {
    out.push_back({"write_without_key",
                   std::string(key::pass_key_to_vendor),
                   fmt::format("{} refunds {} cents through the payment vendor, but the key is never sent to it: "
                               "when the step runs again after {}, before its local row was written, the vendor "
                               "refunds again and the two ledgers disagree.",
                               where(*use), use->spec.amount_cents, step_repeats_after(config)),
                   fmt::format("Set discipline.pass_key_to_vendor = true: the vendor is the tie-break, it replays "
                               "its stored answer for \"{}\" instead of refunding again.",
                               stable_key(*use)),
                   {advise(std::string(key::pass_key_to_vendor), toml_bool(true))}});
  }
}

void checkpoint_before_effect(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.checkpoint != checkpoint_mode::before_effect) return;
  // Only a side effect can be lost: the first writing step.
  std::vector<std::string_view> writes{tool_name::refund, tool_name::email};
  for (const bool keyed : {true, false})
    for (const std::string_view own : own_write_tools(config, keyed)) writes.push_back(own);
  const std::optional<tool_use> use = find_use(config, writes);
  if (!use) return;
  const std::string effect = use->spec.tool == tool_name::refund  ? "refund"
                             : use->spec.tool == tool_name::email ? "email"
                                                                  : use->spec.tool + " tool's effect";
  out.push_back({"checkpoint_before_effect",
                 std::string(key::checkpoint),
                 fmt::format("the {} at {} is marked done before the tool runs: a crash between the checkpoint "
                             "and the call leaves the step recorded as done, the retry skips it, and the {} never "
                             "happens while the job reports success.",
                             use->spec.tool, where(*use), effect),
                 "Set discipline.checkpoint = \"after_success\" (record the step, with its ledger row, after the "
                 "tool succeeded) or \"outbox\" (write the intent with the slice start; a relay sends it).",
                 {advise(std::string(key::checkpoint), toml_word("after_success")),
                  advise(std::string(key::checkpoint), toml_word("outbox"))}});
}

void key_per_attempt(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.key != key_mode::per_attempt) return;
  std::vector<std::string_view> keyed{tool_name::refund};
  for (const std::string_view own : own_write_tools(config, true)) keyed.push_back(own);
  const std::optional<tool_use> use = find_use(config, keyed);
  if (!use) return;
  const std::string stable = stable_key(*use);
  const bool refund = use->spec.tool == tool_name::refund;
  out.push_back({"key_per_attempt",
                 std::string(key::discipline_key),
                 fmt::format("a new key is minted every attempt ({}:attempt_0, then {}:attempt_1), so the {} "
                             "sees each retry of {} as a new {}: a retry after a timeout the {} did {}, or after a "
                             "crash before the ack, {} again.",
                             stable, stable, refund ? "vendor" : use->spec.tool + " tool's far side", where(*use),
                             refund ? "refund" : "request", refund ? "vendor" : "far side",
                             refund ? "commit" : "act on", refund ? "refunds" : "acts"),
                 fmt::format("Set discipline.key = \"stable\": the same key on every attempt (\"{}\"), chosen from "
                             "the job, the step and the tool.",
                             stable),
                 {advise(std::string(key::discipline_key), toml_word("stable"))}});
}

// A write whose far side takes no key (an email provider, an SMS gateway,
// a webhook) and that the slice does not claim before the call: every
// redelivery or retry after it has its effect again.
void write_without_claim(const world_config& config, std::vector<lint_warning>& out) {
  const discipline& rules = config.runtime.rules;
  // The email first, then the scenario's own writes whose far side ignores keys.
  std::vector<std::string_view> unclaimed;
  if (config.email.keys == key_handling::ignored && !rules.claims(tool_name::email))
    unclaimed.push_back(tool_name::email);
  for (const std::string_view own : own_write_tools(config, false))
    if (!rules.claims(own)) unclaimed.push_back(own);
  const std::optional<tool_use> use = find_use(config, unclaimed);
  if (!use) return;
  const bool email = use->spec.tool == tool_name::email;
  out.push_back(
      {"write_without_claim",
       "tools." + use->spec.tool + ".claim",
       fmt::format("{} {} that takes no idempotency key, and nothing here records the {} before it is "
                   "made: every redelivery or retry after it (a crash before the ack, an expired lease) {}.",
                   where(*use),
                   email ? "sends email through a provider" : "calls the " + use->spec.tool + " tool, a write",
                   email ? "send" : "call", email ? "emails the customer again" : "has its effect again"),
       fmt::format("Set [tools.{}] claim = true: each step claims a row keyed by job and step in its own "
                   "committed transaction before the call, and a step already claimed is skipped. That "
                   "makes each {} at most once; an outbox alone does not help, since its relay may send "
                   "twice.",
                   use->spec.tool, email ? "email" : use->spec.tool + " call"),
       {advise("tools." + use->spec.tool + ".claim", toml_bool(true))}});
}

// A write whose step is not recorded when it succeeds (inside a batch
// recorded at its end, or a job whose progress lives in the ack) and that
// nothing at the far side or here deduplicates: a retry after any later
// failure in the job does it again.
void batch_without_item_progress(const world_config& config, std::vector<lint_warning>& out) {
  const discipline& rules = config.runtime.rules;
  const bool keys_sent = rules.key != key_mode::none && rules.pass_key_to_vendor;
  const std::vector<std::string_view> own_keyed = own_write_tools(config, true);
  const std::vector<std::string_view> own_keyless = own_write_tools(config, false);
  const auto among = [](const std::vector<std::string_view>& tools, std::string_view t) {
    return std::find(tools.begin(), tools.end(), t) != tools.end();
  };
  // A write nothing makes safe to repeat: a keyless one with no local claim,
  // or a keyed one whose key is not sent. (A plain dedupe window that
  // expires is dedupe_window_below_retry_horizon's case.)
  const std::optional<unrecorded_use> found = first_unrecorded(config, [&](const step_spec& s) {
    const bool keyless = s.tool == tool_name::email || among(own_keyless, s.tool);
    const bool keyed = s.tool == tool_name::refund || among(own_keyed, s.tool);
    return (keyless && !rules.claims(s.tool)) || (keyed && !keys_sent);
  });
  if (!found) return;
  const tool_use* use = &found->use;
  const std::string& type = found->type;
  const std::string setting = type.empty() ? "job \"" + use->job + "\" progress" : "job_type \"" + type + "\" progress";
  out.push_back({"batch_without_item_progress", setting,
                 fmt::format("{} calls {} with no key and no local record, and the step is not recorded when it "
                             "succeeds (a batch recorded only at its end, or progress = \"none\"): a retry after any "
                             "later failure in the job (a 503 from the next item, {}) calls it again, so every item "
                             "done before the failure is done twice.",
                             where(*use), use->spec.tool, interruptions(config)),
                 "Record each item as it succeeds: progress = \"per_item\" (a checkpoint per item), or make each "
                 "write safe to repeat (a key the far side honours, or [tools.NAME] claim = true for a far side "
                 "that takes none)."});
}

// A redrive later than the payment provider keeps keys, of a job whose
// refund step is not recorded when it succeeds: the redriven job calls the
// refund again with a key the provider has pruned, and it executes anew.
void redrive_after_key_expiry(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.dead_letter_redrive) return;
  const discipline& rules = config.runtime.rules;
  if (rules.key == key_mode::none || !rules.pass_key_to_vendor) return;  // write_without_key says it
  // The refund tool, then every keyed write of the scenario's own.
  std::vector<std::pair<std::string_view, const service_tool_config*>> keyed{{tool_name::refund, &config.payments}};
  for (const service_tool_config& t : config.tools)
    if (t.effect == tool_effect::write && t.keys != key_handling::ignored) keyed.emplace_back(t.name, &t);
  for (const auto& [name, tool] : keyed) {
    if (config.dead_letter_redrive->after < tool->key_retention) continue;
    const std::optional<unrecorded_use> found =
        first_unrecorded(config, [name = name](const step_spec& s) { return s.tool == name; });
    if (!found) continue;
    const tool_use* use = &found->use;
    const bool refund = name == tool_name::refund;
    const std::string provider = refund ? "the payment provider" : "the " + std::string(name) + " tool's far side";
    out.push_back({"redrive_after_key_expiry", "dead_letter_queue.redrive_after",
                   fmt::format("The on-call redrives dead letters {} after the alarm, but {} keeps keys only {}, and "
                               "{} {} in a step that is not recorded when it succeeds (progress = \"none\", or a "
                               "batch recorded at its end). A job dead-lettered after its {} succeeded runs it again "
                               "on the redrive, with a pruned key: {}.",
                               text(config.dead_letter_redrive->after), provider, text(tool->key_retention),
                               where(*use), refund ? "refunds" : "calls it", refund ? "refund" : "call",
                               refund ? "a second refund" : "its effect again"),
                   fmt::format("Record the {}'s answer where the job looks before calling (progress = \"per_step\" "
                               "or \"per_item\": a checkpoint after the write), or redrive within the key's lifetime.",
                               refund ? "refund" : std::string(name) + " call")});
    return;
  }
}

// A far side that deduplicates on the key only for a window (SQS and SNS
// FIFO: five minutes), called in a step that is not recorded when it
// succeeds: a retry after a later step's failure repeats the call, and one
// that comes after the window has its effect again. The retries' reach is
// the sum of the backoff envelopes up to retry.maximum_attempts (with
// unlimited attempts, or a redrive, it has no end).
void dedupe_window_below_retry_horizon(const world_config& config, std::vector<lint_warning>& out) {
  const discipline& rules = config.runtime.rules;
  if (rules.key == key_mode::none || !rules.pass_key_to_vendor) return;  // no key: write_without_key's case
  const retry_policy& retry = config.runtime.retry;
  const bool endless = retry.maximum_attempts == 0 || config.dead_letter_redrive.has_value();
  sim::duration horizon = sim::duration::zero();
  for (std::uint32_t n = 0; !endless && n + 1 < retry.maximum_attempts && horizon < uncapped_ceiling; ++n)
    horizon = horizon + backoff_envelope(retry, n);
  for (const service_tool_config* tool : service_tools(config)) {
    if (tool->keys != key_handling::dedupe || tool->effect != tool_effect::write) continue;
    if (!endless && tool->key_retention >= horizon) continue;
    const std::optional<unrecorded_use> found =
        first_unrecorded(config, [&](const step_spec& s) { return s.tool == tool->name; });
    if (!found) continue;
    const std::string reach = endless ? std::string("have no end (unlimited attempts, or a redrive)")
                                      : "reach " + text(horizon) + " after the first attempt";
    out.push_back({"dedupe_window_below_retry_horizon", "tools." + tool->name + ".key_retention",
                   fmt::format("{} calls {}, whose far side drops a repeated key only for {} (a dedupe window), in "
                               "a step that is not recorded when it succeeds (progress = \"none\", or a batch "
                               "recorded at its end). A later step's failure retries the job from before the call, "
                               "and the retries {}: one past the window has the effect again.",
                               where(found->use), tool->name, text(tool->key_retention), reach),
                   "Record the step when it succeeds (progress = \"per_step\" or \"per_item\"), so no retry "
                   "repeats it; a window the far side fixes (SQS FIFO's five minutes) cannot be stretched to "
                   "the retries."});
    return;  // one warning names the first such tool
  }
}

}  // namespace twice::lint_rules_detail
