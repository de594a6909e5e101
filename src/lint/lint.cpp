#include "lint/lint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>

#include "sim/duration_text.hpp"

namespace twice {
namespace {

// ---- scenario key paths ------------------------------------------------------
// The settings warnings name, as scenario files write them. Kept together so
// they can follow the scenario format in one place.
namespace key {
constexpr std::string_view discipline_key = "discipline.key";
constexpr std::string_view pass_key_to_vendor = "discipline.pass_key_to_vendor";
constexpr std::string_view retry_non_retryable = "discipline.retry_non_retryable";
constexpr std::string_view reset_attempts = "discipline.reset_attempts_on_reenqueue";
constexpr std::string_view checkpoint = "discipline.checkpoint";
constexpr std::string_view hold_transaction = "discipline.hold_transaction_across_model";
constexpr std::string_view email_dedupe = "discipline.email_dedupe";
constexpr std::string_view runtime_visibility = "runtime.visibility_timeout";
constexpr std::string_view queue_visibility = "queue.visibility_timeout";
constexpr std::string_view heartbeat = "runtime.heartbeat_interval";
constexpr std::string_view maximum_interval = "retry.maximum_interval";
constexpr std::string_view maximum_attempts = "retry.maximum_attempts";
constexpr std::string_view jitter = "retry.jitter";
constexpr std::string_view max_receive_count = "queue.max_receive_count";
constexpr std::string_view split_max_receive_count = "split.max_receive_count";
constexpr std::string_view dead_letter_enabled = "dead_letter_queue.enabled";
constexpr std::string_view pool_size = "store.pool_size";
std::string deploy_strategy(std::size_t index) { return fmt::format("deploy[{}].strategy", index); }
}  // namespace key

// Step names the world registers its built-in tools under.
namespace tool_name {
constexpr std::string_view refund = "refund";
constexpr std::string_view email = "email";
constexpr std::string_view model = "model";
constexpr std::string_view read = "read";
}  // namespace tool_name

std::string text(sim::duration d) { return sim::format_duration(d); }

// 2000 -> "2.0", 1500 -> "1.5", 1250 -> "1.25".
std::string ratio_text(std::uint32_t milli) {
  std::string frac = fmt::format("{:03}", milli % 1000);
  while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
  return fmt::format("{}.{}", milli / 1000, frac);
}

// A third of a duration, rounded down to whole milliseconds (a setting
// someone can type).
sim::duration third_of(sim::duration d) { return sim::duration::from_ms(d.us() / 3 / 1000); }

// The first step (in job order, then step order) that calls one of `tools`,
// and how many jobs call one at all.
// Copies of the job and step: a generated spec lives only while it is walked.
struct tool_use {
  std::string job;
  std::size_t step = 0;  // 1-based, as keys and timelines number steps
  step_spec spec;
  std::size_t jobs = 0;
};

std::optional<tool_use> find_use(const world_config& config, std::initializer_list<std::string_view> tools) {
  std::optional<tool_use> use;
  std::size_t jobs = 0;
  for_each_job(config, [&](const job_spec& job) {
    bool calls = false;
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
      if (std::find(tools.begin(), tools.end(), job.steps[i].tool) == tools.end()) continue;
      calls = true;
      if (!use) use = tool_use{job.id, i + 1, job.steps[i], 0};
    }
    if (calls) jobs += 1;
  });
  if (use) use->jobs = jobs;
  return use;
}

// "job_1 step 3", "job_1 step 3 (and 4 other jobs)".
std::string where(const tool_use& use) {
  std::string out = fmt::format("{} step {}", use.job, use.step);
  if (use.jobs == 2) out += " (and 1 other job)";
  if (use.jobs > 2) out += fmt::format(" (and {} other jobs)", use.jobs - 1);
  return out;
}

std::string stable_key(const tool_use& use) {
  return fmt::format("{}:step_{}:{}", use.job, use.step, use.spec.tool);
}

sim::duration visibility(const world_config& config) {
  return config.runtime.visibility_timeout.value_or(config.queue.visibility_timeout);
}

std::string_view visibility_setting(const world_config& config) {
  return config.runtime.visibility_timeout ? key::runtime_visibility : key::queue_visibility;
}

bool redrive_active(const world_config& config) {
  return config.dead_letter_queue && config.queue.max_receive_count > 0;
}

// ---- what bounds a job's deliveries ----------------------------------------------
// As the runtime (src/runtime/worker.cpp) and the broker (src/broker/queue.cpp)
// do it. The runtime counts an attempt on the job row in the transaction that
// starts a slice, before the handler runs, and a delivery that finds
// retry.maximum_attempts used up dead-letters the job. That bounds a message
// whose slice crashes or loses its lease on every delivery, and a job that
// fails and is retried. discipline.reset_attempts_on_reenqueue sets the
// counter back to 0 on every delivery (a nack, a crash, a lease that ran
// out): then nothing that crosses deliveries is counted. Failures retried
// inside one slice (discipline.retry = "in_slice") still count up, and with
// one attempt allowed the first failure dead-letters the job without a
// nack. The broker's redrive counts receives: it bounds every path that
// redelivers the message, but not retries slept inside one slice.

// Whether the attempt counter bounds a message whose slice crashes or loses
// its lease on every delivery.
// A runtime that counts only recorded failures (count_attempts = at_failure)
// never counts a slice that died with its process.
bool crash_loops_counted(const world_config& config) {
  return config.runtime.retry.maximum_attempts != 0 && !config.runtime.rules.reset_attempts_on_reenqueue &&
         config.runtime.count_attempts == attempt_counting::at_start;
}

// Whether the counter bounds a job whose slices keep failing: a reset undoes
// the count only when a failure is re-enqueued (a nack with attempts left).
bool failures_counted(const world_config& config) {
  const discipline& rules = config.runtime.rules;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  if (attempts == 0) return false;
  return !(rules.reset_attempts_on_reenqueue && rules.retry == retry_mode::nack && attempts != 1);
}

// A queue the jobs' messages are delivered from.
struct consumed_queue {
  std::string_view redrive_setting;  // "queue.max_receive_count", "split.max_receive_count"
  sim::duration lease;
  sim::duration retention;
  bool redriven = false;
};

// The jobs' queue, and the split queue when some job calls the split tool.
std::vector<consumed_queue> consumed_queues(const world_config& config) {
  std::vector<consumed_queue> queues{
      {key::max_receive_count, visibility(config), config.queue.retention, redrive_active(config)}};
  const std::string_view split_tool = config.runtime.rules.split_tool;
  if (!split_tool.empty() && find_use(config, {split_tool})) {
    const queue_config& split = config.split.queue;
    queues.push_back({key::split_max_receive_count, split.visibility_timeout, split.retention,
                      config.dead_letter_queue && split.max_receive_count > 0});
  }
  return queues;
}

// Which ways of running a job again have no bound.
struct redelivery_paths {
  bool crash_loop = false;   // a slice that crashes or loses its lease on every delivery
  bool failing_job = false;  // a job whose slices fail, retried by the runtime
  // The queues without a redrive, where an unbounded path redelivers.
  std::vector<const consumed_queue*> unredriven;
};

redelivery_paths unbounded_paths(const world_config& config, const std::vector<consumed_queue>& queues) {
  const bool crashes_bounded = crash_loops_counted(config);
  const bool failures_bounded = failures_counted(config);
  const bool in_slice = config.runtime.rules.retry == retry_mode::in_slice;
  redelivery_paths paths;
  for (const consumed_queue& q : queues) {
    const bool crash_loop = !crashes_bounded && !q.redriven;
    const bool failing_job = !failures_bounded && (in_slice || !q.redriven);
    paths.crash_loop = paths.crash_loop || crash_loop;
    paths.failing_job = paths.failing_job || failing_job;
    if (!q.redriven && (crash_loop || (failing_job && !in_slice))) paths.unredriven.push_back(&q);
  }
  return paths;
}

std::string capitalized(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

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

// ---- the rules, in report order -------------------------------------------------

void write_without_key(const world_config& config, std::vector<lint_warning>& out) {
  const std::optional<tool_use> use = find_use(config, {tool_name::refund});
  if (!use) return;
  const discipline& rules = config.runtime.rules;
  if (rules.key == key_mode::none) {
    out.push_back({"write_without_key", std::string(key::discipline_key),
                   fmt::format("{} refunds {} cents through the payment vendor with no idempotency key: if the worker "
                               "crashes after the vendor's refund and before the ack, the message reappears and the "
                               "retry refunds again (two rows in the vendor's ledger: the double refund).",
                               where(*use), use->spec.amount_cents),
                   fmt::format("Set discipline.key = \"stable\" (job:step:tool, e.g. \"{}\") and keep "
                               "discipline.pass_key_to_vendor = true: the vendor then replays its first answer for a "
                               "key it has seen instead of refunding again.",
                               stable_key(*use))});
    return;
  }
  if (!rules.pass_key_to_vendor) {
    out.push_back({"write_without_key", std::string(key::pass_key_to_vendor),
                   fmt::format("{} refunds {} cents through the payment vendor, but the key is never sent to it: a "
                               "crash after the vendor's refund and before the local write leaves no local row to "
                               "catch the retry, so the retry refunds again and the two ledgers disagree.",
                               where(*use), use->spec.amount_cents),
                   fmt::format("Set discipline.pass_key_to_vendor = true: the vendor is the tie-break, it replays "
                               "its stored answer for \"{}\" instead of refunding again.",
                               stable_key(*use))});
  }
}

// Each tool as a caller sees it: how long it takes, how long the caller
// waits, whether it changes something. Write tools first: the payment
// vendor, then email, model, read, then the scenario's own in order.
struct called_tool {
  std::string_view step_name;
  const latency_model* latency;
  sim::duration client_timeout;
  bool writes = false;
  // How long a call can hold its caller: the p99, bounded by the timeout.
  sim::duration hold() const { return std::min(latency->p99(), client_timeout); }
};
std::vector<called_tool> called_tools(const world_config& config) {
  std::vector<called_tool> out = {{tool_name::refund, &config.payments.latency, config.payments.client_timeout, true}};
  for (const service_tool_config* t : service_tools(config))
    out.push_back({t->name, &t->latency, t->client_timeout, t->effect == tool_effect::write});
  std::stable_partition(out.begin(), out.end(), [](const called_tool& t) { return t.writes; });
  return out;
}

void visibility_below_tool_p99(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.heartbeat_interval) return;
  const std::vector<called_tool> tools = called_tools(config);
  // A split tool's steps run on the split queue, under its own lease.
  auto lease_of = [&](std::string_view step_name) {
    return step_name == config.runtime.rules.split_tool ? config.split.queue.visibility_timeout : visibility(config);
  };
  // The slowest called tool the lease does not cover. A caller waits at most
  // its client timeout, so that bounds how long the call holds the slice.
  const called_tool* worst = nullptr;
  sim::duration worst_hold;
  std::optional<tool_use> worst_use;
  for (const called_tool& t : tools) {
    const std::optional<tool_use> use = find_use(config, {t.step_name});
    if (!use) continue;
    const sim::duration hold = t.hold();
    if (!(lease_of(t.step_name) < hold)) continue;
    if (worst != nullptr && !(worst_hold < hold)) continue;
    worst = &t;
    worst_hold = hold;
    worst_use = use;
  }
  if (worst == nullptr) return;
  const sim::duration p99 = worst->latency->p99();
  const std::string latency =
      p99 <= worst->client_timeout
          ? fmt::format("p99 latency {} ({})", text(p99), worst->latency->describe())
          : fmt::format("client timeout {} (its latency {} has p99 {})", text(worst->client_timeout),
                        worst->latency->describe(), text(p99));
  const bool split = worst->step_name == config.runtime.rules.split_tool;
  const bool read_only = !worst->writes;
  const sim::duration lease = lease_of(worst->step_name);
  const std::string_view setting = split ? std::string_view("split.visibility_timeout") : visibility_setting(config);
  out.push_back(
      {"visibility_below_tool_p99", std::string(setting),
       fmt::format("visibility timeout {} is below the {} tool's {}, which {} waits on, and no heartbeat extends it: "
                   "a second worker receives the message while the first still runs, and both run the slice.",
                   text(lease), worst->step_name, latency, where(*worst_use)),
       split ? fmt::format("Raise {} well above {} (e.g. {}): the split queue exists to give this call a lease "
                           "that fits it.",
                           setting, text(worst_hold), text(worst_hold * 2))
             : fmt::format("Set runtime.heartbeat_interval (at most a third of the lease, e.g. {}) so the worker "
                           "extends its lease while the call runs, or raise {} well above {} (e.g. {}){}.",
                           text(third_of(lease)), setting, text(worst_hold), text(worst_hold * 2),
                           read_only
                               ? fmt::format("; if the worker cannot heartbeat through the call, make the step a job "
                                             "of its own ([split] tool = \"{}\", with a visibility timeout that "
                                             "fits it)",
                                             worst->step_name)
                               : std::string())});
}

void heartbeat_too_slow(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.heartbeat_interval) return;
  const sim::duration beat = *config.runtime.heartbeat_interval;
  const sim::duration lease = visibility(config);
  if (!(beat * 2 > lease)) return;
  std::string why;
  if (beat >= lease) {
    why = fmt::format("heartbeat every {} against a visibility timeout of {}: the lease expires before the first "
                      "heartbeat, so a second worker receives the message while the first still runs.",
                      text(beat), text(lease));
  } else {
    why = fmt::format("heartbeat every {} against a visibility timeout of {}: one lost or late heartbeat loses the "
                      "lease (the next one comes {} after the last extension), and a second worker receives the "
                      "message while the first still runs.",
                      text(beat), text(lease), text(beat * 2));
  }
  out.push_back({"heartbeat_too_slow", std::string(key::heartbeat), std::move(why),
                 fmt::format("Set runtime.heartbeat_interval to at most a third of the visibility timeout (e.g. {}), "
                             "so a heartbeat can be lost and the next still lands before the lease expires.",
                             text(third_of(lease)))});
}

