// The settings sections: the seed, budgets, the queues, the workers, the
// runtime and its retry policy and discipline, the store. Limits are the real
// systems' where there is one (SQS for the broker, Temporal's vocabulary for
// retries); otherwise a bound that keeps the simulator's arithmetic safe.

#include <algorithm>

#include <fmt/format.h>

#include "scenario/sections.hpp"
#include "sim/byte_size_text.hpp"
#include <twice/world/world.hpp>

namespace twice::scenario_detail {
namespace {

using sim::duration;

// SQS: MessageRetentionPeriod 60 s .. 14 days; maxReceiveCount 1 .. 1000.
// (queue.cpp asserts the same bounds.)
constexpr duration_limits retention_limits{duration::from_s(60), duration::from_s(14 * 24 * 3600), " (SQS's limits)"};
constexpr duration_limits visibility_limits{duration::zero(), max_visibility_timeout, " (SQS's limit)"};
constexpr duration_limits redis_visibility_limits{duration::zero(), max_redis_visibility_timeout, " (30 days)"};
constexpr integer_limits max_receive_limits{1, 1000, " (SQS's limits)"};
constexpr duration_limits delay_limits{duration::zero(), max_delay, " (SQS's limit)"};
// Bounds that are not the real system's: long enough for any story, short
// enough that no sum of them can overflow the clock.
constexpr duration_limits day_limits{duration::zero(), duration::from_s(24 * 3600)};
constexpr duration_limits year_limits{duration::zero(), uncapped_ceiling, " (one year)"};
// A trillion kernel events: more than a day of wall-clock time at ten million
// events a second, far past any story; a budget beyond it is a typo.
constexpr integer_limits events_limits{1, 1'000'000'000'000};

void load_seed(const table_reader& root, load_state& s) {
  const doc_node* n = root.get("seed");
  if (n == nullptr) return;
  // TOML integers stop at 2^63 - 1; a seed printed by a property run may be
  // any 64-bit value, so a string of digits is accepted too.
  if (n->type == doc_node::kind::string) {
    std::uint64_t v = 0;
    bool ok = !n->text.empty() && n->text.size() <= 20;
    for (const char c : n->text) {
      ok = ok && c >= '0' && c <= '9' && !__builtin_mul_overflow(v, 10, &v) &&
           !__builtin_add_overflow(v, static_cast<std::uint64_t>(c - '0'), &v);
    }
    if (ok) {
      s.world.seed = v;
      return;
    }
  } else if (n->type == doc_node::kind::integer && n->integer >= 0) {
    s.world.seed = static_cast<std::uint64_t>(n->integer);
    return;
  }
  s.d.error(n->pos, "seed",
            "expected a seed from 0 to 18446744073709551615 (an integer, or a string of digits above 2^63 - 1), "
            "found " +
                describe_found(*n));
}

void load_budget(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("budget");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "budget", {"time_limit", "events", "memory"});
  r.duration("time_limit", s.world.time_limit, {duration::from_us(1), instant_offset_max, " (ten years)"});
  r.integer("events", s.world.event_budget, events_limits);
  if (const doc_node* n = r.get("memory")) {
    const std::optional<std::string> text = read_string(s.d, *n, r.path_of("memory"));
    if (!text) return;
    const sim::result<std::uint64_t> bytes = sim::parse_byte_size(*text);
    if (!bytes.ok())
      s.d.error(n->pos, r.path_of("memory"), bytes.error());
    else if (bytes.value() < memory_budget_min || bytes.value() > memory_budget_max)
      s.d.error(n->pos, r.path_of("memory"), "expected a size from 1MiB to 1TiB, found \"" + *text + "\"");
    else
      s.world.memory_budget = bytes.value();
  }
}

void load_trace(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("trace");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "trace", {"sample_interval", "counter_lag"});
  r.duration("sample_interval", s.world.sample_interval, day_limits);
  constexpr duration_limits lag_limits{duration::zero(), duration::from_s(15 * 60)};
  if (!r.duration("counter_lag", s.world.counter_lag, lag_limits) || s.world.counter_lag == duration::zero()) return;
  // The sampler keeps the samples of one lag: a bounded number of them.
  constexpr std::int64_t samples_max = 10'000;
  const duration interval = s.world.sample_interval;
  if (interval == duration::zero())
    s.d.error(r.pos_of("counter_lag"), "trace.counter_lag",
              "a lag of the sampled counters needs samples: "
              "trace.sample_interval is 0s");
  else if (s.world.counter_lag.us() / interval.us() > samples_max)
    s.d.error(r.pos_of("counter_lag"), "trace.counter_lag",
              "the lag spans more than 10000 samples of trace.sample_interval = " + sim::format_duration(interval) +
                  "; sample less often or lag less");
}

