#include <fmt/ranges.h>

#include <map>
#include <string>

#include "lint/rules.hpp"

// The queue: what bounds a message's deliveries, where dead letters go, and
// whether one tenant can starve the others.

namespace twice::lint_rules_detail {
namespace {

// A queue the jobs' messages are delivered from.
struct consumed_queue {
  // "queue.max_receive_count", "split.max_receive_count", Pub/Sub's
  // "pubsub.max_delivery_attempts"; empty where the broker has no redrive
  // by receive count (Sidekiq, Celery, Kafka).
  std::string_view redrive_setting;
  sim::duration lease;
  std::optional<sim::duration> retention;  // none: kept until read (a Redis list, a Kafka topic here)
  bool redriven = false;
};

// The jobs' queue, and the split queue when some job calls the split tool.
std::vector<consumed_queue> consumed_queues(const world_config& config) {
  const broker_kind broker = broker_of(config);
  const bool retains = broker != broker_kind::sidekiq && broker != broker_kind::celery && broker != broker_kind::kafka;
  const sim::duration lease =
      broker == broker_kind::kafka ? config.runtime.kafka->group.session_timeout : visibility(config);
  std::vector<consumed_queue> queues{{redrive_setting(config), lease,
                                      retains ? std::optional(config.queue.retention) : std::nullopt,
                                      redrive_active(config)}};
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
  // A slice that dies with its message loses it on some brokers (Sidekiq's
  // BasicFetch, Celery without acks_late): no crash loop; and super_fetch
  // sends a job recovered a fourth time in 72 h to the dead set.
  const bool crashes_bounded = crash_loops_counted(config) || !death_redelivers(config) || config.queue.super_fetch;
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

// The warning names the bound a scenario is missing: retry.maximum_attempts
// when attempts are unlimited, else (the counter is reset in every nack) the
// redrive that is not there.
std::string_view missing_bound_setting(const world_config& config, const redelivery_paths& paths) {
  if (config.runtime.retry.maximum_attempts == 0) return key::maximum_attempts;
  const std::string_view redrive = paths.unredriven.front()->redrive_setting;
  // Without a redrive by receive count, the attempts are the only bound.
  if (redrive.empty())
    return config.runtime.rules.reset_attempts_on_reenqueue ? key::reset_attempts : key::maximum_attempts;
  // Pub/Sub's max_delivery_attempts names the dead-letter topic too.
  if (!config.dead_letter_queue && !config.queue.pubsub) return key::dead_letter_enabled;
  return redrive;
}

// "queue.max_receive_count is not set", "the dead-letter queue is disabled",
// "Kafka has no redrive by delivery count".
std::string no_redrive_text(const world_config& config, const redelivery_paths& paths) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return "Sidekiq has none by delivery count: its dead set takes a job out of retries";
    case broker_kind::celery:
      return "Celery has none: a task out of retries fails";
    case broker_kind::kafka:
      return "Kafka has none by delivery count: the recoverer takes a record out of retries";
    default:
      break;
  }
  if (!config.dead_letter_queue && !config.queue.pubsub) return "the dead-letter queue is disabled";
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
    causes.push_back(
        fmt::format("discipline.reset_attempts_on_reenqueue sets the attempt counter back to 0 on "
                    "every delivery, so {} never reaches retry.maximum_attempts = {}",
                    failures_counted(config) ? "a crash loop" : "a failing job", attempts));
  }
  if (attempts != 0 && config.runtime.count_attempts == attempt_counting::at_failure &&
      !config.runtime.rules.reset_attempts_on_reenqueue) {
    causes.push_back(
        fmt::format("runtime.count_attempts = \"at_failure\" counts only failures a slice records, so "
                    "a crash loop never reaches retry.maximum_attempts = {}",
                    attempts));
  }
  if (!paths.unredriven.empty())
    causes.push_back(fmt::format("there is no redrive ({})", no_redrive_text(config, paths)));
  if (in_slice && paths.failing_job && paths.unredriven.empty()) {
    causes.emplace_back(
        "the broker's redrive counts deliveries, while discipline.retry = \"in_slice\" retries "
        "inside one delivery");
  }