void no_backoff_cap(const world_config& config, std::vector<lint_warning>& out) {
  const retry_policy& policy = config.runtime.retry;
  if (policy.maximum_interval) return;
  if (!backoff_grows(policy)) return;  // a flat backoff needs no cap
  std::string why = fmt::format(
      "no cap on the backoff: the delay grows {}x per retry from {} without bound (retry #10 waits {})",
      ratio_text(policy.coefficient_milli), text(policy.initial_interval), text(backoff_envelope(policy, 9)));
  if (const std::optional<std::uint32_t> n = first_retry_above(policy, max_visibility_timeout)) {
    why += fmt::format(" and retry #{} passes {}, the longest the broker can hold a message back", *n + 1,
                       text(max_visibility_timeout));
  }
  why += "; a job that failed through an outage then waits hours after the dependency recovered.";
  out.push_back({"no_backoff_cap", std::string(key::maximum_interval), std::move(why),
                 fmt::format("Set retry.maximum_interval to a duration (Temporal's default is 100 x the initial "
                             "interval: {}).",
                             text(policy.initial_interval * 100))});
}

void no_jitter(const world_config& config, std::vector<lint_warning>& out) {
  const retry_policy& policy = config.runtime.retry;
  if (policy.jitter != jitter_kind::none) return;
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
                 "Set retry.jitter = \"full\" (or \"equal\", \"decorrelated\"): each worker draws its delays from its "
                 "own stream and the retries spread out."});
}