void load_queue(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("queue");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "queue",
                       {"name", "visibility_timeout", "retention", "max_receive_count", "semantics", "message_group_id",
                        "delay", "flavour", "deduplication"});
  static const named<handle_semantics> semantics[] = {{"sqs", handle_semantics::sqs},
                                                      {"strict", handle_semantics::strict}};
  static const named<message_group_source> groups[] = {{"none", message_group_source::none},
                                                       {"tenant", message_group_source::tenant},
                                                       {"job", message_group_source::job}};
  static const named<deduplication_source> deduplications[] = {{"job_id", deduplication_source::job_id},
                                                               {"content", deduplication_source::content},
                                                               {"per_send", deduplication_source::per_send}};
  queue_config& q = s.world.queue;
  load_flavour_choice(r, s);
  const bool group_given = r.choice("message_group_id", s.world.message_group, groups);
  const bool dedup_given = r.choice("deduplication", s.world.deduplication, deduplications);
  if (q.fifo) {
    // A FIFO queue refuses a send without a MessageGroupId; unless told, each job is its own group.
    if (!group_given) s.world.message_group = message_group_source::job;
    if (s.world.message_group == message_group_source::none)
      s.d.error(r.pos_of("message_group_id"), r.path_of("message_group_id"),
                "a FIFO queue needs a message group on every send: \"job\" (each job its own group) or \"tenant\"");
  } else if (dedup_given) {
    s.d.error(r.pos_of("deduplication"), r.path_of("deduplication"),
              "deduplication ids are for FIFO queues only: set flavour = \"sqs_fifo\" or remove it");
  }
  r.identifier("name", q.name);
  r.duration("visibility_timeout", q.visibility_timeout,
             q.redis_ack_emulation ? redis_visibility_limits : visibility_limits);
  r.duration("retention", q.retention, retention_limits);
  r.integer("max_receive_count", q.max_receive_count, max_receive_limits);
  if (r.choice("semantics", q.semantics, semantics) && q.fifo && q.semantics != handle_semantics::sqs)
    s.d.error(r.pos_of("semantics"), r.path_of("semantics"),
              "semantics chooses a standard queue's receipt-handle rules; a FIFO queue has its own (an expired or "
              "superseded handle is refused): remove it");
  r.duration("delay", q.delay, delay_limits);
}

// [tenants]: the bound no_tenant_starved holds each quiet tenant's waits to.
void load_tenants(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("tenants");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "tenants",
                       {"wait_bound", "concurrency_limit", "over_limit_delay", "queues", "weights"});
  r.duration("wait_bound", s.world.tenant_wait_bound,
             {sim::duration::from_us(1), sim::duration::from_s(14 * 24 * 3600)});
  // queues: "shared" (one job queue) or "one_per_tenant" (Sidekiq-style
  // weighted queues); weights: { TENANT = 1..1000 }, a tenant not named 1.
  static const named<bool> queue_layouts[] = {{"shared", false}, {"one_per_tenant", true}};
  bool per_tenant = false;
  r.choice("queues", per_tenant, queue_layouts);
  if (per_tenant) s.world.tenant_queues.emplace();
  if (const doc_node* w = r.table("weights")) {
    if (!per_tenant) {
      s.d.error(r.pos_of("weights"), r.path_of("weights"),
                "needs queues = \"one_per_tenant\" (weights order the tenants' own queues)");
    } else {
      for (const doc_entry& e : w->entries) {
        const std::string path = child_path(r.path_of("weights"), e.key);
        const std::optional<std::int64_t> weight = read_integer(s.d, e.value, path, {1, 1000});
        if (weight) s.world.tenant_queues->weights[e.key] = static_cast<std::uint32_t>(*weight);
      }
    }
  }
  if (r.get("concurrency_limit") != nullptr) {
    tenant_limit_config& limit = s.world.runtime.tenant_limit.emplace();
    r.integer("concurrency_limit", limit.concurrency, {1, 1'000'000});
    r.duration("over_limit_delay", limit.over_limit_delay, {sim::duration::from_ms(1), sim::duration::from_s(900)});
  } else if (r.get("over_limit_delay") != nullptr) {
    s.d.error(r.pos_of("over_limit_delay"), r.path_of("over_limit_delay"),
              "needs concurrency_limit (a job is given back only when its tenant is at its limit)");
  }
}