  std::vector<std::string> effects;
  if (paths.failing_job) {
    effects.emplace_back(in_slice ? "a job that keeps failing is retried forever inside the slice that received it"
                                  : "a job that keeps failing is re-enqueued forever");
  }
  if (paths.crash_loop) {
    const consumed_queue& q = *paths.unredriven.front();
    effects.push_back(
        config.runtime.kafka
            ? fmt::format("a poison record that crashes its consumer on every poll is read again after every session "
                          "timeout ({}) and rebalance, forever, taking a consumer each time",
                          text(q.lease))
            : fmt::format("a poison message that crashes its worker or outlives its {} on every delivery comes back "
                          "every {} forever, taking a worker each time",
                          config.queue.pubsub ? "ack deadline" : "lease", text(q.lease)));
  }
  std::string why = fmt::format("{}: {}", fmt::join(causes, ", and "), fmt::join(effects, ", and "));
  if (!paths.unredriven.empty() && (paths.crash_loop || !in_slice) && paths.unredriven.front()->retention) {
    why += fmt::format(" (until the queue's retention, {}, drops it)", text(*paths.unredriven.front()->retention));
  }
  why += effects.size() > 1 ? "; neither is ever dead-lettered, and nobody is told."
                            : "; it is never dead-lettered, and nobody is told.";
  if (!paths.crash_loop) {
    // Say which path is still bounded, so the warning does not read as if
    // every poison message cycled forever.
    if (!death_redelivers(config)) {
      why += config.queue.hold_until_ack ? " (A job whose process dies is lost with it, not run again: BasicFetch.)"
                                         : " (A task whose process dies is lost with it, not run again: it was acked "
                                           "when received.)";
    } else if (config.queue.super_fetch && !crash_loops_counted(config)) {
      why +=
          " (A job whose process dies on every run goes to the dead set at its fourth recovery in 72 h: super_fetch.)";
    } else if (crash_loops_counted(config)) {
      why += fmt::format(
          " (A slice that crashes{} on every delivery is still dead-lettered after {} attempts: each "
          "delivery's attempt is counted on the job row.)",
          config.runtime.kafka ? "" : " or loses its lease", attempts);
    } else {
      why += fmt::format(
          " (A slice that crashes or loses its lease on every delivery is still redriven after "
          "{} = {} deliveries.)",
          redrive_setting(config), config.queue.max_receive_count);
    }
  }
  return why;
}

struct dead_letter_fix_text {
  std::string fix;
  std::vector<lint_advice> advice;
};

dead_letter_fix_text dead_letter_fix(const world_config& config, const redelivery_paths& paths) {
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  const discipline& rules = config.runtime.rules;
  // Counting attempts bounds every path once the counter only goes up.
  std::vector<std::string> counting;
  std::vector<advised_value> counted;
  if (attempts == 0) {
    counting.emplace_back("set retry.maximum_attempts (e.g. 5)");
    counted.push_back({std::string(key::maximum_attempts), toml_int(5)});
  }
  if (rules.reset_attempts_on_reenqueue) {
    counting.emplace_back("set discipline.reset_attempts_on_reenqueue = false");
    counted.push_back({std::string(key::reset_attempts), toml_bool(false)});
  }
  if (config.runtime.count_attempts == attempt_counting::at_failure) {
    counting.emplace_back("set runtime.count_attempts = \"at_start\"");
    counted.push_back({"runtime.count_attempts", toml_word("at_start")});
  }
  const std::string by_attempts = fmt::format(
      "{}: the runtime counts an attempt on the job row when a slice starts, before the handler runs, "
      "and dead-letters the job once they are used up, whether its slices fail or crash.",
      fmt::join(counting, " and "));
  lint_advice attempts_advice = advise(std::move(counted));
  // A redrive bounds every path that redelivers the message; retries inside
  // a slice are not redeliveries. Only SQS and Pub/Sub redrive by count.
  const bool redrive_suffices = !paths.unredriven.empty() && !paths.unredriven.front()->redrive_setting.empty() &&
                                !(rules.retry == retry_mode::in_slice && paths.failing_job);
  if (!redrive_suffices) return {capitalized(by_attempts), {std::move(attempts_advice)}};
  // Pub/Sub takes 5 to 100 delivery attempts.
  const std::uint32_t deliveries = config.queue.pubsub ? std::clamp<std::uint32_t>(attempts == 0 ? 5 : attempts, 5, 100)
                                                       : (attempts == 0 ? 5 : attempts);
  std::vector<std::string_view> settings;
  std::vector<advised_value> redriven;
  const bool enable = !config.dead_letter_queue && !config.queue.pubsub;
  if (enable) redriven.push_back({std::string(key::dead_letter_enabled), toml_bool(true)});
  for (const consumed_queue* q : paths.unredriven) {
    settings.push_back(q->redrive_setting);
    redriven.push_back({std::string(q->redrive_setting), toml_int(deliveries)});
  }
  const std::string by_redrive = fmt::format(
      "{} {} ({}): the broker moves a message received that often to the dead-letter {}, where someone sees it.",
      enable ? "enable the dead-letter queue (dead_letter_queue.enabled = true) and set" : "set",
      fmt::join(settings, " and "),
      attempts == 0 || deliveries != attempts ? fmt::format("e.g. {}", deliveries)
                                              : fmt::format("{}, the retry policy's attempts", attempts),
      config.queue.pubsub ? "topic" : "queue");
  // Lead with the fix for the setting the warning names.
  if (attempts == 0)
    return {capitalized(by_attempts) + " Or " + by_redrive, {std::move(attempts_advice), advise(std::move(redriven))}};
  return {capitalized(by_redrive) + " Or " + by_attempts, {advise(std::move(redriven)), std::move(attempts_advice)}};
}

}  // namespace

