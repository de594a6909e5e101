#pragma once
// The runtime settings a platform engineer tunes: how long a lease lasts,
// how often a slow slice heartbeats, how long a consumer long-polls, the
// retry policy and the handler discipline.

#include <cstdint>
#include <optional>

#include <twice/broker/consumer_group_config.hpp>
#include <twice/runtime/circuit_breaker_config.hpp>
#include <twice/events/discipline.hpp>
#include <twice/runtime/liveness_probe.hpp>
#include <twice/runtime/orphan_rescue_config.hpp>
#include <twice/runtime/retry_breaker_config.hpp>
#include <twice/runtime/retry_budget_config.hpp>
#include <twice/runtime/retry_policy.hpp>
#include <twice/runtime/sidekiq_retry_config.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// When the attempt counter on the job row moves. at_start: when a slice
// claims the job, before any tool runs, so every start counts, a crash
// included. at_failure: only when a slice records a failure (Sidekiq's
// retry_count, raised when a job raises): a slice that dies with its process
// (an OOM, a segfault, a kill) records nothing, so a job that kills its
// worker every time never uses up its attempts and is retried forever.
enum class attempt_counting : std::uint8_t { at_start, at_failure };

// Whether an attempt that failed on a dependency's 503 or 429 (the
// dependency's fault, not the job's) gives its count back. River counts an
// attempt when a job is fetched and decrements it when the job snoozes, so a
// snooze does not use up the job's attempts (riverqueue/river#730). never:
// every attempt counts. once: the attempt counted at the start is taken
// back. twice: the bug, the take-back applied twice (by the executor and
// again by the completer), so each such failure lowers the counter: Kue's
// "job with 3 max_attempts made 16521 attempts, -16518 remaining"
// (Automattic/kue#338). (The model's counter stops at 0; a signed column
// goes negative.) Needs count_attempts = at_start.
enum class attempt_take_back : std::uint8_t { never, once, twice };

// How a failure is counted and when a job is out of attempts, where a
// runtime gets it wrong. Kue (Automattic/kue lib/queue/job.js before
// 0d5ef62) counted a failure on two paths (the worker's TTL-exceeded
// handler and the job's own failure both call Job#failedAttempt, each an
// HINCRBY of `attempts`), and retried `if (remaining)`, remaining = max -
// made: truthy below zero, so a counter that steps over the limit never
// stops ("job with 3 max_attempts made 16521 attempts, -16518 remaining",
// Automattic/kue#338; the fix checks `remaining > 0`).
// once / twice: what a failed attempt adds to the count in all (counted at
// the start, the failure adds the second).
enum class failure_counting : std::uint8_t { once, twice };
// below_limit: attempts left while the count is below the limit.
// not_at_limit: while it is not equal to it (Kue's `if (remaining)`).
enum class attempts_left_check : std::uint8_t { below_limit, not_at_limit };

// A concurrency limit per tenant, shared by every worker: Sidekiq
// Enterprise's concurrent limiter keyed by customer, Oban Pro's partitioned
// global_limit. A worker that receives a job of a tenant already running
// `concurrency` slices gives the message back for `over_limit_delay` (as
// Sidekiq's limiter middleware reschedules a job on OverLimit) and takes
// the next one; no attempt is started or counted.
struct tenant_limit_config {
  std::uint32_t concurrency = 1;
  sim::duration over_limit_delay = sim::duration::from_s(1);
  friend bool operator==(const tenant_limit_config&, const tenant_limit_config&) = default;
};

// Celery's worker over the Redis transport (celery/celery@5dc781f0bd5f,
// celery/app/defaults.py and celery/worker/request.py): runtime/celery_consumer.cpp.
struct celery_config {
  // task_acks_late: ack after the task returned (true) or, the default,
  // just before it runs (Request.on_accepted), so a crash mid-task loses it.
  bool acks_late = false;
  // worker_prefetch_multiplier (default 4) x the concurrency (1 per worker
  // here): messages a worker reserves beyond what runs. ETA tasks held for
  // later do not count (strategy.py, qos.increment_eventually).
  std::uint32_t prefetch_multiplier = 4;
  // task_reject_on_worker_lost: with acks_late, a task whose pool process
  // died is requeued (reject(requeue=True)) instead of acked and failed.
  bool reject_on_worker_lost = false;
  friend bool operator==(const celery_config&, const celery_config&) = default;
};