void retries_non_retryable(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.rules.retry_non_retryable) return;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  const std::string cost =
      attempts == 0 ? std::string("is retried forever (retry.maximum_attempts is unlimited), hammering the tool, and "
                                  "never reaches the failure someone must look at")
                    : fmt::format("burns all {} attempts and their backoff before it fails, hammering the tool and "
                                  "delaying the failure someone must look at",
                                  attempts);
  out.push_back({"retries_non_retryable", std::string(key::retry_non_retryable),
                 fmt::format("non-retryable errors (400: invoice_not_found, idempotency_error) are retried like "
                             "503s: they fail the same way every time, so each such job {}.",
                             cost),
                 "Set discipline.retry_non_retryable = false: a 400 fails the job at once."});
}

void attempts_reset_on_reenqueue(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.rules.reset_attempts_on_reenqueue) return;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  std::string why;
  if (attempts == 0) {
    why = "the attempt counter on the job row goes back to 0 on every delivery (a nack, a crash, a lease that ran "
          "out): attempt numbers repeat, so nothing can tell how often a job ran, and a retry.maximum_attempts set "
          "later never takes effect.";
  } else {
    const std::string bound =
        redrive_active(config)
            ? fmt::format("until the broker redrives it after queue.max_receive_count = {} deliveries",
                          config.queue.max_receive_count)
            : std::string("forever, and nothing else stops it");
    // What the count still bounds: failures retried inside one delivery.
    const std::string_view who = failures_counted(config)
                                     ? "a message whose slice crashes or outlives its lease on every delivery"
                                     : "a job that always fails, or whose slice crashes on every delivery,";
    why = fmt::format("the attempt counter on the job row goes back to 0 on every delivery (a nack, a crash, a lease "
                      "that ran out), so retry.maximum_attempts = {} is never reached across deliveries: {} comes "
                      "back {}.",
                      attempts, who, bound);
  }
  out.push_back({"attempts_reset_on_reenqueue", std::string(key::reset_attempts), std::move(why),
                 "Set discipline.reset_attempts_on_reenqueue = false: the counter lives on the job row and only "
                 "goes up."});
}