void dead_letter_threshold(const world_config& config, std::vector<lint_warning>& out) {
  const std::vector<consumed_queue> queues = consumed_queues(config);
  const redelivery_paths paths = unbounded_paths(config, queues);
  if (!paths.crash_loop && !paths.failing_job) return;
  dead_letter_fix_text fix = dead_letter_fix(config, paths);
  out.push_back({"dead_letter_threshold", std::string(missing_bound_setting(config, paths)),
                 dead_letter_why(config, paths), std::move(fix.fix), std::move(fix.advice)});
}

// Nothing reads the dead-letter queue and it keeps messages no longer than
// the source queue does. Every dead letter is deleted unread in the end; one
// the broker redrove there keeps its ORIGINAL enqueue time on a standard
// queue, so after most of its retention spent being retried it goes soon ("it is a best practice to always set the
// retention period of a dead-letter queue to be longer than the retention period of the original queue", SQS Developer
// Guide, "Setting-up dead-letter queue retention"). Within the run's own horizon ([budget] time_limit) the same
// deletion is what the run will show: no_message_lost breaks; past it, the verdict cannot be judged when the run stops
// with dead letters still held.
void dead_letters_unread(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.dead_letter_queue || config.dead_letter_redrive) return;
  const bool shorter_than_source = config.dead_letter.retention <= config.queue.retention;
  const bool inside_run = config.dead_letter.retention < config.time_limit;
  if (!shorter_than_source && !inside_run) return;
  const std::string kept =
      shorter_than_source ? fmt::format("it keeps messages {}, no longer than the source queue's {}",
                                        text(config.dead_letter.retention), text(config.queue.retention))
                          : fmt::format("it keeps messages {}, less than this run lasts ([budget] time_limit = {})",
                                        text(config.dead_letter.retention), text(config.time_limit));
  out.push_back({"dead_letters_unread",
                 "dead_letter_queue.retention",
                 fmt::format("Nothing reads the dead-letter queue (no redrive_after), and {}. Every dead letter is "
                             "deleted unread once that passes (sooner for one the broker moved there: it keeps its "
                             "first enqueue time){}, and nothing ever says that its work was never done.",
                             kept, inside_run ? ", inside this run" : ""),
                 "Alarm on the dead-letter queue and redrive it (dead_letter_queue.redrive_after), and keep dead "
                 "letters longer than the source queue does: dead_letter_queue.retention = \"336h\" (SQS's most).",
                 {advise("dead_letter_queue.retention", toml_duration(sim::duration::from_s(336 * 3600)))}});
}

// The pager resolves a page by itself before the on-call answers it, and
// nothing pages while they might: the dead-letter depth alarm acts only on
// OK -> ALARM ("the actions to execute when this alarm transitions into an
// ALARM state from any other state", CloudWatch PutMetricAlarm AlarmActions)
// and stays in ALARM while dead letters wait, so the on-call finds nothing
// open and the letters wait unseen until retention deletes them. An age
// alarm on the dead-letter queue pages again: it saves the letters when its
// page (about age_alarm after the first dead letter) is still open when the
// on-call looks (about redrive_after after it).
namespace {
// With re-notification every `every` while the depth alarm stays in ALARM
// (from its first page at 0), whether a page is open at `answer`: each page
// stays open `resolve`; a re-notification opens a new one when none is.
bool renotified_page_open_at(sim::duration resolve, sim::duration every, sim::duration answer) {
  for (sim::duration page = sim::duration::zero(); page <= answer;) {
    // At the very instant a later page resolves, the on-call (whose wait
    // began with the first page) looks first.
    if (answer < page + resolve || (page > sim::duration::zero() && answer == page + resolve)) return true;
    const std::int64_t resolved = (page + resolve).us();
    page = sim::duration::from_us((resolved + every.us() - 1) / every.us() * every.us());
  }
  return false;
}
}  // namespace

