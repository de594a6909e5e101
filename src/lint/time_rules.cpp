#include "lint/rules.hpp"

// Time: leases against the work, heartbeats, probes, drains and timeouts.

namespace twice::lint_rules_detail {

namespace {
// The longest the loader takes for a deploy's grace period, a runtime's
// shutdown timeout, an orphan rescue's rescue_after and a Pub/Sub client's
// max_lease_duration (src/scenario/load_*.cpp).
constexpr sim::duration day = sim::duration::from_s(24 * 3600);
}  // namespace

void visibility_below_tool_p99(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.heartbeat_interval) return;
  if (config.queue.hold_until_ack) return;  // Sidekiq: no lease to run out
  if (config.runtime.kafka) return;         // Kafka: no lease per record (kafka_batch_beyond_poll_interval)
  // Celery acks on receipt unless acks_late: a running task's message is gone.
  if (config.runtime.celery && !config.runtime.celery->acks_late) return;
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
  const std::string latency = p99 <= worst->client_timeout
                                  ? fmt::format("p99 latency {} ({})", text(p99), worst->latency->describe())
                                  : fmt::format("client timeout {} (its latency {} has p99 {})",
                                                text(worst->client_timeout), worst->latency->describe(), text(p99));
  const bool split = worst->step_name == config.runtime.rules.split_tool;
  const bool read_only = !worst->writes;
  const sim::duration lease = lease_of(worst->step_name);
  const std::string_view setting = split ? std::string_view("split.visibility_timeout") : visibility_setting(config);
  // A raise the broker allows (SQS: 12h, Celery's Redis transport: the
  // loader's 30 days, Pub/Sub: 600s), if any fits the call.
  const sim::duration most = config.runtime.celery ? max_redis_visibility_timeout
                             : config.queue.pubsub ? max_ack_deadline
                                                   : max_visibility_timeout;
  const sim::duration raised = std::min(worst_hold * 2, most);
  const bool can_raise = worst_hold < raised;
  const sim::duration beat = third_of(lease);
  std::vector<lint_advice> advice;
  std::string fix;
  if (config.queue.pubsub) {
    fix = fmt::format(
        "Read with the client library's streaming pull, whose lease management extends every message it "
        "holds (pubsub.lease_management = true, the default), or send a modifyAckDeadline through the "
        "call yourself; {} stops at 600s.",
        setting);
    advice.push_back(advise("pubsub.lease_management", toml_bool(true)));
  } else if (split || config.runtime.celery) {
    fix = can_raise ? fmt::format("Raise {} well above {} (e.g. {}): {}", setting, text(worst_hold), text(raised),
                                  split ? "the split queue exists to give this call a lease that fits it."
                                        : "Celery's Redis transport cannot extend it while a task runs.")
                    : fmt::format("The call can outlast the longest {} allows ({}): {}", setting, text(most),
                                  split ? "shorten the call (its client timeout) so it fits the split queue's lease."
                                        : "Celery's Redis transport cannot extend it while a task runs; shorten the "
                                          "call (its client timeout).");
    if (can_raise) advice.push_back(advise(std::string(setting), toml_duration(raised)));
  } else {
    // A heartbeat a third of the lease; a lease under 3 ms has none to offer.
    std::vector<std::string> ways;
    if (beat > sim::duration::zero()) {
      ways.push_back(
          fmt::format("set runtime.heartbeat_interval (at most a third of the lease, e.g. {}) so the worker "
                      "extends its lease while the call runs",
                      text(beat)));
      advice.push_back(advise(std::string(key::heartbeat), toml_duration(beat)));
    }
    if (can_raise) {
      ways.push_back(fmt::format("raise {} well above {} (e.g. {})", setting, text(worst_hold), text(raised)));
      advice.push_back(advise(std::string(setting), toml_duration(raised)));
    }
    fix = ways.empty() ? std::string("Shorten the call (its client timeout) below the lease")
                       : capitalized(ways[0]) + (ways.size() > 1 ? ", or " + ways[1] : std::string());
    if (read_only && config.queue.fifo == false) {
      fix += fmt::format(
          "; if the worker cannot heartbeat through the call, make the step a job of its own ([split] "
          "tool = \"{}\", with a visibility timeout that fits it)",
          worst->step_name);
      advice.push_back(advise("split.tool", toml_word(worst->step_name)));
    }
    fix += ".";
  }
  out.push_back({"visibility_below_tool_p99", std::string(setting),
                 fmt::format("{} {} is below the {} tool's {}, which {} waits on, and no heartbeat extends it: "
                             "a second worker receives the message while the first still runs, and both run the slice.",
                             lease_word(config), text(lease), worst->step_name, latency, where(*worst_use)),
                 std::move(fix), std::move(advice)});
}