// A Kafka consumer: the Java client's settings (apache/kafka,
// clients/.../consumer/ConsumerConfig.java) and the group it joins
// (broker/consumer_group.hpp): runtime/kafka_consumer.cpp.
enum class kafka_manual_commit : std::uint8_t { per_batch, per_record };
enum class kafka_client : std::uint8_t { java, librdkafka };
struct kafka_config {
  consumer_group_config group;
  std::uint32_t max_poll_records = 500;  // max.poll.records
  // enable.auto.commit: in poll, once auto.commit.interval.ms has passed,
  // the positions (every record poll returned) are committed.
  bool enable_auto_commit = true;
  sim::duration auto_commit_interval = sim::duration::from_s(5);
  // Without auto-commit: commitSync after each record, or after each batch
  // a poll returned (Spring Kafka's AckMode RECORD or BATCH, its default).
  kafka_manual_commit manual_commit = kafka_manual_commit::per_batch;
  // auto.offset.reset: where a partition with no committed offset starts
  // (Kafka's default "latest": records sent before the group's first
  // assignment are skipped).
  bool reset_to_earliest = false;
  // Which client's consumer. java: auto-commit happens inside poll (the
  // records of earlier polls, all run by then). librdkafka (confluent-kafka
  // for Python, Go and .NET, node-rdkafka, rust-rdkafka): poll returns one
  // message, and a background thread commits the *stored* offsets every
  // auto.commit.interval.ms, whatever the application is doing
  // (confluentinc/librdkafka CONFIGURATION.md, enable.auto.commit:
  // "Automatically and periodically commit offsets in the background").
  kafka_client client = kafka_client::java;
  // librdkafka's enable.auto.offset.store (default true): "Automatically
  // store offset of last message provided to application" (CONFIGURATION.md),
  // so the offset past a record is stored when poll hands it over, and the
  // background commit may commit it while the handler still runs: a crash
  // then loses the record. false: the application stores the offset after
  // the record ran (offsets_store / StoreOffset), as CONFIGURATION.md
  // recommends "for long-time processing applications".
  bool enable_auto_offset_store = true;
  friend bool operator==(const kafka_config&, const kafka_config&) = default;
};

struct runtime_config {
  // The lease each receive asks for; unset: the queue's default.
  std::optional<sim::duration> visibility_timeout;
  // Extend the lease this often while a slice runs; unset: no heartbeat.
  std::optional<sim::duration> heartbeat_interval;
  // The heartbeat stops once the slice's message was received this long ago,
  // while the slice runs on: a Pub/Sub client's max_lease_duration (1 h),
  // after which it drops the message from lease management and the server
  // redelivers it. Unset: no limit.
  std::optional<sim::duration> max_lease_duration;
  sim::duration long_poll = sim::duration::from_s(20);  // SQS's maximum wait
  retry_policy retry;
  // Unset: every retry is made (within retry.maximum_attempts).
  std::optional<retry_budget_config> retry_budget;
  std::optional<retry_breaker_config> retry_breaker;  // [retry.retry_breaker]
  // Unset: no breaker. Set: one per worker process and tool.
  std::optional<circuit_breaker_config> circuit_breaker;
  discipline rules;
  // A crashed worker's pod comes back after this long (Kubernetes restarts
  // a failed container after a back-off starting at 10 s).
  sim::duration restart_delay = sim::duration::from_s(10);
  // A liveness probe answered by the worker's loop; unset: none.
  std::optional<liveness_probe_config> liveness_probe;
  attempt_counting count_attempts = attempt_counting::at_start;
  attempt_take_back uncount_unavailable = attempt_take_back::never;
  failure_counting count_failures = failure_counting::once;
  attempts_left_check attempts_left = attempts_left_check::below_limit;
  // A sweeper that re-queues jobs whose rows say running for too long (Oban's
  // Lifeline, Que's and GoodJob's equivalents); unset: none, only the
  // broker's lease brings a crashed slice's job back.
  std::optional<orphan_rescue_config> orphan_rescue;
  // Unset: a tenant's jobs may take every worker.
  std::optional<tenant_limit_config> tenant_limit;
  // After SIGTERM, how long the runtime itself waits for its slices before
  // it pushes their messages back and exits (Sidekiq's -t, default 25 s,
  // lib/sidekiq/launcher.rb and manager.rb#hard_shutdown); unset: it waits
  // until Kubernetes kills the pod at the grace period's end.
  std::optional<sim::duration> shutdown_timeout;
  // A per-attempt execution timeout, from the attempt's start; unset: none.
  // What happens at the limit is the flavour's (runtime/execution_timeout.hpp):
  // the worker process is killed (SQS: Laravel's --timeout, a Lambda function
  // timeout), the Celery pool process is killed and the task fails
  // (time_limit), or the handler raises (Sidekiq's Timeout.timeout, an
  // application timeout on Pub/Sub and Kafka).
  std::optional<sim::duration> execution_timeout;
  // Sidekiq's JobRetry, where it differs from v8.1.7's defaults.
  sidekiq_retry_config sidekiq_retry;
  // Set: the workers are Celery workers (the queue does Redis ack emulation).
  std::optional<celery_config> celery;
  // Set: the workers are Kafka consumers of one group reading a topic.
  std::optional<kafka_config> kafka;
};

}  // namespace twice