void checkpoint_before_effect(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.checkpoint != checkpoint_mode::before_effect) return;
  // Only a side effect can be lost: the first writing step.
  const std::optional<tool_use> use = find_use(config, {tool_name::refund, tool_name::email});
  if (!use) return;
  const std::string_view effect = use->spec.tool == tool_name::refund ? "refund" : "email";
  out.push_back({"checkpoint_before_effect", std::string(key::checkpoint),
                 fmt::format("the {} at {} is marked done before the tool runs: a crash between the checkpoint "
                             "and the call leaves the step recorded as done, the retry skips it, and the {} never "
                             "happens while the job reports success.",
                             use->spec.tool, where(*use), effect),
                 "Set discipline.checkpoint = \"after_success\" (record the step, with its ledger row, after the "
                 "tool succeeded) or \"outbox\" (write the intent with the slice start; a relay sends it)."});
}

void key_per_attempt(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.key != key_mode::per_attempt) return;
  const std::optional<tool_use> use = find_use(config, {tool_name::refund});
  if (!use) return;
  const std::string stable = stable_key(*use);
  out.push_back({"key_per_attempt", std::string(key::discipline_key),
                 fmt::format("a new key is minted every attempt ({}:attempt_0, then {}:attempt_1), so the vendor "
                             "sees each retry of {} as a new refund: a retry after a timeout the vendor did commit, "
                             "or after a crash before the ack, refunds again.",
                             stable, stable, where(*use)),
                 fmt::format("Set discipline.key = \"stable\": the same key on every attempt (\"{}\"), chosen from "
                             "the job, the step and the tool.",
                             stable)});
}

void transaction_across_model(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.rules.hold_transaction_across_model) return;
  const std::optional<tool_use> use = find_use(config, {tool_name::model});
  if (!use) return;
  const std::uint32_t pool = config.store.pool_size;
  std::string why = fmt::format(
      "{} holds a database transaction, and one of the store's {} connections ({}), open across the model call "
      "(p99 {}): {} slices waiting on the model at once exhaust the pool, and every other database access "
      "(checkpoints, acks, other jobs) stalls behind them",
      where(*use), pool, key::pool_size, text(config.model.latency.p99()), pool);
  if (config.workers >= pool) why += fmt::format(" (with {} workers, that is ordinary load)", config.workers);
  why += ".";
  out.push_back({"transaction_across_model", std::string(key::hold_transaction), std::move(why),
                 "Set discipline.hold_transaction_across_model = false: commit before the model call and open a new "
                 "transaction for its result."});
}