void heartbeat_too_slow(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.heartbeat_interval) return;
  const sim::duration beat = *config.runtime.heartbeat_interval;
  const sim::duration lease = visibility(config);
  if (!(beat * 2 > lease)) return;
  std::string why;
  if (beat >= lease) {
    why = fmt::format(
        "heartbeat every {} against {} {} of {}: the lease expires before the first heartbeat, so "
        "a second worker receives the message while the first still runs.",
        text(beat), config.queue.pubsub ? "an" : "a", lease_word(config), text(lease));
  } else {
    why = fmt::format(
        "heartbeat every {} against {} {} of {}: one lost or late heartbeat loses the lease (the "
        "next one comes {} after the last extension), and a second worker receives the message while "
        "the first still runs.",
        text(beat), config.queue.pubsub ? "an" : "a", lease_word(config), text(lease), text(beat * 2));
  }
  // A third of a lease under 3 ms is no heartbeat at all: raise the lease.
  const sim::duration third = third_of(lease);
  if (third > sim::duration::zero()) {
    out.push_back({"heartbeat_too_slow",
                   std::string(key::heartbeat),
                   std::move(why),
                   fmt::format("Set runtime.heartbeat_interval to at most a third of the {} (e.g. {}), so a "
                               "heartbeat can be lost and the next still lands before the lease expires.",
                               lease_word(config), text(third)),
                   {advise(std::string(key::heartbeat), toml_duration(third))}});
    return;
  }
  const sim::duration raised = std::min(beat * 3, max_visibility_timeout);
  out.push_back({"heartbeat_too_slow",
                 std::string(visibility_setting(config)),
                 std::move(why),
                 fmt::format("Raise {} to at least three heartbeats (e.g. {}), so a heartbeat can be lost and the "
                             "next still lands before the lease expires.",
                             visibility_setting(config), text(raised)),
                 {advise(std::string(visibility_setting(config)), toml_duration(raised))}});
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
  out.push_back({"transaction_across_model",
                 std::string(key::hold_transaction),
                 std::move(why),
                 "Set discipline.hold_transaction_across_model = false: commit before the model call and open a new "
                 "transaction for its result.",
                 {advise(std::string(key::hold_transaction), toml_bool(false))}});
}