// [alarms]: CloudWatch alarms on the job queue, which backlog_within_bound
// holds the sampler's figures to.
void load_alarms(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("alarms");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "alarms", {"oldest_message_age", "backlog"});
  queue_alarms& a = s.world.alarms;
  r.duration("oldest_message_age", a.oldest_message_age, {duration::from_s(1), duration::from_s(14 * 24 * 3600)});
  std::uint64_t backlog = 0;
  if (r.integer("backlog", backlog, {1, 1'000'000'000})) a.backlog = backlog;
}

void load_dead_letter_queue(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("dead_letter_queue");
  if (t != nullptr) {
    const table_reader r(s.d, *t, "dead_letter_queue",
                         {"enabled", "name", "retention", "max_jobs", "redrive_after", "redrives", "page_auto_resolve",
                          "age_alarm", "renotify_every"});
    r.boolean("enabled", s.world.dead_letter_queue);
    r.identifier("name", s.world.dead_letter.name);
    // Sidekiq's dead set takes any dead_timeout_in_seconds; an SQS queue 60 s .. 14 days.
    r.duration("retention", s.world.dead_letter.retention,
               s.world.dead_letter.dead_set ? duration_limits{sim::duration::from_s(60), max_dead_set_retention,
                                                              " (Sidekiq's dead set: 60 s to 10 years here)"}
                                            : retention_limits);
    if (r.integer("max_jobs", s.world.dead_letter.dead_max_jobs, {1, 100'000'000}) && !s.world.dead_letter.dead_set)
      r.diag().error(r.pos_of("max_jobs"), r.path_of("max_jobs"),
                     "max_jobs is the size of Sidekiq's dead set (dead_max_jobs); an SQS queue has no cap: remove it");
    // The on-call's redrive: how long after the alarm, and how many times.
    std::optional<sim::duration> after;
    r.duration("redrive_after", after, {sim::duration::zero(), retention_limits.hi});
    dead_letter_redrive_config redrive;
    if (after) redrive.after = *after;
    const bool times = r.integer("redrives", redrive.times, {1, 1000});
    if (times && !after)
      r.diag().error(r.pos_of("redrives"), r.path_of("redrives"),
                     "redrives needs redrive_after: when does the on-call redrive?");
    // The pager's auto-resolve and an alarm on the oldest dead letter's age:
    // both about the on-call's answer, so both need one.
    r.duration("page_auto_resolve", redrive.auto_resolve, {sim::duration::from_s(60), retention_limits.hi});
    r.duration("age_alarm", redrive.age_alarm, {sim::duration::from_s(60), retention_limits.hi});
    r.duration("renotify_every", redrive.renotify_every, {sim::duration::from_s(60), retention_limits.hi});
    for (const char* key : {"page_auto_resolve", "age_alarm", "renotify_every"})
      if (t->find(key) != nullptr && !after)
        r.diag().error(r.pos_of(key), r.path_of(key),
                       fmt::format("{} needs redrive_after: the pages are the on-call's, who answers them "
                                   "redrive_after later",
                                   key));
    if (after) {
      if (!s.world.dead_letter_queue)
        r.diag().error(r.pos_of("redrive_after"), r.path_of("redrive_after"),
                       "a redrive needs the dead-letter queue, but enabled is false");
      s.world.dead_letter_redrive = redrive;
    }
  }
  // Both queues trace as "queue/<name>": one name for two queues would merge them.
  if (s.world.dead_letter_queue && s.world.dead_letter.name == s.world.queue.name) {
    // The defaults differ, so one of the names was written in the file.
    const doc_node* dlq_name = t != nullptr ? t->find("name") : nullptr;
    const doc_node* queue = root.get("queue");
    const doc_node* queue_name = queue != nullptr ? queue->find("name") : nullptr;
    const source_pos at = dlq_name != nullptr ? dlq_name->pos : queue_name != nullptr ? queue_name->pos : root.pos();
    s.d.error(at, dlq_name != nullptr ? "dead_letter_queue.name" : "queue.name",
              "the queue and the dead-letter queue need different names; both are " + quote(s.world.queue.name));
  }
  // SQS's redrive policy names both the count and the target queue.
  const doc_node* queue = root.get("queue");
  const doc_node* count = queue != nullptr ? queue->find("max_receive_count") : nullptr;
  // (A Pub/Sub subscription refuses the key itself: check_pubsub.)
  if (count != nullptr && s.world.queue.max_receive_count > 0 && !s.world.dead_letter_queue && !s.world.queue.pubsub) {
    s.d.error(count->pos, "queue.max_receive_count",
              "a redrive needs a dead-letter queue, but dead_letter_queue.enabled is false; enable it or remove "
              "max_receive_count");
  }
}

void load_workers(const table_reader& root, load_state& s) {
  s.worker_count = s.world.workers;
  const doc_node* t = root.table("workers");
  if (t == nullptr) {
    if (root.get("workers") != nullptr) s.worker_count.reset();  // not a table: the count is unknown
    return;
  }
  const table_reader r(s.d, *t, "workers", {"count", "sha"});
  if (r.get("count") != nullptr && !r.integer("count", s.world.workers, {1, 10'000}))
    s.worker_count.reset();
  else
    s.worker_count = s.world.workers;
  r.identifier("sha", s.world.sha);
}

void load_runtime(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("runtime");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "runtime",
                       {"visibility_timeout", "heartbeat_interval", "long_poll", "restart_delay", "relay_poll_interval",
                        "liveness_probe", "count_attempts", "uncount_unavailable", "count_failures", "attempts_left",
                        "orphan_rescue", "shutdown_timeout", "execution_timeout"});
  runtime_config& rt = s.world.runtime;
  // Lambda's function timeout is 1 s to 900 s; Laravel's and Celery's have no bound.
  r.duration("execution_timeout", rt.execution_timeout,
             {duration::from_s(1), day_limits.hi, " (leave it out for none)"});
  r.duration("shutdown_timeout", rt.shutdown_timeout, {duration::from_us(1), day_limits.hi});
  r.duration("visibility_timeout", rt.visibility_timeout, visibility_limits);
  // Zero would heartbeat forever at one instant: leave the key out instead.
  r.duration("heartbeat_interval", rt.heartbeat_interval,
             {duration::from_us(1), max_visibility_timeout, " (leave it out for no heartbeat)"});
  r.duration("long_poll", rt.long_poll, {duration::zero(), max_long_poll, " (SQS's limit)"});
  r.duration("restart_delay", rt.restart_delay, day_limits);
  r.duration("relay_poll_interval", s.world.relay_poll_interval, {duration::from_us(1), duration::from_s(3600)});
  static const named<attempt_counting> counting[] = {{"at_start", attempt_counting::at_start},
                                                     {"at_failure", attempt_counting::at_failure}};
  r.choice("count_attempts", rt.count_attempts, counting);
  static const named<attempt_take_back> take_backs[] = {
      {"never", attempt_take_back::never}, {"once", attempt_take_back::once}, {"twice", attempt_take_back::twice}};
  r.choice("uncount_unavailable", rt.uncount_unavailable, take_backs);
  if (rt.uncount_unavailable != attempt_take_back::never && rt.count_attempts != attempt_counting::at_start)
    s.d.error(r.pos_of("uncount_unavailable"), r.path_of("uncount_unavailable"),
              "gives back the attempt counted at the start: needs count_attempts = \"at_start\" (at_failure counts "
              "no 503 to give back)");
  static const named<failure_counting> failure_counts[] = {{"once", failure_counting::once},
                                                           {"twice", failure_counting::twice}};
  r.choice("count_failures", rt.count_failures, failure_counts);
  static const named<attempts_left_check> left_checks[] = {{"below_limit", attempts_left_check::below_limit},
                                                           {"not_at_limit", attempts_left_check::not_at_limit}};
  r.choice("attempts_left", rt.attempts_left, left_checks);
  if (const doc_node* p = r.table("liveness_probe")) {
    // [runtime.liveness_probe]: Kubernetes' probe fields, with its defaults
    // and its minimums (whole seconds there; finer here is allowed).
    const table_reader pr(s.d, *p, r.path_of("liveness_probe"),
                          {"initial_delay", "period", "timeout", "failure_threshold", "termination_grace"});
    liveness_probe_config& probe = rt.liveness_probe.emplace();
    pr.duration("initial_delay", probe.initial_delay, day_limits);
    pr.duration("period", probe.period, {duration::from_ms(1), duration::from_s(24 * 3600)});
    pr.duration("timeout", probe.timeout, {duration::from_ms(1), duration::from_s(24 * 3600)});
    pr.integer("failure_threshold", probe.failure_threshold, {1, 1000});
    pr.duration("termination_grace", probe.termination_grace, day_limits);
  }
  if (const doc_node* p = r.table("orphan_rescue")) {
    // [runtime.orphan_rescue]: Oban's Lifeline, with its defaults.
    const table_reader pr(s.d, *p, r.path_of("orphan_rescue"), {"rescue_after", "interval", "exhausted"});
    orphan_rescue_config& rescue = rt.orphan_rescue.emplace();
    pr.duration("rescue_after", rescue.rescue_after, {duration::from_s(1), duration::from_s(24 * 3600)});
    pr.duration("interval", rescue.interval, {duration::from_s(1), duration::from_s(24 * 3600)});
    static const named<exhausted_orphans> exhausted[] = {{"discard", exhausted_orphans::discard},
                                                         {"retry", exhausted_orphans::retry}};
    pr.choice("exhausted", rescue.exhausted, exhausted);
  }
}

// A duration, or "none": no cap at all (the anti-pattern the catalogue shows).
bool load_maximum_interval(const table_reader& r, retry_policy& p) {
  const doc_node* n = r.get("maximum_interval");
  if (n == nullptr) return true;
  if (n->type == doc_node::kind::string && n->text == "none") {
    p.maximum_interval.reset();
    return true;
  }
  if (n->type != doc_node::kind::string) {
    r.diag().error(n->pos, r.path_of("maximum_interval"),
                   "expected a duration string like \"30s\", or \"none\" for no cap, found " + describe_found(*n));
    return false;
  }
  return r.duration("maximum_interval", p.maximum_interval, year_limits);
}

void load_retry(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("retry");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "retry",
                       {"initial_interval", "coefficient", "maximum_interval", "maximum_attempts", "jitter", "budget",
                        "circuit_breaker", "retry_breaker"});
  if (const doc_node* b = r.table("budget")) {
    // [retry.budget]: the AWS SDKs' standard-mode retry quota (runtime/retry_budget.hpp).
    const table_reader br(s.d, *b, r.path_of("budget"),
                          {"tokens", "retry_cost", "timeout_cost", "success_refund", "retry_success_refund", "refill"});
    retry_budget_config& budget = s.world.runtime.retry_budget.emplace();
    const integer_limits tokens{0, 1'000'000, " tokens"};
    if (br.get("tokens") != nullptr) br.integer("tokens", budget.tokens, tokens);
    if (br.get("retry_cost") != nullptr) br.integer("retry_cost", budget.retry_cost, tokens);
    if (br.get("timeout_cost") != nullptr) br.integer("timeout_cost", budget.timeout_cost, tokens);
    if (br.get("success_refund") != nullptr) br.integer("success_refund", budget.success_refund, tokens);
    if (br.get("retry_success_refund") != nullptr)
      br.integer("retry_success_refund", budget.retry_success_refund.emplace(), tokens);
    static const named<bool> refills[] = {{"on_success", false}, {"per_call", true}};
    br.choice("refill", budget.refill_per_call, refills);
  }
  if (const doc_node* b = r.table("retry_breaker")) {
    // [retry.retry_breaker]: a breaker of retries alone, Brooker's (runtime/retry_breaker.hpp).
    const table_reader br(s.d, *b, r.path_of("retry_breaker"), {"failure_percent"});
    br.integer("failure_percent", s.world.runtime.retry_breaker.emplace().failure_percent, {1, 100});
  }
  if (const doc_node* b = r.table("circuit_breaker")) {
    // [retry.circuit_breaker]: Hystrix's rules and defaults (runtime/circuit_breaker.hpp).
    const table_reader br(s.d, *b, r.path_of("circuit_breaker"),
                          {"window", "min_calls", "failure_percent", "open_for"});
    circuit_breaker_config& breaker = s.world.runtime.circuit_breaker.emplace();
    br.duration("window", breaker.window, {duration::from_ms(1), duration::from_s(24 * 3600)});
    br.integer("min_calls", breaker.min_calls, {1, 1'000'000});
    br.integer("failure_percent", breaker.failure_percent, {1, 100});
    br.duration("open_for", breaker.open_for, {duration::from_ms(1), duration::from_s(24 * 3600)});
  }
  static const named<jitter_kind> jitters[] = {{"none", jitter_kind::none},
                                               {"full", jitter_kind::full},
                                               {"equal", jitter_kind::equal},
                                               {"decorrelated", jitter_kind::decorrelated},
                                               {"sidekiq", jitter_kind::sidekiq}};
  retry_policy& p = s.world.runtime.retry;
  const bool initial_given = r.get("initial_interval") != nullptr;
  const bool cap_given = r.get("maximum_interval") != nullptr;
  const bool initial_ok = !initial_given || r.duration("initial_interval", p.initial_interval, year_limits);
  if (const doc_node* n = r.get("coefficient")) {
    if (const auto v = read_milli(s.d, *n, r.path_of("coefficient"), 1000, 100'000)) p.coefficient_milli = *v;
  }
  const bool cap_ok = load_maximum_interval(r, p);
  r.integer("maximum_attempts", p.maximum_attempts, {0, 10'000, " (0: unlimited)"});
  r.choice("jitter", p.jitter, jitters);

  // A cap below the base would clamp every delay to the cap: a typo, not a
  // policy. Compared only when both values loaded, so a bad one is reported once.
  if (initial_ok && cap_ok && p.maximum_interval && *p.maximum_interval < p.initial_interval) {
    const std::string cap = sim::format_duration(*p.maximum_interval);
    const std::string base = sim::format_duration(p.initial_interval);
    if (cap_given) {
      s.d.error(r.pos_of("maximum_interval"), "retry.maximum_interval",
                "the cap " + cap + " is below retry.initial_interval " + base +
                    "; it must be at least the initial "
                    "interval");
    } else {
      s.d.error(r.pos_of("initial_interval"), "retry.initial_interval",
                base + " is above the default cap retry.maximum_interval = " + cap +
                    "; raise the cap or write "
                    "maximum_interval = \"none\"");
    }
  }
}

void load_discipline(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("discipline");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "discipline",
                       {"key", "pass_key_to_vendor", "ledger_guard", "checkpoint", "retry", "retry_non_retryable",
                        "reset_attempts_on_reenqueue", "hold_transaction_across_model", "email_dedupe",
                        "stop_on_lost_lease", "fencing", "work_id"});
  static const named<key_mode> keys[] = {
      {"none", key_mode::none}, {"per_attempt", key_mode::per_attempt}, {"stable", key_mode::stable}};
  static const named<checkpoint_mode> checkpoints[] = {{"before_effect", checkpoint_mode::before_effect},
                                                       {"after_success", checkpoint_mode::after_success},
                                                       {"outbox", checkpoint_mode::outbox}};
  static const named<retry_mode> retries[] = {{"nack", retry_mode::nack}, {"in_slice", retry_mode::in_slice}};
  static const named<work_id_mode> work_ids[] = {{"job", work_id_mode::job}, {"message", work_id_mode::message}};
  discipline& d = s.world.runtime.rules;
  r.choice("key", d.key, keys);
  r.choice("work_id", d.work_id, work_ids);
  r.boolean("pass_key_to_vendor", d.pass_key_to_vendor);
  r.boolean("ledger_guard", d.ledger_guard);
  r.choice("checkpoint", d.checkpoint, checkpoints);
  r.choice("retry", d.retry, retries);
  r.boolean("retry_non_retryable", d.retry_non_retryable);
  r.boolean("reset_attempts_on_reenqueue", d.reset_attempts_on_reenqueue);
  r.boolean("hold_transaction_across_model", d.hold_transaction_across_model);
  // The claim before a send is the tool's setting now: any tool's, not only
  // the email's.
  if (r.get("email_dedupe") != nullptr)
    s.d.error(r.pos_of("email_dedupe"), r.path_of("email_dedupe"),
              "the claim before a send is set per tool now: [tools.email] claim = true or false (and claim = true "
              "on a write tool of your own whose far side takes no key)");
  r.boolean("stop_on_lost_lease", d.stop_on_lost_lease);
  r.boolean("fencing", d.fencing);
}

// [split]: the fix for a slice that cannot heartbeat through a slow call.
// Only a read-only tool moves: a write keeps its key and checkpoint in the
// job that owns them.
void load_split(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("split");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "split", {"tool", "visibility_timeout", "max_receive_count", "workers"});
  static constexpr std::string_view splittable[] = {"model", "read"};
  if (const doc_node* n = r.get("tool")) {
    if (const auto i = read_choice_index(s.d, *n, r.path_of("tool"), splittable))
      s.world.runtime.rules.split_tool = std::string(splittable[*i]);
  } else {
    r.missing("tool", "the slow read-only tool whose steps become jobs of their own, " + quoted_choices(splittable));
  }
  split_config& c = s.world.split;
  r.duration("visibility_timeout", c.queue.visibility_timeout, visibility_limits);
  r.integer("max_receive_count", c.queue.max_receive_count, max_receive_limits);
  r.integer("workers", c.workers, {1, 10'000});
  if (r.get("max_receive_count") != nullptr && !s.world.dead_letter_queue)
    s.d.error(r.pos_of("max_receive_count"), "split.max_receive_count",
              "a redrive needs a dead-letter queue, but dead_letter_queue.enabled is false");
}

void load_store(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("store");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "store",
                       {"pool_size", "statement_latency", "unique_ledger_key", "dead_row_cost", "transaction_timeout",
                        "long_transaction"});
  store_config& c = s.world.store;
  r.integer("pool_size", c.pool_size, {1, pool_size_max});
  r.duration("statement_latency", c.statement_latency, {duration::zero(), duration::from_s(3600)});
  r.boolean("unique_ledger_key", c.unique_ledger_key);
  r.duration("dead_row_cost", c.dead_row_cost, {duration::from_us(1), duration::from_s(1)});
  r.duration("transaction_timeout", c.transaction_timeout, {duration::from_ms(1), duration::from_s(24 * 3600)});
  // [[store.long_transaction]]: another session's transaction, start to end.
  for (const auto& item : r.tables("long_transaction")) {
    const table_reader lr(s.d, *item.table, item.path, {"start", "end", "holder"});
    const window_read w = load_window(lr);
    long_transaction tx;
    lr.identifier("holder", tx.holder);
    if (!w.ok) continue;
    tx.begin = w.window.begin;
    tx.end = w.window.end;
    c.long_transactions.push_back(std::move(tx));
  }
}

}  // namespace

// After the jobs: a tenant weighed must be one the jobs name, and the split
// discipline keeps one queue for the parents' resumption.
void check_tenant_queues(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("tenants");
  if (t == nullptr || !s.world.tenant_queues) return;
  const doc_node* queues = t->find("queues");
  if (!s.world.runtime.rules.split_tool.empty())
    s.d.error(queues->pos, "tenants.queues",
              "one_per_tenant does not combine with the split discipline (a split-out job's parent resumes on "
              "the one job queue): use queues = \"shared\"");
  const doc_node* weights = t->find("weights");
  if (weights == nullptr || !weights->is_table()) return;
  const std::vector<std::string> known = story_tenants(s.world);
  for (const doc_entry& e : weights->entries)
    if (!std::binary_search(known.begin(), known.end(), e.key))
      s.d.error(e.key_pos, "tenants.weights." + e.key,
                fmt::format("no job names the tenant {} (the jobs' tenants: {})", e.key,
                            known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", "))));
}

void load_settings(const table_reader& root, load_state& s) {
  load_seed(root, s);
  load_budget(root, s);
  load_trace(root, s);
  load_queue(root, s);
  load_tenants(root, s);
  load_alarms(root, s);
  load_dead_letter_queue(root, s);
  load_workers(root, s);
  load_runtime(root, s);
  load_retry(root, s);
  load_discipline(root, s);
  load_split(root, s);
  load_store(root, s);
  load_sidekiq(root, s);
  load_celery(root, s);
  load_pubsub(root, s);
  load_kafka(root, s);
  check_flavour(root, s);
}

}  // namespace twice::scenario_detail
