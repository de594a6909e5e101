// Scenario files that load: every key lands in the exact world_config field,
// defaults are the headers' defaults, the incident files are the C++
// incident setting for setting, and generated workloads depend on the seed
// alone.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <twice/checks/checked_run.hpp>
#include <twice/checks/invariants.hpp>
#include <twice/checks/invariant.hpp>
#include "checks/invariant_names.hpp"
#include <twice/scenario/scenario.hpp>
#include "scenario_text.hpp"
#include "test_files.hpp"
#include "test_worlds.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/incidents.hpp"

using namespace twice;
using sim::duration;
using sim::instant;

namespace {

std::string catalogue_file(std::string_view name) { return (twice::test::repo_root() / "scenarios" / name).string(); }

scenario load_ok(std::string_view text) {
  load_result r = load_scenario_text(test::with_a_job(text), "tests/ok.toml");
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  REQUIRE(r.ok());
  return std::move(*r.value);
}

// The default world_config with a loaded scenario's jobs: a scenario must
// define a job, so "every other key took its default" is this comparison.
world_config defaults_with_jobs_of(const world_config& loaded) {
  world_config c;
  c.jobs = loaded.jobs;
  return c;
}

instant at(duration d) { return instant::epoch() + d; }

void check_same(const queue_config& a, const queue_config& b) {
  CHECK(a.name == b.name);
  CHECK(a.visibility_timeout == b.visibility_timeout);
  CHECK(a.retention == b.retention);
  CHECK(a.max_receive_count == b.max_receive_count);
  CHECK(a.semantics == b.semantics);
  CHECK(a.delay == b.delay);
  CHECK(a.receive_wait == b.receive_wait);
  CHECK(a.fifo == b.fifo);
  CHECK(a.content_based_deduplication == b.content_based_deduplication);
  CHECK(a.fifo_scan_window == b.fifo_scan_window);
  CHECK(a.hold_until_ack == b.hold_until_ack);
  CHECK(a.dead_set == b.dead_set);
  CHECK(a.dead_max_jobs == b.dead_max_jobs);
  CHECK(a.redis_ack_emulation == b.redis_ack_emulation);
  CHECK(a.pubsub == b.pubsub);
  CHECK(a.retry_policy == b.retry_policy);
  CHECK(a.super_fetch == b.super_fetch);
  CHECK(a.restore_sweep == b.restore_sweep);
}

void check_same(const latency_model& a, const latency_model& b) {
  CHECK(a.kind() == b.kind());
  CHECK(a.describe() == b.describe());
}

void check_same(const std::vector<time_window>& a, const std::vector<time_window>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].begin == b[i].begin);
    CHECK(a[i].end == b[i].end);
  }
}

void check_same(const std::vector<latency_spike>& a, const std::vector<latency_spike>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].window.begin == b[i].window.begin);
    CHECK(a[i].window.end == b[i].window.end);
    CHECK(a[i].extra == b[i].extra);
  }
}

void check_same(const service_tool_config& a, const service_tool_config& b) {
  CHECK(a.name == b.name);
  CHECK(a.effect == b.effect);
  CHECK(a.keys == b.keys);
  check_same(a.latency, b.latency);
  CHECK(a.unavailable_ppm == b.unavailable_ppm);
  CHECK(a.rate_limited_ppm == b.rate_limited_ppm);
  CHECK(a.internal_error_ppm == b.internal_error_ppm);
  CHECK(a.lost_request_ppm == b.lost_request_ppm);
  CHECK(a.lost_response_ppm == b.lost_response_ppm);
  CHECK(a.retry_after == b.retry_after);
  CHECK(a.key_retention == b.key_retention);
  CHECK(a.capacity == b.capacity);
  CHECK(a.ref_prefix == b.ref_prefix);
  CHECK(a.client_timeout == b.client_timeout);
  CHECK(a.round_trip == b.round_trip);
  check_same(a.outages, b.outages);
  check_same(a.latency_spikes, b.latency_spikes);
  CHECK(a.pool.servers == b.pool.servers);
  CHECK(a.pool.queue_timeout == b.pool.queue_timeout);
  CHECK(a.pool.order == b.pool.order);
  CHECK(a.moves_money == b.moves_money);
  CHECK(a.bad_targets == b.bad_targets);
  CHECK(a.draws == b.draws);
}

void check_same(const runtime_config& a, const runtime_config& b) {
  CHECK(a.visibility_timeout == b.visibility_timeout);
  CHECK(a.heartbeat_interval == b.heartbeat_interval);
  CHECK(a.long_poll == b.long_poll);
  CHECK(a.restart_delay == b.restart_delay);
  CHECK(a.liveness_probe == b.liveness_probe);
  CHECK(a.count_attempts == b.count_attempts);
  CHECK(a.uncount_unavailable == b.uncount_unavailable);
  CHECK(a.tenant_limit == b.tenant_limit);
  CHECK(a.orphan_rescue == b.orphan_rescue);
  CHECK(a.shutdown_timeout == b.shutdown_timeout);
  CHECK(a.celery == b.celery);
  CHECK(a.max_lease_duration == b.max_lease_duration);
  REQUIRE(a.retry_budget.has_value() == b.retry_budget.has_value());
  if (a.retry_budget) {
    CHECK(a.retry_budget->tokens == b.retry_budget->tokens);
    CHECK(a.retry_budget->retry_cost == b.retry_budget->retry_cost);
    CHECK(a.retry_budget->timeout_cost == b.retry_budget->timeout_cost);
    CHECK(a.retry_budget->success_refund == b.retry_budget->success_refund);
    CHECK(a.retry_budget->retry_success_refund == b.retry_budget->retry_success_refund);
  }
  CHECK(a.circuit_breaker == b.circuit_breaker);
  CHECK(a.retry.initial_interval == b.retry.initial_interval);
  CHECK(a.retry.coefficient_milli == b.retry.coefficient_milli);
  CHECK(a.retry.maximum_interval == b.retry.maximum_interval);
  CHECK(a.retry.maximum_attempts == b.retry.maximum_attempts);
  CHECK(a.retry.jitter == b.retry.jitter);
  CHECK(a.rules.key == b.rules.key);
  CHECK(a.rules.pass_key_to_vendor == b.rules.pass_key_to_vendor);
  CHECK(a.rules.ledger_guard == b.rules.ledger_guard);
  CHECK(a.rules.checkpoint == b.rules.checkpoint);
  CHECK(a.rules.retry == b.rules.retry);
  CHECK(a.rules.retry_non_retryable == b.rules.retry_non_retryable);
  CHECK(a.rules.reset_attempts_on_reenqueue == b.rules.reset_attempts_on_reenqueue);
  CHECK(a.rules.hold_transaction_across_model == b.rules.hold_transaction_across_model);
  CHECK(a.rules.claimed_tools == b.rules.claimed_tools);
  CHECK(a.rules.stop_on_lost_lease == b.rules.stop_on_lost_lease);
  CHECK(a.rules.fencing == b.rules.fencing);
  CHECK(a.rules.work_id == b.rules.work_id);
}