void page_resolved_before_answer(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.dead_letter_redrive || !config.dead_letter_redrive->auto_resolve) return;
  const dead_letter_redrive_config& r = *config.dead_letter_redrive;
  if (*r.auto_resolve > r.after) return;
  if (r.age_alarm && *r.age_alarm <= r.after && r.after < *r.age_alarm + *r.auto_resolve) return;
  if (r.renotify_every && renotified_page_open_at(*r.auto_resolve, *r.renotify_every, r.after)) return;
  // Half the pager's timeout before the answer: open then, wherever the minute falls.
  const sim::duration age = r.after - sim::duration::from_us(r.auto_resolve->us() / 2);
  out.push_back(
      {"page_resolved_before_answer",
       "dead_letter_queue.page_auto_resolve",
       fmt::format("The pager resolves a page by itself after {} (page_auto_resolve), before the on-call answers it "
                   "({} after, redrive_after), {}. The depth alarm stays in ALARM while dead letters wait and pages "
                   "only on OK -> ALARM, so nothing is open when the on-call looks: no redrive, and retention deletes "
                   "the dead letters unseen after {}.",
                   text(*r.auto_resolve), text(r.after),
                   r.age_alarm ? fmt::format("and the age alarm's page ({} after the first dead letter) is not open "
                                             "then either",
                                             text(*r.age_alarm))
                   : r.renotify_every
                       ? fmt::format("and no re-notification (every {}) has a page open then", text(*r.renotify_every))
                       : std::string("and no alarm pages again"),
                   text(config.dead_letter.retention)),
       fmt::format("Alarm on the dead-letter queue's ApproximateAgeOfOldestMessage so that its page is open when the "
                   "on-call looks: dead_letter_queue.age_alarm = {}; or re-notify while the alarm stays in ALARM "
                   "(dead_letter_queue.renotify_every = {}); or keep pages open until someone acts (remove "
                   "page_auto_resolve).",
                   toml_duration(age), toml_duration(*r.auto_resolve)),
       {advise("dead_letter_queue.age_alarm", toml_duration(age))}});
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
  // A queue per tenant, fetched by weight: a burst waits in its own queue.
  if (config.tenant_queues) return;
  // A limit per tenant below the workers leaves workers a burst cannot take.
  const std::optional<tenant_limit_config>& limit = config.runtime.tenant_limit;
  if (limit && limit->concurrency < config.workers) return;
  // The ways out this broker takes: a limit per tenant below the workers,
  // a queue per tenant fetched by weight, SQS's fair queues.
  const broker_kind broker = broker_of(config);
  std::vector<std::string> ways;
  std::vector<lint_advice> advice;
  if (broker == broker_kind::sqs && config.message_group == message_group_source::none) {
    ways.emplace_back(
        "set queue.message_group_id = \"tenant\" (SQS fair queues: a standard queue that sees message "
        "group ids serves quiet tenants first while one is noisy)");
    advice.push_back(advise("queue.message_group_id", toml_word("tenant")));
  }
  if (broker != broker_kind::celery && config.workers > 1) {
    ways.emplace_back(
        fmt::format("limit each tenant to fewer slices than there are workers ([tenants] "
                    "concurrency_limit, e.g. {})",
                    config.workers - 1));
    advice.push_back(advise("tenants.concurrency_limit", toml_int(config.workers - 1)));
  }
  if (broker != broker_kind::celery && broker != broker_kind::kafka) {
    ways.emplace_back(
        "give each tenant a queue of its own, fetched by weight ([tenants] queues = \"one_per_tenant\", "
        "Sidekiq's weighted queues)");
    advice.push_back(advise("tenants.queues", toml_word("one_per_tenant")));
  }
  if (ways.empty())
    ways.emplace_back(broker == broker_kind::kafka ? "give each tenant a topic of its own (not modelled here yet)"
                                                   : "route each tenant to a queue of its own (not modelled here yet)");
  std::string fix = capitalized(ways[0]);
  for (std::size_t i = 1; i < ways.size(); ++i) fix += (i + 1 == ways.size() ? ", or " : ", ") + ways[i];
  fix += ".";
  if (config.queue.fifo) {
    // A group per tenant: each tenant's messages go one group at a time
    // (fifo_group_held_by_retry says what that costs).
    if (config.message_group == message_group_source::tenant) return;
    out.push_back({"tenants_share_queue_unfairly", "queue.message_group_id",
                   fmt::format("Jobs of two or more tenants ({}, {}) share one FIFO queue with a message group per "
                               "job: it serves groups in the order they were sent, so a burst from one tenant is a "
                               "backlog every other tenant waits behind (FIFO queues have no fair delivery).",
                               tenants[0], tenants[1]),
                   std::move(fix), std::move(advice)});
    return;
  }
  if (config.message_group == message_group_source::none) {
    out.push_back({"tenants_share_queue_unfairly",
                   broker == broker_kind::sqs ? "queue.message_group_id" : "tenants.concurrency_limit",
                   fmt::format("Jobs of two or more tenants ({}, {}) share one {} that serves the oldest {} first: a "
                               "burst from one tenant is a backlog every other tenant waits behind.",
                               tenants[0], tenants[1], broker == broker_kind::kafka ? "topic" : "queue",
                               broker == broker_kind::kafka ? "record" : "message"),
                   std::move(fix), std::move(advice)});
    return;
  }
  if (config.workers > 30) return;
  out.push_back({"tenants_share_queue_unfairly",
                 "workers.count",
                 fmt::format("Messages carry their tenant as the group id, but {} workers can have at most {} "
                             "messages in flight, and SQS treats a tenant as a noisy neighbour only with at least 30 "
                             "of its own in flight: fair delivery never starts.",
                             config.workers, config.workers),
                 "Run more than 30 consumers at once (workers.count = 31 or more, or messages per worker), or split "
                 "the noisy tenant into a queue of its own.",
                 {advise("workers.count", toml_int(31))}});
}