void rolling_kill_without_drain(const world_config& config, std::vector<lint_warning>& out) {
  for (std::size_t i = 0; i < config.deploys.size(); ++i) {
    const deploy_spec& d = config.deploys[i];
    if (d.strategy != deploy_strategy::rolling_kill) continue;
    // What a kill interrupts: the story's first write, in its own words.
    const std::string effect = first_effect(config);
    const std::string mid_step =
        effect.empty() ? std::string("mid-step, before the ack") : "mid-step (after " + effect + ", before the ack)";
    out.push_back(
        {"rolling_kill_without_drain",
         key::deploy_strategy(i),
         fmt::format("the deploy to {} at {} kills {} {} every {} without draining: in-flight slices "
                     "die {}, and {}{}.",
                     d.sha, text(d.at - sim::instant::epoch()), d.batch_size, d.batch_size == 1 ? "pod" : "pods",
                     text(d.batch_interval), mid_step, after_death(config),
                     death_redelivers(config) ? "; the retries arrive together" : ": its work is never done"),
         fmt::format("Set deploy[{}].strategy = \"drain\": stop {} on the old version, let in-flight "
                     "slices finish within the grace period ({}), then terminate.",
                     i, config.runtime.kafka ? "polling" : "fetching", text(d.grace_period)),
         {advise(key::deploy_strategy(i), toml_word("drain"))}});
  }
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
                     t.writes ? ", whose effect may land with nobody left to record it" : ""),
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
  const auto [longest_job, longest] = longest_slice_of(config);
  if (longest_job.empty()) return;
  for (std::size_t i = 0; i < config.deploys.size(); ++i) {
    const deploy_spec& d = config.deploys[i];
    if (d.strategy != deploy_strategy::drain) continue;
    // A runtime that gives up sooner (Sidekiq's -t) pushes its slices back
    // then, and the next pod runs them again from their last record.
    const std::optional<sim::duration> own = config.runtime.shutdown_timeout;
    if (own && *own < d.grace_period) {
      if (!(*own < longest)) continue;
      out.push_back(
          {"drain_grace_below_work", "runtime.shutdown_timeout",
           fmt::format("after SIGTERM the runtime waits {} for its slices (Sidekiq's -t), but a slice of {} "
                       "can take {} (its calls' p99 latencies, each bounded by its client timeout): when a "
                       "deploy to {} starts early in such a slice, the runtime pushes its job back to the "
                       "queue and exits, and the next pod runs it again from its last record while the "
                       "first run's effects stand.",
                       text(*own), longest_job, text(longest), d.sha),
           fmt::format("Set runtime.shutdown_timeout above the longest slice ({}), and deploy[{}].grace_period "
                       "(Kubernetes' terminationGracePeriodSeconds) a few seconds above that, as Sidekiq's "
                       "wiki advises (e.g. {} and {}); or split the long step into a job of its own.",
                       text(longest), i, text(std::min(longest * 2, day - sim::duration::from_s(5))),
                       text(std::min(longest * 2 + sim::duration::from_s(5), day))),
           longest * 2 + sim::duration::from_s(5) <= day
               ? std::vector<lint_advice>{advise({{"runtime.shutdown_timeout", toml_duration(longest * 2)},
                                                  {fmt::format("deploy[{}].grace_period", i),
                                                   toml_duration(longest * 2 + sim::duration::from_s(5))}})}
               : std::vector<lint_advice>{}});
      return;
    }
    if (!(d.grace_period < longest)) continue;
    out.push_back({"drain_grace_below_work", fmt::format("deploy[{}].grace_period", i),
                   fmt::format("the deploy to {} drains with a grace period of {}, but a slice of {} can take {} "
                               "(its calls' p99 latencies, each bounded by its client timeout): a drain that starts "
                               "early in such a slice kills it when the grace period ends, mid-step.",
                               d.sha, text(d.grace_period), longest_job, text(longest)),
                   fmt::format("Set deploy[{}].grace_period above the longest slice ({}, e.g. {}), as Kubernetes' "
                               "terminationGracePeriodSeconds must be; or split the long step into a job of its own.",
                               i, text(longest), text(std::min(longest * 2, day))),
                   longest < day ? std::vector<lint_advice>{advise(fmt::format("deploy[{}].grace_period", i),
                                                                   toml_duration(std::min(longest * 2, day)))}
                                 : std::vector<lint_advice>{}});
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
    const std::string setting = t.step_name == tool_name::refund
                                    ? "vendor.client_timeout"
                                    : "tools." + std::string(t.step_name) + ".client_timeout";
    out.push_back(
        {"client_timeout_below_p99", setting,
         fmt::format("{} calls the {} tool with a client timeout of {}, below its p99 latency {} ({}): more "
                     "than one call in a hundred is abandoned while the far side goes on, does the work and "
                     "may commit it, and the retry asks for it again.",
                     where(*use), t.step_name, text(t.client_timeout), text(p99), t.latency->describe()),
         fmt::format("Wait at least the p99 ({} = \"{}\": a timeout is for a far side that is down, not one "
                     "that is slow), and give the write a key so an abandoned call's retry is a replay.",
                     setting, text(p99)),
         p99 <= day ? std::vector<lint_advice>{advise(setting, toml_duration(p99))} : std::vector<lint_advice>{}});
    return;  // one warning, for the first such tool
  }
}