void check_same(const std::vector<job_spec>& a, const std::vector<job_spec>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("job " << i);
    CHECK(a[i].id == b[i].id);
    CHECK(a[i].tenant == b[i].tenant);
    CHECK(a[i].enqueue_at == b[i].enqueue_at);
    REQUIRE(a[i].steps.size() == b[i].steps.size());
    for (std::size_t s = 0; s < a[i].steps.size(); ++s) {
      CHECK(a[i].steps[s].tool == b[i].steps[s].tool);
      CHECK(a[i].steps[s].target == b[i].steps[s].target);
      CHECK(a[i].steps[s].amount_cents == b[i].steps[s].amount_cents);
      CHECK(a[i].steps[s].checkpointed == b[i].steps[s].checkpointed);
    }
  }
}

void check_same(const job_type& a, const job_type& b) {
  CHECK(a.name == b.name);
  CHECK(a.progress == b.progress);
  CHECK(a.tenant == b.tenant);
  REQUIRE(a.steps.size() == b.steps.size());
  for (std::size_t s = 0; s < a.steps.size(); ++s) {
    CHECK(a.steps[s].tool == b.steps[s].tool);
    CHECK(a.steps[s].target == b.steps[s].target);
    CHECK(a.steps[s].amount_cents == b.steps[s].amount_cents);
    CHECK(a.steps[s].items == b.steps[s].items);
  }
}

void check_same_faults(const world_config& a, const world_config& b) {
  REQUIRE(a.point_faults.size() == b.point_faults.size());
  for (std::size_t i = 0; i < a.point_faults.size(); ++i) {
    const point_fault& x = a.point_faults[i];
    const point_fault& y = b.point_faults[i];
    CHECK(x.point == y.point);
    CHECK(x.tool == y.tool);
    CHECK(x.step == y.step);
    CHECK(x.job == y.job);
    CHECK(x.attempt == y.attempt);
    CHECK(x.worker == y.worker);
    CHECK(x.action == y.action);
    CHECK(x.probability_ppm == y.probability_ppm);
    CHECK(x.max_times == y.max_times);
  }
  REQUIRE(a.queue_faults.size() == b.queue_faults.size());
  for (std::size_t i = 0; i < a.queue_faults.size(); ++i) {
    CHECK(a.queue_faults[i].what == b.queue_faults[i].what);
    CHECK(a.queue_faults[i].job == b.queue_faults[i].job);
    CHECK(a.queue_faults[i].nth == b.queue_faults[i].nth);
    CHECK(a.queue_faults[i].probability_ppm == b.queue_faults[i].probability_ppm);
    CHECK(a.queue_faults[i].resend_after == b.queue_faults[i].resend_after);
  }
  REQUIRE(a.crashes.size() == b.crashes.size());
  for (std::size_t i = 0; i < a.crashes.size(); ++i) {
    CHECK(a.crashes[i].at == b.crashes[i].at);
    CHECK(a.crashes[i].worker == b.crashes[i].worker);
    CHECK(a.crashes[i].restart == b.crashes[i].restart);
  }
  REQUIRE(a.deploys.size() == b.deploys.size());
  for (std::size_t i = 0; i < a.deploys.size(); ++i) {
    const deploy_spec& x = a.deploys[i];
    const deploy_spec& y = b.deploys[i];
    CHECK(x.at == y.at);
    CHECK(x.sha == y.sha);
    CHECK(x.strategy == y.strategy);
    CHECK(x.batch_size == y.batch_size);
    CHECK(x.batch_interval == y.batch_interval);
    CHECK(x.grace_period == y.grace_period);
    CHECK(x.startup == y.startup);
  }
}

void check_same(const std::optional<workload_spec>& a, const std::optional<workload_spec>& b) {
  REQUIRE(a.has_value() == b.has_value());
  if (!a) return;
  CHECK(a->count == b->count);
  CHECK(a->start == b->start);
  CHECK(a->interval == b->interval);
  CHECK(a->arrival == b->arrival);
  CHECK(a->amount_lo == b->amount_lo);
  CHECK(a->amount_hi == b->amount_hi);
  CHECK(a->email_ppm == b->email_ppm);
  CHECK(a->id_prefix == b->id_prefix);
  CHECK(a->last == b->last);
  REQUIRE(a->types.size() == b->types.size());
  for (std::size_t i = 0; i < a->types.size(); ++i) {
    CHECK(a->types[i].weight == b->types[i].weight);
    REQUIRE(a->types[i].type.has_value() == b->types[i].type.has_value());
    if (a->types[i].type) check_same(*a->types[i].type, *b->types[i].type);
  }
}

// Every field of world_config. A field added to world_config needs a key
// in the format, a line in docs/scenario-format.md, and a line here.
void check_same(const world_config& a, const world_config& b) {
  CHECK(a.seed == b.seed);
  CHECK(a.time_limit == b.time_limit);
  CHECK(a.relay_poll_interval == b.relay_poll_interval);
  CHECK(a.sample_interval == b.sample_interval);
  CHECK(a.event_budget == b.event_budget);
  CHECK(a.trace_retention == b.trace_retention);
  check_same(a.queue, b.queue);
  CHECK(a.message_group == b.message_group);
  CHECK(a.deduplication == b.deduplication);
  CHECK(a.tenant_wait_bound == b.tenant_wait_bound);
  CHECK(a.tenant_queues == b.tenant_queues);
  CHECK(a.alarms == b.alarms);
  CHECK(a.dead_letter_queue == b.dead_letter_queue);
  check_same(a.dead_letter, b.dead_letter);
  CHECK(a.dead_letter_redrive == b.dead_letter_redrive);
  CHECK(a.workers == b.workers);
  CHECK(a.sha == b.sha);
  check_same(a.runtime, b.runtime);
  CHECK(a.store.pool_size == b.store.pool_size);
  CHECK(a.store.statement_latency == b.store.statement_latency);
  CHECK(a.store.unique_ledger_key == b.store.unique_ledger_key);
  CHECK(a.store.dead_row_cost == b.store.dead_row_cost);
  CHECK(a.store.transaction_timeout == b.store.transaction_timeout);
  CHECK(a.store.long_transactions == b.store.long_transactions);
  check_same(a.payments, b.payments);
  check_same(a.email, b.email);
  check_same(a.model, b.model);
  check_same(a.read, b.read);
  REQUIRE(a.tools.size() == b.tools.size());
  for (std::size_t i = 0; i < a.tools.size(); ++i) check_same(a.tools[i], b.tools[i]);
  check_same(a.jobs, b.jobs);
  check_same(a.workload, b.workload);
  check_same_faults(a, b);
}

constexpr std::string_view everything = R"(# A scenario that sets every key
# to something other than its default.

name = "everything"
seed = 99

[budget]
time_limit = "2h"
events = 1000

[trace]
sample_interval = "250ms"

[queue]
name = "refunds"
visibility_timeout = "45s"
retention = "1h"
max_receive_count = 7
semantics = "strict"
message_group_id = "tenant"
delay = "2s"

[tenants]
wait_bound = "45s"
queues = "one_per_tenant"
weights = { acme = 3 }

[alarms]
oldest_message_age = "15m"
backlog = 5000

[dead_letter_queue]
enabled = true
name = "refunds-dlq"
retention = "336h"
redrive_after = "6h"
redrives = 3

[workers]
count = 3
sha = "abc123"