// FIFO: a producer's re-send is recognised only by the id of the first send.
void fifo_deduplication_per_send(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.queue.fifo || config.deduplication != deduplication_source::per_send) return;
  const std::string consumer =
      config.runtime.rules.work_id == work_id_mode::message
          ? "This consumer keys its work on the messageId (discipline.work_id = \"message\"): it runs the job "
            "twice, each write under a key of its own."
          : "A consumer that checks the job's row acks the second message; one keyed on the messageId runs the "
            "job twice.";
  // botocore builds every retry of a request from the same parameters, so
  // the SDK's own retries carry the same id; the producer's do not.
  out.push_back(
      {"fifo_deduplication_per_send",
       "queue.deduplication",
       "Each send carries a new MessageDeduplicationId: when a send times out after SQS had in fact "
       "accepted it, the producer's retry becomes a second message, since FIFO's 5-minute deduplication "
       "only drops a send whose id it has seen. The job is enqueued twice. " +
           consumer,
       "Set queue.deduplication = \"job_id\" (an id that names the job, the same on every retry) or "
       "\"content\" (ContentBasedDeduplication: the SHA-256 of the body, which names the job).",
       {advise("queue.deduplication", toml_word("job_id")), advise("queue.deduplication", toml_word("content"))}});
}

// A consumer keyed on the messageId: every second message of a job is new
// work to it, and only a FIFO queue's deduplication (5 minutes, with an id
// that names the job) keeps a producer's retry from being one.
void work_id_by_message(const world_config& config, std::vector<lint_warning>& out) {
  if (config.runtime.rules.work_id != work_id_mode::message) return;
  // Off SQS the consumer keyed on the message keeps no record of it: every
  // redelivery is new work (worker::keeps_message_record).
  const bool kafka = config.runtime.kafka.has_value();
  if (kafka || config.queue.pubsub || config.queue.hold_until_ack || config.queue.redis_ack_emulation) {
    const std::string_view again = kafka                         ? "a record re-read after a rebalance or a crash"
                                   : config.queue.pubsub         ? "a message redelivered past its ack deadline"
                                   : config.queue.hold_until_ack ? "a job pushed back at shutdown or retried"
                                                                 : "a message restored unacked or retried";
    // In each broker's words; Sidekiq's fetch holds no lease to outlive.
    const std::string_view forever =
        kafka ? " Slower than max.poll.interval.ms, it may run for ever: each run's record is handed to another "
                "member before its offset is committed."
        : config.queue.pubsub ? " Slower than its ack deadline, it may run for ever: each run's ack comes after the "
                                "message went out again."
        : config.queue.hold_until_ack ? ""
                                      : " Slower than the visibility timeout, it may run for ever: each run's ack "
                                        "comes after the message was restored.";
    out.push_back({"work_id_by_message",
                   "discipline.work_id",
                   fmt::format("The consumer keeps no job table and no record of the messages it handled "
                               "(discipline.work_id = \"message\"): every delivery is new work from the first "
                               "step, so {} runs its effects again.{}",
                               again, forever),
                   "Key the work on the job (discipline.work_id = \"job\": the job row's end, which a redelivery "
                   "finds and acks, and keys like job_17:step_3:refund that the vendor recognises).",
                   {advise("discipline.work_id", toml_word("job"))}});
    return;
  }
  if (config.queue.fifo && config.deduplication == deduplication_source::per_send) return;  // rule 23 says it
  constexpr sim::duration window = sim::duration::from_s(5 * 60);
  const queue_fault* late = nullptr;
  for (const queue_fault& f : config.queue_faults)
    if (f.what == queue_fault::kind::send_timeout && f.resend_after >= window && late == nullptr) late = &f;
  if (config.queue.fifo && late == nullptr) return;
  const std::string why =
      config.queue.fifo
          ? fmt::format(
                "The consumer keys its work on the messageId (discipline.work_id = \"message\"), and a "
                "producer's retry {} after its send comes after FIFO's 5-minute deduplication interval: "
                "a second message, with a messageId of its own, which this consumer runs again from the "
                "first step.",
                text(late->resend_after))
          : std::string(
                "The consumer keys its work on the messageId (discipline.work_id = \"message\"), but a "
                "standard queue deduplicates no send: a producer's retry after a timeout, or a relay that "
                "sends twice, is a second message with a messageId of its own, which this consumer runs "
                "again from the first step, each write under a new key.");
  out.push_back({"work_id_by_message",
                 "discipline.work_id",
                 why,
                 "Key the work on the job (discipline.work_id = \"job\": keys like job_17:step_3:refund, and the "
                 "job row's end, which a second message of the job finds), or send to a FIFO queue whose "
                 "deduplication id names the job, and retry a timed-out send within 5 minutes.",
                 {advise("discipline.work_id", toml_word("job"))}});
}