void rolling_kill_without_drain(const world_config& config, std::vector<lint_warning>& out) {
  for (std::size_t i = 0; i < config.deploys.size(); ++i) {
    const deploy_spec& d = config.deploys[i];
    if (d.strategy != deploy_strategy::rolling_kill) continue;
    out.push_back({"rolling_kill_without_drain", key::deploy_strategy(i),
                   fmt::format("the deploy to {} at {} kills {} {} every {} without draining: in-flight slices "
                               "die mid-step (after a vendor's refund, before the ack), their messages come back only "
                               "after the visibility timeout {}, and the retries arrive together.",
                               d.sha, text(d.at - sim::instant::epoch()), d.batch_size,
                               d.batch_size == 1 ? "pod" : "pods", text(d.batch_interval), text(visibility(config))),
                   fmt::format("Set deploy[{}].strategy = \"drain\": stop leasing on the old version, let in-flight "
                               "slices finish within the grace period ({}), then terminate.",
                               i, text(d.grace_period))});
  }
}

// The warning names the bound a scenario is missing: retry.maximum_attempts
// when attempts are unlimited, else (the counter is reset in every nack) the
// redrive that is not there.
std::string_view missing_bound_setting(const world_config& config, const redelivery_paths& paths) {
  if (config.runtime.retry.maximum_attempts == 0) return key::maximum_attempts;
  if (!config.dead_letter_queue) return key::dead_letter_enabled;
  return paths.unredriven.front()->redrive_setting;
}

// "queue.max_receive_count is not set", "the dead-letter queue is disabled".
std::string no_redrive_text(const world_config& config, const redelivery_paths& paths) {
  if (!config.dead_letter_queue) return "the dead-letter queue is disabled";
  std::vector<std::string_view> settings;
  for (const consumed_queue* q : paths.unredriven) settings.push_back(q->redrive_setting);
  if (settings.size() == 1) return fmt::format("{} is not set", settings[0]);
  return fmt::format("neither {} nor {} is set", settings[0], settings[1]);
}

std::string dead_letter_why(const world_config& config, const redelivery_paths& paths) {
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  const bool in_slice = config.runtime.rules.retry == retry_mode::in_slice;
  std::vector<std::string> causes;
  if (attempts == 0) causes.emplace_back("retry.maximum_attempts is unlimited");
  if (attempts != 0 && config.runtime.rules.reset_attempts_on_reenqueue) {
    causes.push_back(fmt::format("discipline.reset_attempts_on_reenqueue sets the attempt counter back to 0 on "
                                 "every delivery, so {} never reaches retry.maximum_attempts = {}",
                                 failures_counted(config) ? "a crash loop" : "a failing job", attempts));
  }
  if (attempts != 0 && config.runtime.count_attempts == attempt_counting::at_failure &&
      !config.runtime.rules.reset_attempts_on_reenqueue) {
    causes.push_back(fmt::format("runtime.count_attempts = \"at_failure\" counts only failures a slice records, so "
                                 "a crash loop never reaches retry.maximum_attempts = {}",
                                 attempts));
  }
  if (!paths.unredriven.empty())
    causes.push_back(fmt::format("there is no redrive ({})", no_redrive_text(config, paths)));
  if (in_slice && paths.failing_job && paths.unredriven.empty()) {
    causes.emplace_back("the broker's redrive counts deliveries, while discipline.retry = \"in_slice\" retries "
                        "inside one delivery");
  }

  std::vector<std::string> effects;
  if (paths.failing_job) {
    effects.emplace_back(in_slice ? "a job that keeps failing is retried forever inside the slice that received it"
                                  : "a job that keeps failing is re-enqueued forever");
  }
  if (paths.crash_loop) {
    const consumed_queue& q = *paths.unredriven.front();
    effects.push_back(fmt::format("a poison message that crashes its worker or outlives its lease on every delivery "
                                  "comes back every {} forever, taking a worker each time",
                                  text(q.lease)));
  }
  std::string why = fmt::format("{}: {}", fmt::join(causes, ", and "), fmt::join(effects, ", and "));
  if (!paths.unredriven.empty() && (paths.crash_loop || !in_slice)) {
    why += fmt::format(" (until the queue's retention, {}, drops it)", text(paths.unredriven.front()->retention));
  }
  why += effects.size() > 1 ? "; neither is ever dead-lettered, and nobody is told."
                             : "; it is never dead-lettered, and nobody is told.";
  if (!paths.crash_loop) {
    // Say which path is still bounded, so the warning does not read as if
    // every poison message cycled forever.
    if (crash_loops_counted(config)) {
      why += fmt::format(" (A slice that crashes or loses its lease on every delivery is still dead-lettered after "
                         "{} attempts: each delivery's attempt is counted on the job row.)",
                         attempts);
    } else {
      why += fmt::format(" (A slice that crashes or loses its lease on every delivery is still redriven after "
                         "queue.max_receive_count = {} deliveries.)",
                         config.queue.max_receive_count);
    }
  }
  return why;
}