// An orphan rescue takes a row running longer than rescue_after for the row
// of a dead worker; it cannot tell a slow slice from an orphan (Oban's docs:
// "may transition jobs that are genuinely executing and cause duplicate
// execution"). A slice that can run longer is rescued while it runs, and its
// job runs twice at once: hexpm/hexpm#1825, a nightly task of 9 to 47
// minutes under a rescue_after of 6, run two or three times a night.
void orphan_rescue_before_work_ends(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.orphan_rescue) return;
  const sim::duration after = config.runtime.orphan_rescue->rescue_after;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty() || !(after < longest)) return;
  out.push_back({"orphan_rescue_before_work_ends", "runtime.orphan_rescue.rescue_after",
                 fmt::format("the orphan rescue re-queues a job whose row has said running for {}, but a slice of {} "
                             "can take {} (its calls' p99 latencies, each bounded by its client timeout): the rescue "
                             "takes the slow slice for an orphan, sends its job again, and a second worker runs it "
                             "while the first still does.",
                             text(after), job, text(longest)),
                 fmt::format("Set runtime.orphan_rescue.rescue_after well above the longest slice ({}{}), as Oban "
                             "advises above the longest job's timeout; and give every write a key, so the job a rescue "
                             "runs twice replays instead of acting twice.",
                             text(longest), longest * 2 <= day ? ", e.g. " + text(longest * 2) : std::string()),
                 longest * 2 <= day ? std::vector<lint_advice>{advise("runtime.orphan_rescue.rescue_after",
                                                                      toml_duration(longest * 2))}
                                    : std::vector<lint_advice>{}});
}

// A job table on Postgres (store.dead_row_cost: its MVCC modelled) with no
// transaction_timeout: any session that leaves a transaction open (a
// report, a pg_dump, a client idle in transaction) keeps every row version
// that dies meanwhile, and every fetch of a job walks them: the queue backs
// up for as long as the transaction lasts (store/mvcc_horizon.hpp).
void job_table_without_transaction_timeout(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.store.dead_row_cost || config.store.transaction_timeout) return;
  out.push_back(
      {"job_table_without_transaction_timeout",
       "store.transaction_timeout",
       fmt::format("the job table lives in Postgres (dead_row_cost {}) and nothing bounds how long a "
                   "transaction may stay open: one session's report, pg_dump or idle transaction keeps "
                   "every row version that dies meanwhile, and each job fetch walks them all (an hour "
                   "at 250 dead versions a second: {} a fetch).",
                   text(*config.store.dead_row_cost),
                   text(sim::duration::from_us(config.store.dead_row_cost->us() * 250 * 3600))),
       "Set store.transaction_timeout (Postgres 17's transaction_timeout; idle_in_transaction_session_timeout "
       "before it) to a minute or so on the queue's database (e.g. 1m), and run long reports on a replica.",
       {advise("store.transaction_timeout", toml_duration(sim::duration::from_s(60)))}});
}