[runtime]
visibility_timeout = "1m"
heartbeat_interval = "10s"
long_poll = "5s"
restart_delay = "15s"
relay_poll_interval = "250ms"
count_attempts = "at_failure"
shutdown_timeout = "20s"

[runtime.liveness_probe]
initial_delay = "5s"
period = "15s"
timeout = "2s"
failure_threshold = 4
termination_grace = "1m"

[runtime.orphan_rescue]
rescue_after = "10m"
interval = "30s"
exhausted = "retry"

[retry]
initial_interval = "200ms"
coefficient = "1.5"
maximum_interval = "20s"
maximum_attempts = 8
jitter = "decorrelated"

[retry.budget]
tokens = 300
retry_cost = 6
timeout_cost = 12
success_refund = 2
retry_success_refund = 2

[retry.circuit_breaker]
window = "30s"
min_calls = 8
failure_percent = 75
open_for = "15s"

[discipline]
key = "per_attempt"
pass_key_to_vendor = false
ledger_guard = true
checkpoint = "outbox"
retry = "in_slice"
retry_non_retryable = true
reset_attempts_on_reenqueue = true
hold_transaction_across_model = true
stop_on_lost_lease = false
fencing = true

[store]
pool_size = 4
statement_latency = "5ms"
unique_ledger_key = false
dead_row_cost = "7us"
transaction_timeout = "1m"

[[store.long_transaction]]
start = "5m"
end = "1h"
holder = "pg_dump"

[vendor]
latency = { uniform = ["100ms", "300ms"] }
error_rates = { unavailable = 0.01, rate_limited = "0.002", internal_error = 0.000001, lost_request = 0, lost_response = 1 }
retry_after = "2s"
client_timeout = "10s"
round_trip = "20ms"
bad_invoices = ["inv_9", "inv_10"]
key_retention = "48h"
capacity = 5
servers = 4
queue_timeout = "500ms"

[[vendor.outage]]
start = "10s"
end = "40s"

[[vendor.latency_spike]]
start = "1m"
end = "2m"
extra = "3s"

[tools.email]
claim = false
latency = { p50 = "100ms", p99 = "800ms" }
error_rates = { unavailable = 0.5 }
client_timeout = "5s"
round_trip = "15ms"

[[tools.email.outage]]
start = "0s"
end = "1s"

[tools.model]
latency = { fixed = "3s" }

[[tools.model.latency_spike]]
start = "5s"
end = "6s"
extra = "10s"

[tools.read]
latency = { fixed = "1ms" }
client_timeout = "1s"
servers = 3
queue_timeout = "750ms"
queue_order = "lifo"

[tools.upload]
effect = "write"
keys = "dedupe"
key_retention = "5m"
latency = { uniform = ["10ms", "30ms"] }
error_rates = { unavailable = 0.1, rate_limited = 0.2, internal_error = 0.3, lost_request = 0.04, lost_response = 0.05 }
retry_after = "2s"
client_timeout = "3s"
round_trip = "20ms"
capacity = 40
servers = 4
queue_timeout = "1s"
queue_order = "fifo"

[[tools.upload.outage]]
start = "2s"
end = "3s"

[[tools.upload.latency_spike]]
start = "4s"
end = "5s"
extra = "1s"

[tools.charge]
effect = "write"
keys = "stored_response"
moves_money = true

[[job]]
id = "job_17"
invoice = "inv_17"
amount_cents = 1999
email = true
enqueue_at = "5s"

[[job]]
id = "job_18"
progress = "per_item"
steps = [
  { tool = "read", target = "doc_1" },
  { tool = "refund", target = "inv_18", amount_cents = 250 },
  { tool = "email", target = "c", items = 2 },
]

[[job_type]]
name = "newsletter"
progress = "none"
tenant = "acme"
steps = [{ tool = "email", target = "list_{job}", items = 2 }]

[[job]]
id = "job_19"
type = "newsletter"
tenant = "beta"

[workload]
count = 3
start = "2s"
interval = "250ms"
arrival = "poisson"
types = [{ type = "agent" }, { type = "newsletter", weight = 3 }]
amount_cents = [100, 900]
email_probability = 0.25
id_prefix = "w_"

[[fault]]
point = "after_tool"
tool = "refund"
step = 3
job = "job_17"
attempt = 1
worker = 2
action = "error"
probability = 0.5
max_times = 2

[[crash]]
at = "30s"
worker = 1
restart = false

[[deploy]]
at = "1m"
sha = "v3"
strategy = "rolling_kill"
batch_size = 2
batch_interval = "10s"
grace_period = "45s"
startup = "5s"

[[queue_fault]]
kind = "lose_delete"
job = "job_18"
nth = 2

[[queue_fault]]
kind = "duplicate_delivery"
probability = 0.001

[expect]
hold = ["one_ledger_row_per_key", "every_job_ends"]
violated = ["no_double_payment"]
ledger_rows = 2
vendor_refunds = 3
dead_letters = 0
attempts = 4
all_jobs_end = false
)";