std::string dead_letter_fix(const world_config& config, const redelivery_paths& paths) {
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  const discipline& rules = config.runtime.rules;
  // Counting attempts bounds every path once the counter only goes up.
  std::vector<std::string> counting;
  if (attempts == 0) counting.emplace_back("set retry.maximum_attempts (e.g. 5)");
  if (rules.reset_attempts_on_reenqueue) counting.emplace_back("set discipline.reset_attempts_on_reenqueue = false");
  if (config.runtime.count_attempts == attempt_counting::at_failure)
    counting.emplace_back("set runtime.count_attempts = \"at_start\"");
  const std::string by_attempts =
      fmt::format("{}: the runtime counts an attempt on the job row when a slice starts, before the handler runs, "
                  "and dead-letters the job once they are used up, whether its slices fail or crash.",
                  fmt::join(counting, " and "));
  // A redrive bounds every path that redelivers the message; retries inside
  // a slice are not redeliveries.
  const bool redrive_suffices =
      !paths.unredriven.empty() && !(rules.retry == retry_mode::in_slice && paths.failing_job);
  if (!redrive_suffices) return capitalized(by_attempts);
  std::vector<std::string_view> settings;
  for (const consumed_queue* q : paths.unredriven) settings.push_back(q->redrive_setting);
  const std::string by_redrive = fmt::format(
      "{} {} ({}): the broker moves a message received that often to the dead-letter queue, where someone sees it.",
      config.dead_letter_queue ? "set" : "enable the dead-letter queue (dead_letter_queue.enabled = true) and set",
      fmt::join(settings, " and "),
      attempts == 0 ? std::string("e.g. 5") : fmt::format("{}, the retry policy's attempts", attempts));
  // Lead with the fix for the setting the warning names.
  if (attempts == 0) return capitalized(by_attempts) + " Or " + by_redrive;
  return capitalized(by_redrive) + " Or " + by_attempts;
}

void dead_letter_threshold(const world_config& config, std::vector<lint_warning>& out) {
  const std::vector<consumed_queue> queues = consumed_queues(config);
  const redelivery_paths paths = unbounded_paths(config, queues);
  if (!paths.crash_loop && !paths.failing_job) return;
  out.push_back({"dead_letter_threshold", std::string(missing_bound_setting(config, paths)),
                 dead_letter_why(config, paths), dead_letter_fix(config, paths)});
}

void email_without_dedupe(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.email_dedupe) return;
  const std::optional<tool_use> use = find_use(config, {tool_name::email});
  if (!use) return;
  out.push_back({"email_without_dedupe", std::string(key::email_dedupe),
                 fmt::format("{} sends email through a provider that takes no idempotency key, with no local "
                             "record of the send: every redelivery or retry after a send (a crash before the ack, an "
                             "expired lease) emails the customer again.",
                             where(*use)),
                 "Set discipline.email_dedupe = true: claim a row keyed by job and step in its own committed "
                 "transaction before the send, and skip a send already claimed. That makes each email at most once; "
                 "an outbox alone does not help, since its relay may send twice."});
}

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

// A write whose step is not recorded when it succeeds (inside a batch
// recorded at its end, or a job whose progress lives in the ack) and that
// nothing at the far side or here deduplicates: a retry after any later
// failure in the job does it again.
void batch_without_item_progress(const world_config& config, std::vector<lint_warning>& out) {
  const discipline& rules = config.runtime.rules;
  const bool refund_keyed = rules.key != key_mode::none && rules.pass_key_to_vendor;
  const std::optional<unrecorded_use> found = first_unrecorded(config, [&](const step_spec& s) {
    return (s.tool == tool_name::email && !rules.email_dedupe) || (s.tool == tool_name::refund && !refund_keyed);
  });
  if (!found) return;
  const tool_use* use = &found->use;
  const std::string& type = found->type;
  const std::string setting = type.empty() ? "job \"" + use->job + "\" progress" : "job_type \"" + type + "\" progress";
  out.push_back({"batch_without_item_progress", setting,
                 fmt::format("{} calls {} with no key and no local record, and the step is not recorded when it "
                             "succeeds (a batch recorded only at its end, or progress = \"none\"): a retry after any "
                             "later failure in the job (a 503 from the next item, a crash, an expired lease) calls it "
                             "again, so every item done before the failure is done twice.",
                             where(*use), use->spec.tool),
                 "Record each item as it succeeds: progress = \"per_item\" (a checkpoint per item), or make each "
                 "write safe to repeat (a key the far side honours, or discipline.email_dedupe = true for email)."});
}

// Retries with no budget against a far side with a fixed number of servers
// that serves its queue oldest first with no queue timeout: a short slowdown
// can tip it into a storm that outlives the slowdown (server_pool.hpp).
void retries_without_budget(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.retry_budget || config.runtime.circuit_breaker || config.runtime.retry.maximum_attempts == 1) return;
  for (const service_tool_config* tool : service_tools(config)) {
    const std::string_view name = tool->name;
    const server_pool_config& pool = tool->pool;
    if (pool.servers == 0 || pool.queue_timeout || pool.order == queue_order::lifo) continue;
    const std::optional<tool_use> use = find_use(config, {name});
    if (!use) continue;
    out.push_back(
        {"retries_without_budget", "retry.budget",
         fmt::format("{} calls the {} tool, which has {} servers and serves its queue oldest first, including the "
                     "requests whose callers already timed out; retries have no budget. A slowdown that pushes "
                     "waits past the {} client timeout makes every caller retry, every abandoned request still takes "
                     "a server, and the queue can stay full after the slowdown ends: a retry storm.",
                     where(*use), name, pool.servers, text(tool->client_timeout)),
         "Add [retry.budget] (the AWS SDKs' retry quota: retries stop when most calls fail) or "
         "[retry.circuit_breaker] (calls fail fast while most fail), or have the far side "
         "shed stale work: tools." + std::string(name) + ".queue_timeout at the callers' timeout and queue_order = "
         "\"lifo\"."});
    return;  // one warning names the first such tool
  }
}