// A runtime that stops extending a lease after a while (a Pub/Sub client's
// max_lease_duration) and a slice that can run longer: the message is
// redelivered while the slice still runs.
void max_lease_below_work(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.max_lease_duration || !config.runtime.heartbeat_interval) return;
  const sim::duration limit = *config.runtime.max_lease_duration;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty() || !(limit < longest)) return;
  out.push_back(
      {"max_lease_below_work", "pubsub.max_lease_duration",
       fmt::format("the client extends a message's ack deadline for at most {} (max_lease_duration), but "
                   "a slice of {} can take {} (its calls' p99 latencies, each bounded by its client "
                   "timeout): past it the client drops the message from lease management, the deadline "
                   "runs out and Pub/Sub redelivers it to a second worker while the first still runs.",
                   text(limit), job, text(longest)),
       fmt::format("{}split the slow step into a job of its own; and give every write a key, so a "
                   "redelivery replays instead of acting twice.",
                   longest * 2 <= day
                       ? "Raise pubsub.max_lease_duration above the longest slice (e.g. " + text(longest * 2) + "), or "
                       : std::string("The slice outlasts the longest max_lease_duration the "
                                     "client takes (24h): ")),
       longest * 2 <= day ? std::vector<lint_advice>{advise("pubsub.max_lease_duration", toml_duration(longest * 2))}
                          : std::vector<lint_advice>{}});
}

// Kafka: one poll's batch can take longer than max.poll.interval.ms. The
// member's poll timeout expires mid-batch, it leaves the group, and the
// member that takes its partitions reads from the last committed offset:
// the rest of the batch runs twice, some of it at the same time
// (runtime/kafka_consumer.cpp). A story of loaded jobs cannot fill a batch
// beyond its jobs.
void kafka_batch_beyond_poll_interval(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.kafka) return;
  const kafka_config& k = *config.runtime.kafka;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty()) return;
  std::uint64_t batch = k.max_poll_records;
  if (!config.workload) batch = std::min<std::uint64_t>(batch, config.jobs.size());
  const sim::duration work = longest * static_cast<std::int64_t>(batch);
  if (!(k.group.max_poll_interval < work)) return;
  const std::int64_t fits =
      std::max<std::int64_t>(1, k.group.max_poll_interval.us() / 2 / std::max<std::int64_t>(1, longest.us()));
  out.push_back(
      {"kafka_batch_beyond_poll_interval",
       "kafka.max_poll_records",
       fmt::format("one poll can hand a consumer {} record{} (max.poll.records {}), and a record of {} can take {} "
                   "(its calls' p99 latencies, each bounded by its client timeout): {} between two polls, above "
                   "max.poll.interval.ms ({}). The consumer's poll timeout expires mid-batch, it leaves the group, "
                   "and the member that takes its partitions starts again from the last committed offset while the "
                   "first still runs the rest of the batch: those records run twice.",
                   batch, batch == 1 ? "" : "s", k.max_poll_records, job, text(longest), text(work),
                   text(k.group.max_poll_interval)),
       fmt::format("Lower kafka.max_poll_records so a batch fits well inside kafka.max_poll_interval (e.g. {}), or "
                   "raise kafka.max_poll_interval above the batch, as Kafka's documentation advises; and give every "
                   "write a key, so a record read again replays instead of acting twice.",
                   fits),
       {advise("kafka.max_poll_records", toml_int(static_cast<std::uint64_t>(fits)))}});
}