world_config everything_config() {
  world_config c;
  c.seed = 99;
  c.time_limit = duration::from_s(2 * 3600);
  c.event_budget = 1000;
  c.sample_interval = duration::from_ms(250);
  c.queue = {.name = "refunds",
             .visibility_timeout = duration::from_s(45),
             .retention = duration::from_s(3600),
             .max_receive_count = 7,
             .semantics = handle_semantics::strict,
             .delay = duration::from_s(2),
             .receive_wait = duration::zero()};
  c.message_group = message_group_source::tenant;
  c.tenant_wait_bound = duration::from_s(45);
  c.tenant_queues = tenant_queues_config{.weights = {{"acme", 3}}};
  c.alarms = queue_alarms{.oldest_message_age = duration::from_s(900), .backlog = 5000};
  c.dead_letter_queue = true;
  c.dead_letter.name = "refunds-dlq";
  c.dead_letter.retention = duration::from_s(14 * 24 * 3600);
  c.dead_letter_redrive = dead_letter_redrive_config{
      .after = duration::from_s(6 * 3600), .times = 3, .auto_resolve = {}, .age_alarm = {}, .renotify_every = {}};
  c.workers = 3;
  c.sha = "abc123";
  c.runtime.visibility_timeout = duration::from_s(60);
  c.runtime.heartbeat_interval = duration::from_s(10);
  c.runtime.long_poll = duration::from_s(5);
  c.runtime.restart_delay = duration::from_s(15);
  c.runtime.shutdown_timeout = duration::from_s(20);
  c.runtime.count_attempts = attempt_counting::at_failure;
  c.runtime.liveness_probe = liveness_probe_config{.initial_delay = duration::from_s(5),
                                                   .period = duration::from_s(15),
                                                   .timeout = duration::from_s(2),
                                                   .failure_threshold = 4,
                                                   .termination_grace = duration::from_s(60)};
  c.runtime.orphan_rescue = orphan_rescue_config{
      .rescue_after = duration::from_s(600), .interval = duration::from_s(30), .exhausted = exhausted_orphans::retry};
  c.relay_poll_interval = duration::from_ms(250);
  c.runtime.retry = {.initial_interval = duration::from_ms(200),
                     .coefficient_milli = 1500,
                     .maximum_interval = duration::from_s(20),
                     .maximum_attempts = 8,
                     .jitter = jitter_kind::decorrelated};
  c.runtime.retry_budget = retry_budget_config{
      .tokens = 300, .retry_cost = 6, .timeout_cost = 12, .success_refund = 2, .retry_success_refund = 2};
  c.runtime.circuit_breaker = circuit_breaker_config{
      .window = duration::from_s(30), .min_calls = 8, .failure_percent = 75, .open_for = duration::from_s(15)};
  c.runtime.rules = {.key = key_mode::per_attempt,
                     .pass_key_to_vendor = false,
                     .ledger_guard = true,
                     .checkpoint = checkpoint_mode::outbox,
                     .retry = retry_mode::in_slice,
                     .retry_non_retryable = true,
                     .reset_attempts_on_reenqueue = true,
                     .hold_transaction_across_model = true,
                     .claimed_tools = {},
                     .stop_on_lost_lease = false,
                     .fencing = true};
  c.store = {.pool_size = 4,
             .statement_latency = duration::from_ms(5),
             .unique_ledger_key = false,
             .dead_row_cost = duration::from_us(7),
             .transaction_timeout = duration::from_s(60),
             .long_transactions = {{sim::instant::epoch() + duration::from_s(300),
                                    sim::instant::epoch() + duration::from_s(3600), "pg_dump"}}};
  service_tool_config& v = c.payments;
  v.latency = latency_model::uniform(duration::from_ms(100), duration::from_ms(300));
  v.unavailable_ppm = 10'000;
  v.rate_limited_ppm = 2'000;
  v.internal_error_ppm = 1;
  v.lost_request_ppm = 0;
  v.lost_response_ppm = 1'000'000;
  v.retry_after = duration::from_s(2);
  v.client_timeout = duration::from_s(10);
  v.round_trip = duration::from_ms(20);
  v.bad_targets = {"inv_9", "inv_10"};
  v.key_retention = duration::from_s(48 * 3600);
  v.capacity = 5;
  v.pool = {.servers = 4, .queue_timeout = duration::from_ms(500), .order = queue_order::fifo};
  v.outages.push_back({at(duration::from_s(10)), at(duration::from_s(40))});
  v.latency_spikes.push_back({{at(duration::from_s(60)), at(duration::from_s(120))}, duration::from_s(3)});
  c.email.latency = latency_model::lognormal(duration::from_ms(100), duration::from_ms(800));
  c.email.unavailable_ppm = 500'000;
  c.email.client_timeout = duration::from_s(5);
  c.email.round_trip = duration::from_ms(15);
  c.email.outages.push_back({at(duration::zero()), at(duration::from_s(1))});
  c.model.latency = latency_model::fixed(duration::from_s(3));
  c.model.latency_spikes.push_back({{at(duration::from_s(5)), at(duration::from_s(6))}, duration::from_s(10)});
  c.read.latency = latency_model::fixed(duration::from_ms(1));
  c.read.client_timeout = duration::from_s(1);
  c.read.pool = {.servers = 3, .queue_timeout = duration::from_ms(750), .order = queue_order::lifo};
  service_tool_config upload;
  upload.name = "upload";
  upload.effect = tool_effect::write;
  upload.keys = key_handling::dedupe;
  upload.key_retention = duration::from_s(300);
  upload.latency = latency_model::uniform(duration::from_ms(10), duration::from_ms(30));
  upload.unavailable_ppm = 100'000;
  upload.rate_limited_ppm = 200'000;
  upload.internal_error_ppm = 300'000;
  upload.lost_request_ppm = 40'000;
  upload.lost_response_ppm = 50'000;
  upload.retry_after = duration::from_s(2);
  upload.client_timeout = duration::from_s(3);
  upload.round_trip = duration::from_ms(20);
  upload.capacity = 40;
  upload.pool = {.servers = 4, .queue_timeout = duration::from_s(1), .order = queue_order::fifo};
  upload.outages.push_back({at(duration::from_s(2)), at(duration::from_s(3))});
  upload.latency_spikes.push_back({{at(duration::from_s(4)), at(duration::from_s(5))}, duration::from_s(1)});
  service_tool_config charge;  // tools load in name order
  charge.name = "charge";
  charge.effect = tool_effect::write;
  charge.keys = key_handling::stored_response;
  charge.moves_money = true;
  charge.latency = latency_model::lognormal(duration::from_ms(100), duration::from_s(1));
  c.tools.push_back(charge);
  c.tools.push_back(upload);
  job_spec j17 = agent_job("job_17", "inv_17", 1999, true);
  j17.enqueue_at = at(duration::from_s(5));
  c.jobs.push_back(j17);
  c.jobs.push_back(
      {.id = "job_18",
       .steps = {{"read", "doc_1", 0}, {"refund", "inv_18", 250}, {"email", "c_1", 0}, {"email", "c_2", 0}},
       .enqueue_at = {}});
  const job_type newsletter{"newsletter", progress_mode::none, {{"email", "list_{job}", 0, 2}}, "acme"};
  c.jobs.push_back({.id = "job_19",
                    .steps = {{"email", "list_job_19_1", 0, false}, {"email", "list_job_19_2", 0, false}},
                    .type = "newsletter",
                    .tenant = "beta",
                    .enqueue_at = {}});
  c.workload = workload_spec{.count = 3,
                             .start = at(duration::from_s(2)),
                             .interval = duration::from_ms(250),
                             .arrival = arrival_kind::poisson,
                             .amount_lo = 100,
                             .amount_hi = 900,
                             .email_ppm = 250'000,
                             .id_prefix = "w_",
                             .types = {{std::nullopt, 1}, {newsletter, 3}}};
  c.point_faults.push_back({.point = "after_tool",
                            .tool = "refund",
                            .step = 3,
                            .job = "job_17",
                            .attempt = 1u,
                            .worker = "worker/2",
                            .action = point_action::error,
                            .probability_ppm = 500'000,
                            .max_times = 2});
  c.crashes.push_back({at(duration::from_s(30)), 1, false});
  c.deploys.push_back({.at = at(duration::from_s(60)),
                       .sha = "v3",
                       .strategy = deploy_strategy::rolling_kill,
                       .batch_size = 2,
                       .batch_interval = duration::from_s(10),
                       .grace_period = duration::from_s(45),
                       .startup = duration::from_s(5)});
  c.queue_faults.push_back({.what = queue_fault::kind::lose_delete, .job = "job_18", .nth = 2, .probability_ppm = 0});
  c.queue_faults.push_back(
      {.what = queue_fault::kind::duplicate_delivery, .job = "", .nth = 1, .probability_ppm = 1'000});
  return c;
}

}  // namespace

TEST_CASE("a scenario that sets every key loads into the exact world_config", "[scenario]") {
  const scenario s = load_ok(everything);
  CHECK(s.path == "tests/ok.toml");
  CHECK(s.name == "everything");
  CHECK(s.story == "A scenario that sets every key\nto something other than its default.");
  check_same(s.world, everything_config());
  CHECK(s.expect.hold == std::vector<std::string>{"one_ledger_row_per_key", "every_job_ends"});
  CHECK(s.expect.violated == std::vector<std::string>{"no_double_payment"});
  CHECK(s.expect.ledger_rows == 2u);
  CHECK(s.expect.vendor_refunds == 3u);
  CHECK(s.expect.dead_letters == 0u);
  CHECK(s.expect.attempts == 4u);
  CHECK(s.expect.all_jobs_end == false);
}

// The FIFO keys do not combine with everything the scenario above sets
// (strict semantics, the split discipline), so they load here.
TEST_CASE("queue.flavour = \"sqs_fifo\" with its keys, and the group it defaults to", "[scenario][fifo]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  const scenario set = load_ok(
      "[queue]\nflavour = \"sqs_fifo\"\nmessage_group_id = \"tenant\"\n"
      "deduplication = \"per_send\"\n" +
      job);
  world_config expected = defaults_with_jobs_of(set.world);
  expected.queue.fifo = true;
  expected.message_group = message_group_source::tenant;
  expected.deduplication = deduplication_source::per_send;
  check_same(set.world, expected);

  // A producer whose send times out, and a consumer keyed on the messageId.
  const scenario resent = load_ok("[queue]\nflavour = \"sqs_fifo\"\n[discipline]\nwork_id = \"message\"\n" + job +
                                  "[[queue_fault]]\nkind = \"send_timeout\"\njob = \"job_1\"\nresend_after = \"90s\"\n"
                                  "[[queue_fault]]\nkind = \"send_timeout\"\nprobability = 0.25\n");
  CHECK(resent.world.runtime.rules.work_id == work_id_mode::message);
  CHECK(resent.world.counter_lag == duration::zero());  // exact and instant unless asked
  CHECK(load_ok("[trace]\ncounter_lag = \"1m\"\n" + job).world.counter_lag == duration::from_s(60));
  REQUIRE(resent.world.queue_faults.size() == 2);
  CHECK(resent.world.queue_faults[0].what == queue_fault::kind::send_timeout);
  CHECK(resent.world.queue_faults[0].nth == 1);
  CHECK(resent.world.queue_faults[0].resend_after == duration::from_s(90));
  CHECK(resent.world.queue_faults[1].probability_ppm == 250'000);
  CHECK(resent.world.queue_faults[1].resend_after == duration::from_s(60));  // botocore's DEFAULT_TIMEOUT

  const scenario defaults = load_ok("[queue]\nflavour = \"sqs_fifo\"\n" + job);
  CHECK(defaults.world.queue.fifo);
  CHECK(defaults.world.message_group == message_group_source::job);  // SQS refuses a FIFO send without a group
  CHECK(defaults.world.deduplication == deduplication_source::job_id);
  CHECK(defaults.world.queue.fifo_scan_window == fifo_scan_window_sqs);

  const scenario standard = load_ok("[queue]\nflavour = \"sqs\"\nmessage_group_id = \"job\"\n" + job);
  CHECK_FALSE(standard.world.queue.fifo);
  CHECK(standard.world.message_group == message_group_source::job);
}

TEST_CASE("queue.flavour = \"sidekiq\" takes Sidekiq's defaults, and [retry] and [runtime] override them",
          "[scenario][sidekiq]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  const scenario plain = load_ok("[queue]\nflavour = \"sidekiq\"\n" + job);
  world_config expected = defaults_with_jobs_of(plain.world);
  expected.queue.hold_until_ack = true;
  expected.runtime.retry.jitter = jitter_kind::sidekiq;
  expected.runtime.retry.maximum_interval.reset();
  expected.runtime.retry.maximum_attempts = 26;
  expected.runtime.shutdown_timeout = duration::from_s(25);
  expected.runtime.long_poll = duration::from_s(2);                // BasicFetch's BRPOP timeout
  expected.runtime.count_attempts = attempt_counting::at_failure;  // the payload's retry_count
  expected.dead_letter.dead_set = true;                            // 180 days, trimmed at each death
  expected.dead_letter.retention = duration::from_s(180LL * 24 * 3600);
  check_same(plain.world, expected);

  const scenario tuned = load_ok(
      "[queue]\nflavour = \"sidekiq\"\n[retry]\nmaximum_attempts = 4\n[runtime]\n"
      "shutdown_timeout = \"1m\"\n" +
      job);
  CHECK(tuned.world.runtime.retry.maximum_attempts == 4);
  CHECK(tuned.world.runtime.retry.jitter == jitter_kind::sidekiq);
  CHECK(tuned.world.runtime.shutdown_timeout == duration::from_s(60));
  CHECK_FALSE(tuned.world.queue.super_fetch);
  const scenario pro = load_ok("[queue]\nflavour = \"sidekiq\"\n[sidekiq]\nfetch = \"super\"\n" + job);
  CHECK(pro.world.queue.super_fetch);
  CHECK(pro.world.queue.hold_until_ack);
}