// Nothing reads the dead-letter queue and it keeps messages no longer than
// the source queue does. Every dead letter is deleted unread in the end; one
// the broker redrove there keeps its ORIGINAL enqueue time on a standard
// queue, so after most of its retention spent being retried it goes soon ("it is a best practice to always set the retention period of a
// dead-letter queue to be longer than the retention period of the original
// queue", SQS Developer Guide, "Setting-up dead-letter queue retention").
void dead_letters_unread(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.dead_letter_queue || config.dead_letter_redrive) return;
  if (config.dead_letter.retention > config.queue.retention) return;
  out.push_back({"dead_letters_unread", "dead_letter_queue.retention",
                 fmt::format("Nothing reads the dead-letter queue (no redrive_after), and it keeps messages {}, no "
                             "longer than the source queue's {}. Every dead letter is deleted unread once that passes "
                             "(sooner for one the broker moved there: it keeps its first enqueue time), and nothing "
                             "ever says that its work was never done.",
                             text(config.dead_letter.retention), text(config.queue.retention)),
                 "Alarm on the dead-letter queue and redrive it (dead_letter_queue.redrive_after), and keep dead "
                 "letters longer than the source queue does: dead_letter_queue.retention = \"336h\" (SQS's most)."});
}

// A redrive later than the payment provider keeps keys, of a job whose
// refund step is not recorded when it succeeds: the redriven job calls the
// refund again with a key the provider has pruned, and it executes anew.
void redrive_after_key_expiry(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.dead_letter_redrive || config.dead_letter_redrive->after < config.payments.key_retention) return;
  const discipline& rules = config.runtime.rules;
  if (rules.key == key_mode::none || !rules.pass_key_to_vendor) return;  // write_without_key says it
  const std::optional<unrecorded_use> found =
      first_unrecorded(config, [](const step_spec& s) { return s.tool == tool_name::refund; });
  if (!found) return;
  const tool_use* use = &found->use;
  out.push_back({"redrive_after_key_expiry", "dead_letter_queue.redrive_after",
                 fmt::format("The on-call redrives dead letters {} after the alarm, but the payment provider keeps "
                             "keys only {}, and {} refunds in a step that is not recorded when it succeeds "
                             "(progress = \"none\", or a batch recorded at its end). A job dead-lettered after its "
                             "refund succeeded runs it again on the redrive, with a pruned key: a second refund.",
                             text(config.dead_letter_redrive->after), text(config.payments.key_retention),
                             where(*use)),
                 "Record the refund's answer where the job looks before calling (progress = \"per_step\" or "
                 "\"per_item\": a checkpoint after the write), or redrive within the key's lifetime."});
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

// Jobs of two or more tenants share the queue and nothing keeps one from
// starving the others: the producer sets no message group id (the queue
// serves oldest first, so a burst from one tenant is a wait for all), or it
// does but fewer than 31 workers consume, and SQS counts a tenant as noisy
// only with at least 30 of its own messages in flight ("How Amazon SQS fair
// queues work").
void tenants_share_queue_unfairly(const world_config& config, std::vector<lint_warning>& out) {
  std::vector<std::string> tenants;
  for_each_job(config, [&](const job_spec& job) {
    if (!job.tenant.empty() && std::find(tenants.begin(), tenants.end(), job.tenant) == tenants.end() &&
        tenants.size() < 2)
      tenants.push_back(job.tenant);
  });
  if (tenants.size() < 2) return;
  if (config.message_group == message_group_source::none) {
    out.push_back({"tenants_share_queue_unfairly", "queue.message_group_id",
                   fmt::format("Jobs of two or more tenants ({}, {}) share one queue that serves the oldest message "
                               "first: a burst from one tenant is a backlog every other tenant waits behind.",
                               tenants[0], tenants[1]),
                   "Set queue.message_group_id = \"tenant\" (SQS fair queues: a standard queue that sees message "
                   "group ids serves quiet tenants first while one is noisy), or give the noisy tenant a queue of "
                   "its own."});
    return;
  }
  if (config.workers > 30) return;
  out.push_back({"tenants_share_queue_unfairly", "workers.count",
                 fmt::format("Messages carry their tenant as the group id, but {} workers can have at most {} "
                             "messages in flight, and SQS treats a tenant as a noisy neighbour only with at least 30 "
                             "of its own in flight: fair delivery never starts.",
                             config.workers, config.workers),
                 "Run more than 30 consumers at once (workers, or messages per worker), or split the noisy tenant "
                 "into a queue of its own."});
}