// FIFO: a job being retried keeps its message in flight, and with it the
// rest of its group.
void fifo_group_held_by_retry(const world_config& config, std::vector<lint_warning>& out) {
  if (!config.queue.fifo || config.message_group != message_group_source::tenant) return;
  const retry_policy& retry = config.runtime.retry;
  if (retry.maximum_attempts == 1) return;  // nothing is retried
  // A tenant with two jobs or more: one can wait behind the other.
  std::map<std::string, std::uint32_t> jobs_of;
  std::string crowded;
  for_each_job(config, [&](const job_spec& job) {
    if (!job.tenant.empty() && ++jobs_of[job.tenant] == 2 && crowded.empty()) crowded = job.tenant;
  });
  if (crowded.empty()) return;
  out.push_back({"fifo_group_held_by_retry",
                 "queue.message_group_id",
                 fmt::format("Messages are grouped by tenant on a FIFO queue, and a job being retried keeps its "
                             "message in flight through each backoff (up to retry.maximum_interval = {}): every "
                             "later job of tenant {} waits behind it, and a job that fails every attempt holds the "
                             "tenant's queue until it gives up ({}).",
                             retry.maximum_interval ? text(*retry.maximum_interval) : std::string("no cap"), crowded,
                             retry.maximum_attempts == 0 ? std::string("never: retry.maximum_attempts = 0")
                                                         : fmt::format("after {} attempts", retry.maximum_attempts)),
                 "Group by what must stay in order (queue.message_group_id = \"job\", or one entity's id), not by "
                 "tenant; a job that has to wait for an earlier one of its tenant says so itself.",
                 {advise("queue.message_group_id", toml_word("job"))}});
}

}  // namespace twice::lint_rules_detail