TEST_CASE("queue.flavour = \"celery_redis\" takes Celery's defaults, and [celery] tunes its worker",
          "[scenario][celery]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  const scenario plain = load_ok("[queue]\nflavour = \"celery_redis\"\n" + job);
  world_config expected = defaults_with_jobs_of(plain.world);
  expected.queue.redis_ack_emulation = true;
  expected.queue.visibility_timeout = duration::from_s(3600);
  expected.runtime.celery.emplace();
  expected.runtime.retry.initial_interval = duration::from_s(180);
  expected.runtime.retry.coefficient_milli = 1000;
  expected.runtime.retry.maximum_interval = duration::from_s(180);
  expected.runtime.retry.jitter = jitter_kind::none;
  expected.runtime.retry.maximum_attempts = 4;
  expected.dead_letter_queue = false;
  check_same(plain.world, expected);
  CHECK(plain.world.dead_letter_queue == false);

  const scenario tuned = load_ok(
      "[queue]\nflavour = \"celery_redis\"\nvisibility_timeout = \"24h\"\n[celery]\nacks_late = true\n"
      "prefetch_multiplier = 1\nreject_on_worker_lost = true\n[retry]\nmaximum_attempts = 6\n" +
      job);
  CHECK(tuned.world.queue.visibility_timeout == duration::from_s(24 * 3600));  // past SQS's 12 h: kombu takes it
  CHECK(tuned.world.runtime.celery ==
        celery_config{.acks_late = true, .prefetch_multiplier = 1, .reject_on_worker_lost = true});
  CHECK(tuned.world.runtime.retry.maximum_attempts == 6);
}

