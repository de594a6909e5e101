// queue.flavour: which broker (and, where the framework owns the consumer
// loop, which runtime) a scenario runs, each with its own defaults, and the
// keys each flavour has no use for, refused where they are written.

#include "scenario/sections.hpp"
#include "sim/duration_text.hpp"
#include <twice/world/world.hpp>

namespace twice::scenario_detail {

namespace {

using sim::duration;

enum class flavour : std::uint8_t { sqs, sqs_fifo, sidekiq, celery_redis, pubsub, kafka };

// Sidekiq's BasicFetch and its defaults; [retry] and [runtime], read after
// this, override them (sidekiq/sidekiq v8.1.7: job_retry.rb
// DEFAULT_MAX_RETRY_ATTEMPTS = 25, so 26 runs in all; config.rb timeout: 25).
void sidekiq_defaults(world_config& w) {
  w.queue.hold_until_ack = true;
  retry_policy& retry = w.runtime.retry;
  retry.jitter = jitter_kind::sidekiq;
  retry.maximum_interval.reset();
  retry.maximum_attempts = 26;
  w.runtime.shutdown_timeout = duration::from_s(25);
  // The retry count lives in the job's payload and goes up only when the job
  // raises (job_retry.rb attempt_retry: msg["retry_count"] += 1); a job pushed
  // back at shutdown has not used a retry ("Sidekiq::Shutdown ... will be
  // pushed back onto queue during hard_shutdown", job_retry.rb; retry_test.rb
  // "shuts down without retrying work-in-progress, which will resume").
  w.runtime.count_attempts = attempt_counting::at_failure;
  // The dead set keeps a job 180 days, and at most 10,000 jobs, trimmed when
  // another job dies (config.rb: dead_timeout_in_seconds 180 * 24 * 60 * 60,
  // dead_max_jobs 10_000; api.rb DeadSet#kill).
  w.dead_letter.dead_set = true;
  w.dead_letter.retention = duration::from_s(180LL * 24 * 3600);
  // A due retry waits for the scheduled poller: every 5 s on average across
  // the fleet (config.rb average_scheduled_poll_interval: 5; scheduled.rb).
  w.queue.scheduled_poll_average = duration::from_s(5);
  // BasicFetch's BRPOP times out every 2 s "so the thread can check if the
  // process is shutting down" (sidekiq/sidekiq lib/sidekiq/fetch.rb, TIMEOUT = 2).
  w.runtime.long_poll = duration::from_s(2);
}

// Celery's worker over its Redis transport, with their defaults
// (celery/celery@5dc781f0bd5f celery/app/defaults.py and app/task.py;
// celery/kombu@9ee8595b835c kombu/transport/redis.py): visibility_timeout
// 3600 s; acks_late off, prefetch multiplier 4, reject_on_worker_lost off;
// Task.retry's default_retry_delay of 3 minutes, fixed, and max_retries = 3
// (4 runs in all). Celery has no dead-letter queue: a task out of retries
// fails (MaxRetriesExceededError).
void celery_defaults(world_config& w) {
  w.queue.redis_ack_emulation = true;
  w.queue.visibility_timeout = duration::from_s(3600);
  w.runtime.celery.emplace();
  retry_policy& retry = w.runtime.retry;
  retry.initial_interval = duration::from_s(180);
  retry.coefficient_milli = 1000;
  retry.maximum_interval = duration::from_s(180);
  retry.jitter = jitter_kind::none;
  retry.maximum_attempts = 4;
  w.dead_letter_queue = false;
}

// A Pub/Sub subscription read by Google's streaming pull client, with their
// defaults (googleapis/python-pubsub@63796ff3def3: google/pubsub_v1/types/
// pubsub.py, the Subscription's ack_deadline_seconds 10 s and
// message_retention_duration 7 days, RetryPolicy 10 s..600 s; and
// pubsub_v1/types.py FlowControl.max_lease_duration 1 h). Lease management
// is a heartbeat: the client extends every message it holds by its deadline
// (10 s until it has seen enough acks) after a random snooze of up to 90% of
// it (subscriber/_protocol/leaser.py), taken here as its mean, 5 s; the
// deadline is the client's own (runtime/pubsub_ack_deadline.hpp). A retry
// is Message.nack(), a modifyAckDeadline of 0: the client itself waits
// nothing (retry.initial_interval and maximum_interval 0), and the
// subscription has no RetryPolicy unless pubsub.minimum_backoff or
// maximum_backoff sets one, so the message is redelivered at once
// (broker/pubsub_retry_policy.hpp). No dead-letter topic unless
// pubsub.max_delivery_attempts names one.
void pubsub_defaults(world_config& w) {
  w.queue.pubsub = true;
  w.queue.visibility_timeout = duration::from_s(10);
  w.queue.retention = duration::from_s(7 * 24 * 3600);
  w.runtime.heartbeat_interval = duration::from_s(5);
  w.runtime.max_lease_duration = duration::from_s(3600);
  retry_policy& retry = w.runtime.retry;
  retry.initial_interval = duration::zero();
  retry.coefficient_milli = 1000;
  retry.maximum_interval = duration::zero();
  retry.jitter = jitter_kind::none;
  w.dead_letter_queue = false;
}

// A Kafka consumer group reading a topic with the Java client's defaults
// (apache/kafka@1eb7644349cb, ConsumerConfig.java: session.timeout.ms 45 s,
// heartbeat.interval.ms 3 s, max.poll.interval.ms 300 s, max.poll.records
// 500, enable.auto.commit true every 5 s, auto.offset.reset latest; the
// broker's num.partitions 1 and group.initial.rebalance.delay.ms 3 s), and
// a listener that retries in place as Spring Kafka's DefaultErrorHandler
// does by default (spring-projects/spring-kafka@3f3cf7d88cd5,
// FailedRecordTracker / DefaultErrorHandler: FixedBackOff(0, 9), 10
// attempts with no wait, then the record is logged and skipped: no
// dead-letter topic).
void kafka_defaults(world_config& w) {
  kafka_config& k = w.runtime.kafka.emplace();
  k.group.name = w.queue.name;
  retry_policy& retry = w.runtime.retry;
  retry.initial_interval = duration::zero();
  retry.coefficient_milli = 1000;
  retry.maximum_interval = duration::zero();
  retry.jitter = jitter_kind::none;
  retry.maximum_attempts = 10;
  w.runtime.rules.retry = retry_mode::in_slice;
  w.dead_letter_queue = false;
}

// What a Sidekiq fetch has no use for: a lease, groups, a redrive.
void check_sidekiq(const doc_node& queue, source_pos at, load_state& s) {
  const world_config& w = s.world;
  const auto refuse = [&](std::string_view what) { s.d.error(at, "queue.flavour", std::string(what)); };
  if (w.runtime.heartbeat_interval)
    refuse("a Sidekiq fetch holds its job until the ack, with no lease to extend: remove runtime.heartbeat_interval");
  if (w.queue.max_receive_count > 0)
    refuse(
        "Sidekiq has no redrive by receive count: its dead set takes a job after retry.maximum_attempts; remove "
        "queue.max_receive_count");
  if (w.message_group != message_group_source::none)
    refuse("a Sidekiq queue has no message groups: remove queue.message_group_id");
  if (w.queue.semantics != handle_semantics::sqs) refuse("semantics is an SQS option: remove queue.semantics");
  if (!w.runtime.rules.split_tool.empty())
    refuse("the split discipline's queue is an SQS queue; it does not combine with \"sidekiq\" yet");
  if (w.dead_letter_redrive) refuse("a dead-letter redrive is not modelled for \"sidekiq\" yet");
  if (w.runtime.orphan_rescue)
    refuse(
        "Sidekiq recovers a dead process's jobs with Pro's super_fetch, at a start and every hour: set [sidekiq] "
        "fetch = \"super\" (a job-table sweeper, runtime.orphan_rescue, is not modelled with Sidekiq)");
  for (const char* key : {"visibility_timeout", "retention", "delay"})
    if (const doc_node* n = queue.find(key))
      s.d.error(n->pos, std::string("queue.") + key,
                "a Sidekiq queue is a Redis list: no lease, no retention, no delay; remove it");
}

// The [queue] keys a Pub/Sub subscription names otherwise ([pubsub]), and
// what is not modelled with it yet.
void check_pubsub(const table_reader& root, const doc_node& queue, source_pos at, load_state& s) {
  const world_config& w = s.world;
  static constexpr std::pair<const char*, const char*> renamed[] = {
      {"visibility_timeout", "pubsub.ack_deadline"},
      {"retention", "pubsub.message_retention"},
      {"max_receive_count", "pubsub.max_delivery_attempts"},
      {"semantics", "pubsub.exactly_once_delivery"},
  };
  for (const auto& [key, instead] : renamed)
    if (const doc_node* n = queue.find(key))
      s.d.error(n->pos, std::string("queue.") + key,
                std::string("a Pub/Sub subscription names it ") + instead + ": write that instead");
  for (const char* key : {"delay", "message_group_id", "deduplication"})
    if (const doc_node* n = queue.find(key))
      s.d.error(n->pos, std::string("queue.") + key,
                "not modelled for \"pubsub\" (no delivery delay, ordering keys or "
                "publisher deduplication yet): remove it");
  if (const doc_node* runtime = root.get("runtime"))
    if (const doc_node* n = runtime->find("visibility_timeout"))
      s.d.error(n->pos, "runtime.visibility_timeout",
                "a Pub/Sub pull takes the subscription's ack deadline: set pubsub.ack_deadline");
  // A nack's wait is the subscription's: the runtime's own backoff only
  // paces retries inside the slice (discipline.retry = "in_slice").
  if (const doc_node* retry = root.get("retry"); retry != nullptr && w.runtime.rules.retry == retry_mode::nack)
    for (const char* key : {"initial_interval", "coefficient", "maximum_interval", "jitter"})
      if (const doc_node* n = retry->find(key))
        s.d.error(n->pos, std::string("retry.") + key,
                  "a Pub/Sub client nacks, and the subscription's RetryPolicy sets the wait: write "
                  "pubsub.minimum_backoff and pubsub.maximum_backoff instead");
  if (!w.runtime.rules.split_tool.empty())
    s.d.error(at, "queue.flavour",
              "the split discipline's queue is an SQS queue; it does not combine with \"pubsub\" yet");
  if (w.dead_letter_redrive) s.d.error(at, "queue.flavour", "a dead-letter redrive is not modelled for \"pubsub\" yet");
}

// What Celery's Redis transport and worker have no use for, or what is not
// modelled with them yet.
void check_celery(const table_reader& root, const doc_node& queue, source_pos at, load_state& s) {
  const world_config& w = s.world;
  const auto refuse = [&](std::string_view what) { s.d.error(at, "queue.flavour", std::string(what)); };
  if (w.runtime.heartbeat_interval)
    refuse("Celery's Redis transport has no way to extend a visibility timeout: remove runtime.heartbeat_interval");
  if (w.queue.max_receive_count > 0)
    refuse(
        "Celery has no redrive by receive count: a task fails after retry.maximum_attempts; remove "
        "queue.max_receive_count");
  if (w.message_group != message_group_source::none)
    refuse("a Celery queue has no message groups: remove queue.message_group_id");
  if (w.queue.semantics != handle_semantics::sqs) refuse("semantics is an SQS option: remove queue.semantics");
  if (!w.runtime.rules.split_tool.empty())
    refuse("the split discipline's queue is an SQS queue; it does not combine with \"celery_redis\" yet");
  if (w.dead_letter_redrive)
    refuse("Celery has no dead-letter queue to redrive: remove dead_letter_queue.redrive_after");
  if (w.runtime.orphan_rescue) refuse("an orphan rescue is not modelled for \"celery_redis\" yet");
  if (w.runtime.tenant_limit || w.tenant_queues)
    refuse("per-tenant limits and queues are not modelled for \"celery_redis\" yet");
  for (const char* key : {"retention", "delay"})
    if (const doc_node* n = queue.find(key))
      s.d.error(n->pos, std::string("queue.") + key,
                "a Celery queue is a Redis list: no retention, no delay (a countdown is the task's ETA); remove it");
  if (const doc_node* runtime = root.get("runtime")) {
    if (const doc_node* n = runtime->find("visibility_timeout"))
      s.d.error(n->pos, "runtime.visibility_timeout",
                "Celery's visibility timeout is the transport's, not the worker's: set queue.visibility_timeout");
    if (const doc_node* n = runtime->find("shutdown_timeout"))
      s.d.error(n->pos, "runtime.shutdown_timeout",
                "a Celery warm shutdown waits for its tasks (Celery 5.5's soft shutdown is not modelled): remove it");
  }
}

// What a Kafka topic and consumer have no use for, or what is not
// modelled with them yet.
void check_kafka(const table_reader& root, const doc_node& queue, source_pos at, load_state& s) {
  const world_config& w = s.world;
  const auto refuse = [&](std::string_view what) { s.d.error(at, "queue.flavour", std::string(what)); };
  for (const char* key : {"visibility_timeout", "retention", "delay", "max_receive_count", "semantics",
                          "message_group_id", "deduplication", "receive_wait"})
    if (const doc_node* n = queue.find(key))
      s.d.error(n->pos, std::string("queue.") + key,
                "a Kafka topic has no lease, delay, redrive or groups per message: a consumer group reads it by "
                "offset ([kafka]); remove it");
  if (const doc_node* runtime = root.get("runtime"))
    for (const char* key : {"visibility_timeout", "heartbeat_interval", "max_lease_duration", "long_poll",
                            "shutdown_timeout", "tenant_limit", "orphan_rescue"})
      if (const doc_node* n = runtime->find(key))
        s.d.error(n->pos, std::string("runtime.") + key,
                  std::string(key) == "heartbeat_interval"
                      ? "a Kafka consumer holds no lease per record; its group heartbeats are kafka.heartbeat_interval"
                      : "not a setting of a Kafka consumer (or not modelled with one yet): remove it");
  if (const doc_node* d = root.get("discipline"); d != nullptr && w.runtime.rules.retry == retry_mode::nack)
    if (const doc_node* n = d->find("retry"))
      s.d.error(n->pos, "discipline.retry",
                "a Kafka record cannot be given back for later: a consumer retries it in place (\"in_slice\"), "
                "holding up its partition, or sends it on to a retry topic (not modelled yet)");
  if (!w.runtime.rules.split_tool.empty())
    refuse("the split discipline's queue is an SQS queue; it does not combine with \"kafka\" yet");
  if (w.dead_letter_redrive) refuse("a dead-letter redrive is not modelled for \"kafka\" yet");
  if (w.tenant_queues) refuse("per-tenant queues are not modelled for \"kafka\" (a topic per tenant) yet");
  if (root.get("queue_fault") != nullptr)
    refuse(
        "[[queue_fault]] injects SQS's duplicate deliveries and lost deletes; a Kafka consumer's duplicates come "
        "from rebalances and crashes ([[crash]], [[deploy]], [[fault]])");
}

// A consumer keyed on the message: on SQS it keeps a record per messageId,
// elsewhere none, so every delivery is new work (worker::keeps_message_record).
// Its keys and records name the message, which [split]'s children share
// with no message of their own yet.
void check_work_id(const table_reader& root, load_state& s) {
  const world_config& w = s.world;
  if (w.runtime.rules.work_id != work_id_mode::message) return;
  const doc_node* n = root.get("discipline")->find("work_id");
  if (!w.runtime.rules.split_tool.empty())
    s.d.error(n->pos, "discipline.work_id", "a consumer keyed on the message does not combine with [split] yet");
}

}  // namespace

void load_flavour_choice(const table_reader& r, load_state& s) {
  static const named<flavour> flavours[] = {{"sqs", flavour::sqs},         {"sqs_fifo", flavour::sqs_fifo},
                                            {"sidekiq", flavour::sidekiq}, {"celery_redis", flavour::celery_redis},
                                            {"pubsub", flavour::pubsub},   {"kafka", flavour::kafka}};
  flavour chosen = flavour::sqs;
  r.choice("flavour", chosen, flavours);
  s.world.queue.fifo = chosen == flavour::sqs_fifo;
  if (chosen == flavour::sidekiq) sidekiq_defaults(s.world);
  if (chosen == flavour::celery_redis) celery_defaults(s.world);
  if (chosen == flavour::pubsub) pubsub_defaults(s.world);
  if (chosen == flavour::kafka) kafka_defaults(s.world);
}

// [kafka]: the topic's partitions, the consumer's settings and its group's,
// by their Kafka names, with the flavour only.
void load_kafka(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("kafka");
  if (t == nullptr) return;
  world_config& w = s.world;
  if (!w.runtime.kafka) {
    s.d.error(t->pos, "kafka", "[kafka] sets a Kafka consumer group: needs queue.flavour = \"kafka\"");
    return;
  }
  const table_reader r(
      s.d, *t, "kafka",
      {"partitions", "max_poll_records", "max_poll_interval", "session_timeout", "heartbeat_interval",
       "enable_auto_commit", "auto_commit_interval", "commit", "auto_offset_reset", "group_initial_rebalance_delay",
       "dead_letter_topic", "rebalance_timeout", "client", "enable_auto_offset_store"});
  kafka_config& k = *w.runtime.kafka;
  r.integer("partitions", k.group.partitions, {1, 10'000});
  static const named<kafka_client> clients[] = {{"java", kafka_client::java}, {"librdkafka", kafka_client::librdkafka}};
  r.choice("client", k.client, clients);
  if (k.client == kafka_client::librdkafka) {
    // rd_kafka_consumer_poll hands over one message per call (its own
    // prefetch queue is out of sight), and max.poll.interval.ms is the
    // time between two such calls.
    k.max_poll_records = 1;
    if (t->find("max_poll_records") != nullptr)
      s.d.error(r.pos_of("max_poll_records"), r.path_of("max_poll_records"),
                "is the Java client's: librdkafka's consumer poll hands over one message at a time; remove it");
  } else {
    r.integer("max_poll_records", k.max_poll_records, {1, 100'000});
  }
  r.duration("max_poll_interval", k.group.max_poll_interval, {duration::from_s(1), duration::from_s(24 * 3600)});
  // A rebalance timeout the client sends in JoinGroup other than
  // max.poll.interval.ms (Sarama's Consumer.Group.Rebalance.Timeout,
  // kafkajs's rebalanceTimeout): broker/consumer_group_config.hpp.
  r.duration("rebalance_timeout", k.group.rebalance_timeout, {duration::from_s(1), duration::from_s(24 * 3600)});
  // group.min.session.timeout.ms and group.max.session.timeout.ms, the broker's defaults.
  r.duration("session_timeout", k.group.session_timeout,
             {duration::from_s(6), duration::from_s(1800), " (the broker's group.min/max.session.timeout.ms)"});
  r.duration("heartbeat_interval", k.group.heartbeat_interval, {duration::from_ms(1), duration::from_s(1800)});
  if (k.group.heartbeat_interval >= k.group.session_timeout)
    s.d.error(t->find("heartbeat_interval") != nullptr ? r.pos_of("heartbeat_interval") : t->pos,
              r.path_of("heartbeat_interval"),
              "must be lower than kafka.session_timeout (Kafka: \"lower than session.timeout.ms\")");
  r.boolean("enable_auto_commit", k.enable_auto_commit);
  r.duration("auto_commit_interval", k.auto_commit_interval, {duration::from_ms(1), duration::from_s(24 * 3600)});
  static const named<kafka_manual_commit> commits[] = {{"per_batch", kafka_manual_commit::per_batch},
                                                       {"per_record", kafka_manual_commit::per_record}};
  if (r.choice("commit", k.manual_commit, commits) && k.enable_auto_commit)
    s.d.error(r.pos_of("commit"), r.path_of("commit"),
              "is the application's commitSync: needs kafka.enable_auto_commit = false");
  if (r.boolean("enable_auto_offset_store", k.enable_auto_offset_store)) {
    if (k.client != kafka_client::librdkafka)
      s.d.error(r.pos_of("enable_auto_offset_store"), r.path_of("enable_auto_offset_store"),
                "is librdkafka's offset store: needs kafka.client = \"librdkafka\" (the Java client commits "
                "what poll returned)");
    else if (!k.enable_auto_commit)
      s.d.error(r.pos_of("enable_auto_offset_store"), r.path_of("enable_auto_offset_store"),
                "feeds the background auto-commit: needs kafka.enable_auto_commit = true");
  }
  static const named<bool> resets[] = {{"latest", false}, {"earliest", true}};
  r.choice("auto_offset_reset", k.reset_to_earliest, resets);
  r.duration("group_initial_rebalance_delay", k.group.initial_rebalance_delay,
             {duration::zero(), duration::from_s(300)});
  bool dead_letter_topic = false;
  if (r.boolean("dead_letter_topic", dead_letter_topic) && dead_letter_topic) {
    // Spring Kafka 3.3's DeadLetterPublishingRecoverer: "<topic>-dlt".
    w.dead_letter_queue = true;
    w.dead_letter.name = w.queue.name + "-dlt";
  }
}

// [pubsub]: the subscription's settings and the client's lease management,
// by their Pub/Sub names, with the flavour only.
void load_pubsub(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("pubsub");
  if (t == nullptr) return;
  world_config& w = s.world;
  if (!w.queue.pubsub) {
    s.d.error(t->pos, "pubsub", "[pubsub] sets a Pub/Sub subscription: needs queue.flavour = \"pubsub\"");
    return;
  }
  const table_reader r(s.d, *t, "pubsub",
                       {"ack_deadline", "max_delivery_attempts", "exactly_once_delivery", "message_retention",
                        "lease_management", "max_lease_duration", "minimum_backoff", "maximum_backoff"});
  r.duration("ack_deadline", w.queue.visibility_timeout,
             {duration::from_s(10), max_ack_deadline, " (Pub/Sub's limits)"});
  if (r.integer("max_delivery_attempts", w.queue.max_receive_count, {5, 100, " (Pub/Sub's limits)"}))
    w.dead_letter_queue = true;  // the dead-letter topic the policy names
  bool exactly_once = false;
  if (r.boolean("exactly_once_delivery", exactly_once) && exactly_once) w.queue.semantics = handle_semantics::strict;
  r.duration("message_retention", w.queue.retention,
             {duration::from_s(600), max_pubsub_retention, " (Pub/Sub's limits)"});
  r.duration("max_lease_duration", w.runtime.max_lease_duration, {duration::from_s(1), duration::from_s(24 * 3600)});
  // A RetryPolicy: either bound sets one, the other keeps its default.
  pubsub_retry_policy policy;
  const bool minimum = r.duration("minimum_backoff", policy.minimum_backoff,
                                  {duration::zero(), max_pubsub_backoff, " (Pub/Sub's limits)"});
  const bool maximum = r.duration("maximum_backoff", policy.maximum_backoff,
                                  {duration::zero(), max_pubsub_backoff, " (Pub/Sub's limits)"});
  if (minimum || maximum) {
    if (policy.minimum_backoff > policy.maximum_backoff) {
      const char* key = maximum ? "maximum_backoff" : "minimum_backoff";
      s.d.error(r.pos_of(key), r.path_of(key),
                "the RetryPolicy's minimum_backoff (" + sim::format_duration(policy.minimum_backoff) +
                    ") is above its maximum_backoff (" + sim::format_duration(policy.maximum_backoff) + ")");
    } else {
      w.queue.retry_policy = policy;
    }
  }
  bool lease_management = true;
  if (r.boolean("lease_management", lease_management) && !lease_management) {
    // A plain pull client: nothing extends a deadline.
    const doc_node* runtime = root.get("runtime");
    if (runtime != nullptr && runtime->find("heartbeat_interval") != nullptr)
      s.d.error(r.pos_of("lease_management"), r.path_of("lease_management"),
                "false leaves the ack deadline unextended, but runtime.heartbeat_interval extends it: remove one");
    if (t->find("max_lease_duration") != nullptr)
      s.d.error(r.pos_of("max_lease_duration"), r.path_of("max_lease_duration"),
                "bounds lease management, which lease_management = false turns off: remove it");
    w.runtime.heartbeat_interval.reset();
    w.runtime.max_lease_duration.reset();
  }
}

namespace {

// One value of [sidekiq.retry_in]: "default", "discard", "kill" or a
// duration, what the job's sidekiq_retry_in block returns for that failure
// (runtime/sidekiq_retry_in.hpp). The block's Integer is whole seconds
// (job_retry.rb line 237, `rv.to_i`), above 0 (line 239).
std::optional<retry_in_choice> read_retry_in(diagnostics& d, const doc_node& n, const std::string& path) {
  static constexpr std::string_view words[] = {"default", "discard", "kill"};
  const std::string expected = "\"default\", \"discard\", \"kill\" or a duration of whole seconds, 1s..720h";
  if (n.type != doc_node::kind::string) {
    d.error(n.pos, path, "expected " + expected + ", found " + describe_found(n));
    return std::nullopt;
  }
  if (n.text == "default") return retry_in_choice{};
  if (n.text == "discard") return retry_in_choice{retry_in_action::discard, sim::duration::zero()};
  if (n.text == "kill") return retry_in_choice{retry_in_action::kill, sim::duration::zero()};
  const sim::result<sim::duration> r = sim::parse_duration(n.text);
  if (!r) {
    d.error(n.pos, path, "expected " + expected + ", found " + quote(n.text) + did_you_mean(n.text, words));
    return std::nullopt;
  }
  if (r.value() < sim::duration::from_s(1) || r.value() > sim::duration::from_s(720 * 3600) ||
      r.value().us() % 1'000'000 != 0) {
    d.error(n.pos, path, "expected " + expected + ", found " + sim::format_duration(r.value()));
    return std::nullopt;
  }
  return retry_in_choice{retry_in_action::delay, r.value()};
}

// [sidekiq.retry_in]: the job's sidekiq_retry_in block, by failure kind.
void load_retry_in(const table_reader& r, load_state& s) {
  const doc_node* t = r.table("retry_in");
  if (t == nullptr) return;
  const table_reader in(s.d, *t, r.path_of("retry_in"),
                        {"unavailable", "rate_limited", "internal_error", "timeout", "conflict", "bad_request"});
  sidekiq_retry_in& block = s.world.runtime.sidekiq_retry.retry_in;
  for (std::size_t i = 0; i < sidekiq_failure_count; ++i) {
    const doc_node* n = in.get(sidekiq_failure_names[i]);
    if (n == nullptr) continue;
    if (const auto choice = read_retry_in(s.d, *n, in.path_of(sidekiq_failure_names[i]))) block[i] = *choice;
  }
  // A 400 reaches JobRetry only when the job raises it: here, the bug
  // switch that retries 400s like 503s.
  if (in.get("bad_request") != nullptr && !s.world.runtime.rules.retry_non_retryable)
    s.d.error(in.pos_of("bad_request"), in.path_of("bad_request"),
              "a 400 ends the job failed before JobRetry sees it; a job that raises it (discipline.retry_non_retryable "
              "= true) is what sidekiq_retry_in can route: set that, or remove bad_request");
}

}  // namespace

// [sidekiq]: which fetch, how JobRetry treats the job's errors, with the flavour only.
void load_sidekiq(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("sidekiq");
  if (t == nullptr) return;
  if (!s.world.queue.hold_until_ack) {
    s.d.error(t->pos, "sidekiq", "[sidekiq] sets Sidekiq's fetch: needs queue.flavour = \"sidekiq\"");
    return;
  }
  const table_reader r(s.d, *t, "sidekiq",
                       {"fetch", "scheduled_poll_average", "wrapped_shutdown", "retry_in", "retry_for"});
  static const named<bool> fetches[] = {{"basic", false}, {"super", true}};
  r.choice("fetch", s.world.queue.super_fetch, fetches);
  // "retried": Sidekiq before PR #1805 (runtime/sidekiq_retry_config.hpp).
  static const named<bool> wrapped[] = {{"not_retried", false}, {"retried", true}};
  r.choice("wrapped_shutdown", s.world.runtime.sidekiq_retry.wrapped_shutdown_retried, wrapped);
  // average_scheduled_poll_interval; 0s: a retry re-enters the moment it is due.
  r.duration("scheduled_poll_average", s.world.queue.scheduled_poll_average,
             {sim::duration::zero(), sim::duration::from_s(3600)});
  load_retry_in(r, s);
  // retry_for: retries end by time since the first failure, and the count
  // no longer counts (job_retry.rb lines 181-188; at most 1e9 s,
  // job_util.rb line 18; ours stops at ten years).
  std::optional<sim::duration> retry_for;
  if (r.duration("retry_for", retry_for, {sim::duration::from_s(1), instant_offset_max})) {
    const doc_node* retry = root.get("retry");
    if (retry != nullptr && retry->is_table() && retry->find("maximum_attempts") != nullptr)
      s.d.error(r.pos_of("retry_for"), r.path_of("retry_for"),
                "retry_for replaces the retry count (Sidekiq ignores `retry` when `retry_for` is set): remove "
                "retry.maximum_attempts or retry_for");
    s.world.runtime.retry.retry_for = retry_for;
    s.world.runtime.retry.maximum_attempts = 0;
  }
  // Both are JobRetry's, which a retry inside the job never reaches.
  const bool job_retry = r.get("retry_in") != nullptr || r.get("retry_for") != nullptr;
  if (job_retry && s.world.runtime.rules.retry == retry_mode::in_slice)
    s.d.error(t->pos, "sidekiq",
              "sidekiq.retry_in and sidekiq.retry_for are JobRetry's, which a retry inside the job "
              "(discipline.retry = \"in_slice\") never reaches: remove them or the in-slice retry");
  if (retry_for && s.world.runtime.retry.jitter != jitter_kind::sidekiq)
    s.d.error(r.pos_of("retry_for"), r.path_of("retry_for"),
              "retry_for ends Sidekiq's own schedule: needs retry.jitter = \"sidekiq\" (the flavour's default)");
}

// [celery]: the worker's settings (celery_config), with the flavour only.
void load_celery(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("celery");
  if (t == nullptr) return;
  if (!s.world.runtime.celery) {
    s.d.error(t->pos, "celery", "[celery] sets a Celery worker: needs queue.flavour = \"celery_redis\"");
    return;
  }
  const table_reader r(s.d, *t, "celery", {"acks_late", "prefetch_multiplier", "reject_on_worker_lost"});
  celery_config& c = *s.world.runtime.celery;
  r.boolean("acks_late", c.acks_late);
  r.integer("prefetch_multiplier", c.prefetch_multiplier, {1, 1000});
  r.boolean("reject_on_worker_lost", c.reject_on_worker_lost);
}

void check_flavour(const table_reader& root, load_state& s) {
  check_work_id(root, s);
  const doc_node* queue = root.get("queue");
  if (queue == nullptr || queue->find("flavour") == nullptr) return;
  const source_pos at = queue->find("flavour")->pos;
  if (s.world.queue.hold_until_ack) return check_sidekiq(*queue, at, s);
  if (s.world.queue.redis_ack_emulation) return check_celery(root, *queue, at, s);
  if (s.world.queue.pubsub) return check_pubsub(root, *queue, at, s);
  if (s.world.runtime.kafka) return check_kafka(root, *queue, at, s);
  if (!s.world.queue.fifo) return;
  // What the FIFO flavour does not model yet, said where the scenario asks for it.
  if (!s.world.runtime.rules.split_tool.empty())
    s.d.error(at, "queue.flavour",
              "the split discipline's second queue is a standard queue; it does not combine with \"sqs_fifo\" yet");
  if (s.world.dead_letter_redrive)
    s.d.error(at, "queue.flavour",
              "a dead-letter redrive (dead_letter_queue.redrive_after) is not modelled for \"sqs_fifo\" yet");
}

}  // namespace twice::scenario_detail