// Kafka with a rebalance timeout of the client's own (Sarama's, kafkajs's)
// shorter than one poll's batch: a member rejoins only from its next poll,
// so a rebalance that begins mid-batch waits for it with every partition
// revoked (the eager protocol), then removes it at the timeout, and the
// partition's next owner re-reads from the last commit what the removed
// member still runs (broker/consumer_group.hpp). With the Java client the
// timeout is max.poll.interval.ms: kafka_batch_beyond_poll_interval's case.
void kafka_batch_beyond_rebalance_timeout(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.kafka || !config.runtime.kafka->group.rebalance_timeout) return;
  const kafka_config& k = *config.runtime.kafka;
  const sim::duration timeout = *k.group.rebalance_timeout;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty()) return;
  std::uint64_t batch = k.max_poll_records;
  if (!config.workload) batch = std::min<std::uint64_t>(batch, config.jobs.size());
  const sim::duration work = longest * static_cast<std::int64_t>(batch);
  if (!(timeout < work)) return;
  const bool can_raise = work * 2 <= day;
  out.push_back(
      {"kafka_batch_beyond_rebalance_timeout", "kafka.rebalance_timeout",
       fmt::format("a rebalance waits at most {} (the rebalance timeout) for every member to rejoin, but a member "
                   "rejoins only from its next poll, and one poll's {} record{} (max.poll.records {}) of up to {} "
                   "each ({}: its calls' p99 latencies, each bounded by its client timeout) can take {}. A "
                   "rebalance that begins mid-batch holds every partition of the group revoked until the timeout, "
                   "then removes the busy member, and the partition's next owner re-reads from the last commit the "
                   "records it still runs: they run twice.",
                   text(timeout), batch, batch == 1 ? "" : "s", k.max_poll_records, text(longest), job, text(work)),
       fmt::format("{}give every write a key, so a record read again replays instead of acting twice.",
                   can_raise ? "Raise kafka.rebalance_timeout above one poll's batch (e.g. " + text(work * 2) +
                                   "; the Java client sends max.poll.interval.ms), or lower kafka.max_poll_records; "
                             : std::string("Lower kafka.max_poll_records or shorten the records; ")),
       can_raise ? std::vector<lint_advice>{advise("kafka.rebalance_timeout", toml_duration(work * 2))}
                 : std::vector<lint_advice>{}});
}

// Kafka on librdkafka with enable.auto.offset.store (its default): the
// offset past a record is stored as poll hands it over and a background
// thread commits it every auto.commit.interval.ms, so a record whose
// handler runs when the timer fires is committed before it ran; a crash
// then loses it (runtime_config.hpp, confluentinc/librdkafka
// CONFIGURATION.md). The window is open for every record: the longer its
// handler, the likelier the commit falls in it.
void kafka_offset_stored_before_processing(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.kafka) return;
  const kafka_config& k = *config.runtime.kafka;
  if (k.client != kafka_client::librdkafka || !k.enable_auto_commit || !k.enable_auto_offset_store) return;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty()) return;
  out.push_back(
      {"kafka_offset_stored_before_processing",
       "kafka.enable_auto_offset_store",
       fmt::format("librdkafka stores the offset past a record as poll hands it over (enable.auto.offset.store, on by "
                   "default), and its background thread commits the stored offsets every {} whatever the handler "
                   "is doing. A record of up to {} ({}: its calls' p99 latencies) is committed while it still runs "
                   "whenever the timer fires in it; a crash, an OOM kill or a deploy then loses it: the group "
                   "starts past it and nothing runs it again.",
                   text(k.auto_commit_interval), text(longest), job),
       "Set kafka.enable_auto_offset_store = false and store each record's offset after it ran (store_offsets, "
       "StoreOffset), as librdkafka's CONFIGURATION.md recommends for long handlers.",
       {advise("kafka.enable_auto_offset_store", "false")}});
}

// Kafka with auto.offset.reset = latest (its default): a partition the
// group has never committed starts at its end when first assigned, so a job
// sent before the group's first assignment is never read. The first
// assignment comes group.initial.rebalance.delay.ms after the first join at
// the earliest, and one delay later when a second member joins within it
// (broker/consumer_group.hpp).
void kafka_offset_reset_latest(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.kafka || config.runtime.kafka->reset_to_earliest) return;
  const sim::duration delay = config.runtime.kafka->group.initial_rebalance_delay;
  const sim::instant assigned = sim::instant::epoch() + (config.workers > 1 ? delay * 2 : delay);
  std::optional<sim::instant> first;
  std::string job;
  for (const job_spec& j : config.jobs)
    if (!first || j.enqueue_at < *first) {
      first = j.enqueue_at;
      job = j.id;
    }
  if (config.workload && config.workload->count > 0 && (!first || config.workload->start < *first)) {
    first = config.workload->start;
    job = "the workload's first job";
  }
  if (!first || assigned <= *first) return;
  out.push_back(
      {"kafka_offset_reset_latest",
       "kafka.auto_offset_reset",
       fmt::format("auto.offset.reset is \"latest\" (Kafka's default) and {} is sent at {}, before the group's first "
                   "assignment (at {} at the earliest: group.initial.rebalance.delay.ms after the workers join): a "
                   "partition with no committed offset starts at its end, so every record sent before then is "
                   "skipped and its job never runs.",
                   job, text(*first - sim::instant::epoch()), text(assigned - sim::instant::epoch())),
       "Set kafka.auto_offset_reset = \"earliest\" for a group that must read what was sent before it first "
       "started (a job queue always must); \"latest\" suits a group that only cares about what comes next.",
       {advise("kafka.auto_offset_reset", toml_word("earliest"))}});
}