TEST_CASE("queue.flavour = \"pubsub\" takes Pub/Sub's defaults, and [pubsub] the subscription's settings",
          "[scenario][pubsub]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  const scenario plain = load_ok("[queue]\nflavour = \"pubsub\"\n" + job);
  world_config expected = defaults_with_jobs_of(plain.world);
  expected.queue.pubsub = true;
  expected.queue.visibility_timeout = duration::from_s(10);
  expected.queue.retention = duration::from_s(7 * 24 * 3600);
  expected.runtime.heartbeat_interval = duration::from_s(5);
  expected.runtime.max_lease_duration = duration::from_s(3600);
  // A nack (Message.nack()) waits nothing on the client; no RetryPolicy.
  expected.runtime.retry.initial_interval = duration::zero();
  expected.runtime.retry.coefficient_milli = 1000;
  expected.runtime.retry.maximum_interval = duration::zero();
  expected.runtime.retry.jitter = jitter_kind::none;
  expected.dead_letter_queue = false;
  check_same(plain.world, expected);
  CHECK_FALSE(plain.world.queue.retry_policy.has_value());
  CHECK_FALSE(plain.world.dead_letter_queue);

  const scenario tuned = load_ok(
      "[queue]\nflavour = \"pubsub\"\n[pubsub]\nack_deadline = \"60s\"\nmax_delivery_attempts = 7\n"
      "exactly_once_delivery = true\nmessage_retention = \"744h\"\nmax_lease_duration = \"2h\"\n" +
      job);
  CHECK(tuned.world.queue.visibility_timeout == duration::from_s(60));
  CHECK(tuned.world.queue.max_receive_count == 7);
  CHECK(tuned.world.dead_letter_queue);
  CHECK(tuned.world.queue.semantics == handle_semantics::strict);
  CHECK(tuned.world.queue.retention == duration::from_s(31 * 24 * 3600));
  CHECK(tuned.world.runtime.max_lease_duration == duration::from_s(7200));
  const scenario retrying = load_ok("[queue]\nflavour = \"pubsub\"\n[pubsub]\nmaximum_backoff = \"1m\"\n" + job);
  CHECK(retrying.world.queue.retry_policy == pubsub_retry_policy{duration::from_s(10), duration::from_s(60)});
  const scenario plain_pull = load_ok("[queue]\nflavour = \"pubsub\"\n[pubsub]\nlease_management = false\n" + job);
  CHECK_FALSE(plain_pull.world.runtime.heartbeat_interval.has_value());
  CHECK_FALSE(plain_pull.world.runtime.max_lease_duration.has_value());
}

TEST_CASE("[tools.refund] is [vendor] written in the form of every tool", "[scenario]") {
  std::string as_tool(everything);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"[vendor]", "[tools.refund]"},
                                 {"[[vendor.outage]]", "[[tools.refund.outage]]"},
                                 {"[[vendor.latency_spike]]", "[[tools.refund.latency_spike]]"}}) {
    const std::size_t at = as_tool.find(from);
    REQUIRE(at != std::string::npos);
    as_tool.replace(at, from.size(), to);
  }
  const scenario s = load_ok(as_tool);
  check_same(s.world, everything_config());
  CHECK(s.world.payments.moves_money);
  CHECK(s.world.payments.draws == draw_order::rates_first);
}

TEST_CASE("runtime.uncount_unavailable: never by default, once or twice when set", "[scenario]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  CHECK(load_ok(job).world.runtime.uncount_unavailable == attempt_take_back::never);
  CHECK(load_ok("[runtime]\nuncount_unavailable = \"once\"\n" + job).world.runtime.uncount_unavailable ==
        attempt_take_back::once);
  CHECK(load_ok("[runtime]\nuncount_unavailable = \"twice\"\n" + job).world.runtime.uncount_unavailable ==
        attempt_take_back::twice);
}

TEST_CASE("[tenants] concurrency_limit sets the runtime's limiter, its delay 1 s unless given", "[scenario]") {
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  CHECK_FALSE(load_ok(job).world.runtime.tenant_limit.has_value());
  const auto limit = load_ok("[tenants]\nconcurrency_limit = 5\n" + job).world.runtime.tenant_limit;
  REQUIRE(limit.has_value());
  CHECK(limit->concurrency == 5);
  CHECK(limit->over_limit_delay == sim::duration::from_s(1));
  CHECK(load_ok("[tenants]\nconcurrency_limit = 5\nover_limit_delay = \"250ms\"\n" + job)
            .world.runtime.tenant_limit->over_limit_delay == sim::duration::from_ms(250));
}

TEST_CASE("[tenants] queues = \"one_per_tenant\" gives each tenant a queue, weights 1 unless given", "[scenario]") {
  const std::string jobs =
      "[[job]]\nid = \"a_1\"\nsteps = [{ tool = \"read\", target = \"x\" }]\ntenant = \"acme\"\n"
      "[[job]]\nid = \"b_1\"\nsteps = [{ tool = \"read\", target = \"x\" }]\ntenant = \"beta\"\n";
  CHECK_FALSE(load_ok(jobs).world.tenant_queues.has_value());
  CHECK_FALSE(load_ok("[tenants]\nqueues = \"shared\"\n" + jobs).world.tenant_queues.has_value());
  const auto q = load_ok("[tenants]\nqueues = \"one_per_tenant\"\n" + jobs).world.tenant_queues;
  REQUIRE(q.has_value());
  CHECK(q->weights.empty());
  const auto weighted =
      load_ok("[tenants]\nqueues = \"one_per_tenant\"\nweights = { beta = 6 }\n" + jobs).world.tenant_queues;
  CHECK(weighted->weights == std::map<std::string, std::uint32_t, std::less<>>{{"beta", 6}});
}

TEST_CASE("a scenario of one bare job is the default world_config, named after its file", "[scenario]") {
  const scenario s = load_ok("[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n");
  CHECK(s.name == "ok");
  CHECK(s.story.empty());
  REQUIRE(s.world.jobs.size() == 1);
  CHECK(s.world.jobs[0].id == "job_1");
  check_same(s.world, defaults_with_jobs_of(s.world));
  CHECK(s.expect.hold.empty());
  CHECK(s.expect.violated.empty());
  CHECK_FALSE(s.expect.ledger_rows.has_value());
  CHECK_FALSE(s.expect.vendor_refunds.has_value());
  CHECK_FALSE(s.expect.dead_letters.has_value());
  CHECK_FALSE(s.expect.attempts.has_value());
  CHECK_FALSE(s.expect.all_jobs_end.has_value());
}

TEST_CASE("empty sections keep the defaults the headers document", "[scenario]") {
  const scenario s = load_ok(R"(
[budget]
[trace]
[queue]
[dead_letter_queue]
[workers]
[runtime]
[retry]
[discipline]
[store]
[vendor]
[tools.email]
[tools.model]
[tools.read]
[expect]
)");
  check_same(s.world, defaults_with_jobs_of(s.world));
  // The real systems' numbers, spelled out: a change to a header default
  // is a change to the documented format.
  const world_config& c = s.world;
  CHECK(c.seed == 1);
  CHECK(c.time_limit == duration::from_s(24 * 3600));
  CHECK(c.event_budget == 50'000'000);
  CHECK(c.queue.visibility_timeout == duration::from_s(30));    // SQS
  CHECK(c.queue.retention == duration::from_s(4 * 24 * 3600));  // SQS
  CHECK(c.queue.max_receive_count == 0);
  CHECK(c.dead_letter_queue);
  CHECK(c.dead_letter.name == "jobs-dlq");
  CHECK(c.dead_letter.retention == duration::from_s(14 * 24 * 3600));  // SQS's most, as AWS advises for a DLQ
  CHECK_FALSE(c.dead_letter_redrive.has_value());
  CHECK(c.workers == 2);
  CHECK(c.runtime.long_poll == duration::from_s(20));      // SQS's maximum wait
  CHECK(c.runtime.restart_delay == duration::from_s(10));  // Kubernetes' first back-off
  CHECK_FALSE(c.runtime.liveness_probe.has_value());
  CHECK_FALSE(c.runtime.orphan_rescue.has_value());
  CHECK(c.runtime.count_attempts == attempt_counting::at_start);
  CHECK_FALSE(c.runtime.heartbeat_interval.has_value());
  CHECK(c.runtime.retry.initial_interval == duration::from_s(1));    // Temporal
  CHECK(c.runtime.retry.coefficient_milli == 2000);                  // Temporal
  CHECK(c.runtime.retry.maximum_interval == duration::from_s(100));  // Temporal: 100 x initial
  CHECK(c.runtime.retry.maximum_attempts == 5);
  CHECK(c.runtime.retry.jitter == jitter_kind::full);
  CHECK(c.runtime.rules.key == key_mode::stable);
  CHECK(c.store.pool_size == 10);
  CHECK(c.payments.key_retention == duration::from_s(24 * 3600));  // Stripe
  CHECK(c.payments.client_timeout == duration::from_s(30));
  CHECK(c.payments.latency.describe() == "lognormal(p50=300ms, p99=2s)");
  CHECK(c.email.latency.describe() == "lognormal(p50=150ms, p99=1s)");
  CHECK(c.model.latency.describe() == "lognormal(p50=4s, p99=20s)");
  CHECK(c.read.latency.describe() == "lognormal(p50=5ms, p99=50ms)");
}