// A liveness probe answered by the worker's loop, and a tool call that can
// block that loop longer than the probe tolerates: the kubelet restarts the
// pod in the middle of the call (runtime/liveness_probe.hpp). The worst for
// a write tool, whose effect may land with nobody left to record it.
void liveness_probe_blocked(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.liveness_probe) return;
  const liveness_probe_config& probe = *config.runtime.liveness_probe;
  const sim::duration tolerated = probe.blocked_until_restart();
  // Write tools first: a restart inside one is the one that costs money or mail.
  for (const called_tool& t : called_tools(config)) {
    const sim::duration hold = t.hold();
    if (hold < tolerated) continue;
    const std::optional<tool_use> use = find_use(config, {t.step_name});
    if (!use) continue;
    out.push_back(
        {"liveness_probe_blocked", "runtime.liveness_probe",
         fmt::format("The liveness probe is answered by the worker's loop and restarts the pod after {} failures "
                     "{} apart ({} timeout): a call that blocks the loop {} or more. {} waits on the {} tool up to "
                     "{} (p99 {}, client timeout {}): the kubelet kills the pod in the middle of the call{}.",
                     probe.failure_threshold, text(probe.period), text(probe.timeout), text(tolerated), where(*use),
                     t.step_name, text(hold), text(t.latency->p99()), text(t.client_timeout),
                     t.writes ? ", whose effect may land with nobody left to record it"
                         : ""),
         "Answer the probe from a thread of its own (or probe the process, not the work), or make failure_threshold "
         "x period exceed the slowest call; and give every write a key, so a restart mid-call replays instead of "
         "paying again."});
    return;  // one warning, for the first such tool
  }
}

// A drain whose grace period is shorter than a slice can take: the deploy
// kills what it meant to let finish (drain_kills_nothing), mid-step. A
// slice's length is its job's calls, each the p99 bounded by the caller's
// timeout (model and read included: they hold the slice as long).
void drain_grace_below_work(const world_config& config, std::vector<lint_warning>& out) {
  const std::vector<called_tool> tools = called_tools(config);
  std::string longest_job;
  sim::duration longest;
  for_each_job(config, [&](const job_spec& job) {
    sim::duration total;
    for (const step_spec& step : job.steps)
      for (const called_tool& t : tools)
        if (t.step_name == step.tool) total = total + t.hold();
    if (longest_job.empty() || longest < total) {
      longest_job = job.id;
      longest = total;
    }
  });
  if (longest_job.empty()) return;
  for (std::size_t i = 0; i < config.deploys.size(); ++i) {
    const deploy_spec& d = config.deploys[i];
    if (d.strategy != deploy_strategy::drain || !(d.grace_period < longest)) continue;
    out.push_back({"drain_grace_below_work", fmt::format("deploy[{}].grace_period", i),
                   fmt::format("the deploy to {} drains with a grace period of {}, but a slice of {} can take {} "
                               "(its calls' p99 latencies, each bounded by its client timeout): a drain that starts "
                               "early in such a slice kills it when the grace period ends, mid-step.",
                               d.sha, text(d.grace_period), longest_job, text(longest)),
                   fmt::format("Set deploy[{}].grace_period above the longest slice ({}), as Kubernetes' "
                               "terminationGracePeriodSeconds must be; or split the long step into a job of its own.",
                               i, text(longest))});
    return;  // one warning, for the first such deploy
  }
}

// A caller that gives up before the far side usually answers: more than one
// call in a hundred times out though the far side goes on and acts (a write
// lands with nobody to record it; any call's work is done for nothing), and
// the retry adds a call the far side must also serve.
void client_timeout_below_p99(const world_config& config, std::vector<lint_warning>& out) {
  for (const called_tool& t : called_tools(config)) {
    const sim::duration p99 = t.latency->p99();
    if (!(t.client_timeout < p99)) continue;
    const std::optional<tool_use> use = find_use(config, {t.step_name});
    if (!use) continue;
    const std::string setting =
        t.step_name == tool_name::refund ? "vendor.client_timeout" : "tools." + std::string(t.step_name) + ".client_timeout";
    out.push_back({"client_timeout_below_p99", setting,
                   fmt::format("{} calls the {} tool with a client timeout of {}, below its p99 latency {} ({}): more "
                               "than one call in a hundred is abandoned while the far side goes on, does the work and "
                               "may commit it, and the retry asks for it again.",
                               where(*use), t.step_name, text(t.client_timeout), text(p99), t.latency->describe()),
                   "Wait at least the p99 (a timeout is for a far side that is down, not one that is slow), and give "
                   "the write a key so an abandoned call's retry is a replay."});
    return;  // one warning, for the first such tool
  }
}

}  // namespace

std::vector<lint_warning> lint(const world_config& config) {
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
  email_without_dedupe(config, out);
  batch_without_item_progress(config, out);
  retries_without_budget(config, out);
  dead_letters_unread(config, out);
  redrive_after_key_expiry(config, out);
  liveness_probe_blocked(config, out);
  drain_grace_below_work(config, out);
  client_timeout_below_p99(config, out);
  dedupe_window_below_retry_horizon(config, out);
  tenants_share_queue_unfairly(config, out);
  return out;
}

std::string format_warning(const lint_warning& warning) {
  return fmt::format("warning[{}] {}\n  why: {}\n  fix: {}\n", warning.rule, warning.setting, warning.why,
                     warning.fix);
}

}  // namespace twice