// Celery on Redis: a retry's countdown (or any ETA) longer than the
// transport's visibility timeout. The worker holding the ETA task keeps it
// unacked, the timeout restores it, and another worker takes it and holds it
// for the same ETA: at the ETA, both run it (broker/queue.hpp, "Redis ack
// emulation"; runtime/celery_consumer.cpp).
void celery_eta_beyond_visibility(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.celery) return;
  const retry_policy& retry = config.runtime.retry;
  if (retry.maximum_attempts == 1) return;  // nothing is retried
  // The longest countdown a retry can draw: the envelope of the last retry
  // (a decorrelated draw may reach the cap whatever the retry).
  const sim::duration longest = retry.maximum_attempts == 0 || retry.jitter == jitter_kind::decorrelated
                                    ? effective_cap(retry)
                                    : backoff_envelope(retry, retry.maximum_attempts - 2);
  const sim::duration lease = config.queue.visibility_timeout;
  if (longest < lease) return;
  // Twice the countdown, within the loader's 30 days; or the countdowns
  // bounded below the timeout (a cap a little under it).
  const sim::duration raised = std::min(longest * 2, max_redis_visibility_timeout);
  std::vector<lint_advice> advice;
  if (longest < raised) advice.push_back(advise(std::string(key::queue_visibility), toml_duration(raised)));
  // A cap under the timeout; with the base above it, the base too (the
  // loader takes no cap below the base).
  const sim::duration cap = std::max(lease - sim::duration::from_s(1), sim::duration::zero());
  if (lease > sim::duration::from_s(1)) {
    std::vector<advised_value> bounded{{std::string(key::maximum_interval), toml_duration(cap)}};
    if (cap < retry.initial_interval) bounded.push_back({"retry.initial_interval", toml_duration(cap)});
    advice.push_back(advise(std::move(bounded)));
  }
  out.push_back(
      {"celery_eta_beyond_visibility", std::string(key::queue_visibility),
       fmt::format("A retry's countdown reaches {}, and the Redis transport's visibility timeout is {}: the worker "
                   "that takes the retry holds it unacked until its ETA, the timeout restores it to the queue, and "
                   "another worker takes it and holds it for the same ETA. At the ETA both run the task, and one "
                   "more worker for each further {} the ETA lies ahead.",
                   text(longest), text(lease), text(lease)),
       fmt::format("{}keep countdowns below {} (retry.maximum_interval, e.g. {}{}); and give every write a key, so "
                   "a second run replays instead of paying again.",
                   longest < max_redis_visibility_timeout
                       ? "Raise queue.visibility_timeout above the longest ETA or countdown the tasks use (e.g. " +
                             text(raised) + "), as Celery's docs ask, or "
                       : std::string("No visibility timeout the loader takes (30 days at most) outlasts the longest "
                                     "countdown: "),
                   text(lease), text(cap), cap < retry.initial_interval ? ", with retry.initial_interval as low" : ""),
       advice});
}

}  // namespace twice::lint_rules_detail