TEST_CASE("a deploy, a job and a crash take their documented defaults", "[scenario]") {
  const scenario s = load_ok(R"(
[[job]]
id = "j"
invoice = "inv"
amount_cents = 0

[[deploy]]
at = "1m"

[[crash]]
at = "5s"
worker = 0

[[fault]]
point = "before_ack"
)");
  const world_config& c = s.world;
  REQUIRE(c.jobs.size() == 1);
  CHECK(c.jobs[0].enqueue_at == instant::epoch());
  CHECK(c.jobs[0].steps.size() == 3);  // read, model, refund: no email
  REQUIRE(c.deploys.size() == 1);
  CHECK(c.deploys[0].sha == "v2");
  CHECK(c.deploys[0].strategy == deploy_strategy::drain);
  CHECK(c.deploys[0].batch_size == 1);
  CHECK(c.deploys[0].batch_interval == duration::from_s(5));
  CHECK(c.deploys[0].grace_period == duration::from_s(30));  // terminationGracePeriodSeconds
  CHECK(c.deploys[0].startup == duration::from_s(2));
  REQUIRE(c.crashes.size() == 1);
  CHECK(c.crashes[0].restart);
  REQUIRE(c.point_faults.size() == 1);
  const point_fault& f = c.point_faults[0];
  CHECK(f.tool.empty());
  CHECK(f.step == 0);
  CHECK(f.job.empty());
  CHECK_FALSE(f.attempt.has_value());
  CHECK(f.worker.empty());
  CHECK(f.action == point_action::crash);
  CHECK(f.probability_ppm == 1'000'000);
  CHECK(f.max_times == 0);
}

TEST_CASE("exact ratios: probabilities in millionths, coefficients in thousandths", "[scenario]") {
  SECTION("probabilities as floats, integers and decimal strings") {
    const scenario s = load_ok(R"(
[vendor.error_rates]
unavailable = 0.000001
rate_limited = 1
internal_error = "0.25"
lost_request = 0.1
lost_response = "0.0000010"
)");
    CHECK(s.world.payments.unavailable_ppm == 1);
    CHECK(s.world.payments.rate_limited_ppm == 1'000'000);
    CHECK(s.world.payments.internal_error_ppm == 250'000);
    CHECK(s.world.payments.lost_request_ppm == 100'000);
    CHECK(s.world.payments.lost_response_ppm == 1);
  }
  SECTION("coefficients") {
    CHECK(load_ok("[retry]\ncoefficient = 1.1\n").world.runtime.retry.coefficient_milli == 1100);
    CHECK(load_ok("[retry]\ncoefficient = 3\n").world.runtime.retry.coefficient_milli == 3000);
    CHECK(load_ok("[retry]\ncoefficient = \"2.125\"\n").world.runtime.retry.coefficient_milli == 2125);
    CHECK(load_ok("[retry]\ncoefficient = 1.0\n").world.runtime.retry.coefficient_milli == 1000);
  }
}

TEST_CASE("maximum_interval = \"none\" is a policy without a cap", "[scenario]") {
  const scenario s = load_ok("[retry]\nmaximum_interval = \"none\"\ninitial_interval = \"5m\"\n");
  CHECK_FALSE(s.world.runtime.retry.maximum_interval.has_value());
  CHECK(s.world.runtime.retry.initial_interval == duration::from_s(300));
}

TEST_CASE("[split] names the tool and the split queue's lease and pods", "[scenario]") {
  const scenario plain = load_ok("");
  CHECK(plain.world.runtime.rules.split_tool.empty());
  CHECK(plain.world.split.queue.visibility_timeout == duration::from_s(15 * 60));
  CHECK(plain.world.split.workers == 1);
  const scenario s = load_ok(
      "[split]\ntool = \"model\"\nvisibility_timeout = \"20m\"\nworkers = 3\n"
      "max_receive_count = 4\n");
  CHECK(s.world.runtime.rules.split_tool == "model");
  CHECK(s.world.split.queue.visibility_timeout == duration::from_s(20 * 60));
  CHECK(s.world.split.queue.max_receive_count == 4);
  CHECK(s.world.split.workers == 3);
}

TEST_CASE("a seed may be any 64-bit value", "[scenario]") {
  CHECK(load_ok("seed = 0\n").world.seed == 0);
  CHECK(load_ok("seed = 9223372036854775807\n").world.seed == 9223372036854775807ULL);
  CHECK(load_ok("seed = \"18446744073709551615\"\n").world.seed == 18446744073709551615ULL);
}

TEST_CASE("the story is the leading comment block", "[scenario]") {
  CHECK(load_ok("\n\n#  Two spaces kept after the first.\n#\n# Second paragraph.\n\n# Not the story.\nseed = 3\n")
            .story == " Two spaces kept after the first.\n\nSecond paragraph.");
  CHECK(load_ok("seed = 3\n# A comment after a key is no story.\n").story.empty());
}

TEST_CASE("a generated workload depends on the seed alone", "[scenario]") {
  constexpr std::string_view workload = R"(
[workload]
count = 50
arrival = "poisson"
interval = "200ms"
amount_cents = [100, 5000]
email_probability = 0.5
)";
  const std::string with_seed_7 = "seed = 7\n" + std::string(workload);
  const std::vector<job_spec> a = test_worlds::all_jobs(load_ok(with_seed_7).world);
  const std::vector<job_spec> b = test_worlds::all_jobs(load_ok(with_seed_7).world);
  check_same(a, b);

  // Its own stream: more workers, another vendor latency, the same jobs.
  const std::vector<job_spec> c = test_worlds::all_jobs(
      load_ok(with_seed_7 + "[workers]\ncount = 9\n[vendor]\nlatency = { fixed = \"1s\" }\n").world);
  check_same(a, c);

  const std::vector<job_spec> d = test_worlds::all_jobs(load_ok("seed = 8\n" + std::string(workload)).world);
  REQUIRE(d.size() == 50);
  bool differs = false;
  for (std::size_t i = 0; i < 50; ++i)
    differs = differs || d[i].enqueue_at != a[i].enqueue_at || d[i].steps.size() != a[i].steps.size() ||
              d[i].steps[2].amount_cents != a[i].steps[2].amount_cents;
  CHECK(differs);

  REQUIRE(a.size() == 50);
  bool some_email = false, some_without = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const job_spec& j = a[i];
    CHECK(j.id == "gen_" + std::to_string(i + 1));
    REQUIRE(j.steps.size() >= 3);
    CHECK(j.steps[2].target == "inv_" + j.id);
    CHECK(j.steps[2].amount_cents >= 100);
    CHECK(j.steps[2].amount_cents <= 5000);
    if (i > 0) CHECK(j.enqueue_at >= a[i - 1].enqueue_at);
    (j.steps.size() == 4 ? some_email : some_without) = true;
  }
  CHECK(some_email);
  CHECK(some_without);
}