namespace twice::lint_rules_detail {

namespace {
// "At least several seconds shorter than your retry_after" (Laravel's docs,
// "Job Expirations and Timeouts"): the margin this rule asks for.
constexpr sim::duration timeout_margin = sim::duration::from_s(5);

// What the flavour does at runtime.execution_timeout (runtime/execution_timeout.hpp).
std::string_view timeout_kill_words(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      return "kills the worker process (Laravel's pcntl_alarm, a Lambda timeout)";
    case broker_kind::celery:
      return "kills the pool process and fails the task (Celery's time_limit, TimeLimitExceeded)";
    default:
      return "raises inside the handler (an application timeout), a failure retried like any other";
  }
}
}  // namespace

// A per-attempt execution timeout shorter than the work it limits: a slice
// that takes its calls' p99 is cut off at the limit after its earlier
// steps' effects, and the run that follows does them again.
void execution_timeout_below_work(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.execution_timeout) return;
  const sim::duration limit = *config.runtime.execution_timeout;
  const auto [job, longest] = longest_slice_of(config);
  if (job.empty() || !(limit < longest)) return;
  const std::string effect = first_effect(config);
  // Above the slice, and where a lease runs out, several seconds below it if it fits.
  const bool leased = !lease_word(config).empty() && death_redelivers(config) && !config.runtime.heartbeat_interval;
  const sim::duration below_lease = visibility(config) - timeout_margin;
  const sim::duration advised = leased && longest < below_lease ? below_lease : std::min(longest * 2, day);
  out.push_back(
      {"execution_timeout_below_work", "runtime.execution_timeout",
       fmt::format("the runtime {} after {}, but a slice of {} can take {} (its calls' p99 latencies, each "
                   "bounded by its client timeout): such a slice is cut off at the limit, mid-step, and "
                   "the job runs again{}.",
                   timeout_kill_words(config), text(limit), job, text(longest),
                   effect.empty() ? std::string() : ", repeating " + effect + " unless a key or a record stops it"),
       fmt::format("Raise runtime.execution_timeout above the longest slice (e.g. {}), keeping it several "
                   "seconds below the {}; or split the slow step into a job of its own; and give every "
                   "write a key, so a run cut off after its write replays.",
                   text(advised), lease_word(config).empty() ? "runtime's other limits" : lease_word(config)),
       longest < advised ? std::vector<lint_advice>{advise("runtime.execution_timeout", toml_duration(advised))}
                         : std::vector<lint_advice>{}});
}

// An execution timeout that is not several seconds below the lease, with no
// heartbeat: a slice still running when its lease runs out is handed to a
// second worker before the timeout stops the first, and both run the job at
// once. Laravel's docs: "--timeout should always be at least several seconds
// shorter than your retry_after ... your jobs may be processed twice".
void execution_timeout_near_lease(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.runtime.execution_timeout || config.runtime.heartbeat_interval) return;
  if (lease_word(config).empty() || !death_redelivers(config)) return;  // no lease to run out
  const sim::duration limit = *config.runtime.execution_timeout;
  const sim::duration lease = visibility(config);
  if (limit + timeout_margin <= lease) return;
  const bool fits = lease > timeout_margin + sim::duration::from_s(1);
  const sim::duration lower = fits ? lease - timeout_margin : sim::duration::from_s(1);
  out.push_back(
      {"execution_timeout_near_lease",
       "runtime.execution_timeout",
       fmt::format("the execution timeout ({}) is not at least {} below the {} ({}, {}), and nothing "
                   "extends the lease: a slice that runs past the lease is delivered to a second worker "
                   "while the first runs on until the timeout stops it, and the job runs twice at once "
                   "(Laravel's docs: --timeout at least several seconds shorter than retry_after).",
                   text(limit), text(timeout_margin), lease_word(config), text(lease), visibility_setting(config)),
       fmt::format("Lower runtime.execution_timeout to {} or less, or raise {} to {} or more; or "
                   "heartbeat the lease (runtime.heartbeat_interval).",
                   text(lower), visibility_setting(config), text(limit + timeout_margin)),
       {advise("runtime.execution_timeout", toml_duration(lower))}});
}

}  // namespace twice::lint_rules_detail