TEST_CASE("a workload is a spec, not a million jobs: nothing is generated at load", "[scenario]") {
  const scenario s = load_ok(
      "[[job]]\nid = \"job_17\"\ninvoice = \"inv_17\"\namount_cents = 1999\n"
      "[workload]\ncount = 999999\nrate = 25\narrival = \"poisson\"\namount_cents = [100, 500]\n");
  CHECK(s.world.jobs.size() == 1);  // the [[job]] alone
  REQUIRE(s.world.workload.has_value());
  CHECK(s.world.workload->count == 999'999);
  CHECK(job_count(s.world) == 1'000'000);  // the most a scenario may have
  // The jobs exist when walked, in order.
  std::size_t walked = 0;
  std::string tenth;
  for_each_job(s.world, [&](const job_spec& j) {
    if (++walked == 11) tenth = j.id;
  });
  CHECK(walked == 1'000'000);
  CHECK(tenth == "gen_10");
}

TEST_CASE("even arrivals are exact; generated jobs follow the [[job]] tables", "[scenario]") {
  const scenario s = load_ok(R"(
[[job]]
id = "job_17"
invoice = "inv_17"
amount_cents = 1999

[workload]
count = 3
start = "10s"
rate = 4
amount_cents = 700
id_prefix = "w"
)");
  const std::vector<job_spec> jobs = test_worlds::all_jobs(s.world);
  REQUIRE(jobs.size() == 4);
  CHECK(jobs[0].id == "job_17");
  CHECK(jobs[1].id == "w1");
  CHECK(jobs[3].id == "w3");
  CHECK(jobs[1].enqueue_at == at(duration::from_s(10)));
  CHECK(jobs[2].enqueue_at == at(duration::from_ms(10'250)));
  CHECK(jobs[3].enqueue_at == at(duration::from_ms(10'500)));
  CHECK(jobs[2].steps[2].amount_cents == 700);
  CHECK(jobs[2].steps.size() == 3);
}

TEST_CASE("faults may refer to generated jobs", "[scenario]") {
  const scenario s =
      load_ok("[workload]\ncount = 2\namount_cents = 5\n[[fault]]\npoint = \"before_ack\"\njob = \"gen_2\"\n");
  REQUIRE(s.world.point_faults.size() == 1);
  CHECK(s.world.point_faults[0].job == "gen_2");
}

TEST_CASE("the catalogue's incident files are the C++ incident, setting for setting", "[scenario]") {
  // `twice incident` and `twice run scenarios/double_refund.toml` tell one
  // story: the same world, the same digest (the README's).
  for (const bool fixed : {false, true}) {
    const std::string path = catalogue_file(fixed ? "double_refund_fixed.toml" : "double_refund.toml");
    INFO(path);
    load_result r = load_scenario_file(path);
    for (const scenario_error& e : r.errors) INFO(e.to_string());
    REQUIRE(r.ok());
    const scenario& s = *r.value;
    CHECK(s.name == (fixed ? "double_refund_fixed" : "double_refund"));
    CHECK(s.story.starts_with(fixed ? "The double refund, fixed." : "The double refund, as it happened."));
    check_same(s.world, double_refund_config(fixed));

    world from_file(s.world);
    world from_code(double_refund_config(fixed));
    const world_result a = from_file.run();
    const world_result b = from_code.run();
    CHECK(a.trace_digest == b.trace_digest);
    CHECK(a.events == b.events);
    CHECK(sim::format_digest(b.trace_digest) == (fixed ? "828190524c0755b5" : "edff91e1dfb26e4f"));
  }
}

TEST_CASE("the incident and its rolling-deploy fix differ only in the key", "[scenario]") {
  load_result incident = load_scenario_file(catalogue_file("double_refund.toml"));
  load_result fix = load_scenario_file(catalogue_file("double_refund_rolling_deploy_fixed.toml"));
  REQUIRE(incident.ok());
  REQUIRE(fix.ok());
  CHECK(incident.value->world.runtime.rules.key == key_mode::none);
  CHECK(fix.value->world.runtime.rules.key == key_mode::stable);
  world_config keyed = incident.value->world;
  keyed.runtime.rules.key = key_mode::stable;
  check_same(keyed, fix.value->world);
}

TEST_CASE("the incident files' expectations are what a run shows", "[scenario]") {
  for (const char* name :
       {"double_refund.toml", "double_refund_fixed.toml", "double_refund_rolling_deploy_fixed.toml"}) {
    INFO(name);
    load_result r = load_scenario_file(catalogue_file(name));
    REQUIRE(r.ok());
    const expectations& e = r.value->expect;
    world w(r.value->world);
    const checked_result checked = run_with_checkers(w);
    const world_result& result = checked.result;
    for (const verdict& v : checked.verdicts) {
      INFO(v.name << ": " << v.detail);
      // Every invariant holds except those the file expects violated.
      CHECK(v.held == !e.expects_violated(v.name));
    }
    CHECK(e.violated.size() == (std::string_view(name) == "double_refund.toml" ? 2u : 0u));
    if (e.vendor_refunds) CHECK(w.payments().ledger().size() == *e.vendor_refunds);
    if (e.ledger_rows) CHECK(w.db().ledger().size() == *e.ledger_rows);
    if (e.all_jobs_end) CHECK(result.all_jobs_ended == *e.all_jobs_end);
    if (e.attempts) {
      std::uint64_t attempts = 0;
      for (const sim::trace_record& rec : w.events().records()) attempts += rec.kind == "attempt_start";
      CHECK(attempts == *e.attempts);
    }
  }
}

TEST_CASE("the scenario's invariant names are the registry's built-in ones, in report order", "[scenario]") {
  namespace inv = invariant_name;
  const std::vector<std::string_view> report_order = {
      inv::one_ledger_row_per_key,
      inv::no_double_payment,
      inv::ledgers_agree,
      inv::every_job_ends,
      inv::no_message_lost,
      inv::backlog_within_bound,
      inv::backoff_within_cap,
      inv::no_retry_of_non_retryable,
      inv::attempts_monotonic,
      inv::attempts_within_limit,
      inv::leases_exclusive_or_absorbed,
      inv::drain_kills_nothing,
      inv::database_not_stalled,
      inv::done_jobs_paid_in_full,
      inv::one_effect_per_step,
      inv::done_jobs_had_effects,
      inv::no_tenant_starved,
  };
  CHECK(invariant_names() == report_order);
  for (const std::string_view name : report_order) CHECK(registry::is_builtin_invariant(name));
  CHECK_FALSE(registry::is_builtin_invariant("no_points_twice"));
}
