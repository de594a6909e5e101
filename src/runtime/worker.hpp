#pragma once
// A worker: one pod running the consumer loop of a production job runner.
//
//   lease a message -> start the slice (the attempt counter on the job row
//   goes up before any tool runs) -> run the handler (a heartbeat beside it
//   extends the lease) -> checkpoint the job's end -> ack.
//
// A retryable failure gives the message back with a jittered, capped
// backoff (or sleeps it inside the slice), until the policy's maximum
// attempts, then the job is dead-lettered (with no dead-letter queue it
// fails: Celery's FAILURE, Sidekiq's discard); a non-retryable failure fails the
// job at once. A crash kills every process of the pod at its suspension
// point: only the lease's expiry brings the message back. Deploys stop the
// pod by drain (stop leasing, let in-flight slices finish within a grace
// period) or by kill.
//
// With runtime.celery the worker is a Celery worker instead
// (runtime/celery_consumer.cpp): a fetcher process reserves messages ahead
// (prefetch), ETA tasks wait in its memory, the ack comes before the task
// (or after it, acks_late), a retry publishes a new message with an ETA, and
// a crash inside the task kills its pool process, not the worker.
//
// With runtime.kafka it is a Kafka consumer of a group
// (runtime/kafka_consumer.cpp): poll a batch from its partitions, run each
// record in turn (a retry sleeps in place), commit offsets, rejoin the
// group when it rebalances.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include <twice/events/event_log.hpp>
#include <twice/runtime/faults.hpp>
#include <twice/runtime/handler.hpp>
#include <twice/runtime/retry_policy.hpp>
#include <twice/runtime/runtime_config.hpp>
#include <twice/sim/condition.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/signal.hpp>
#include <twice/sim/trace.hpp>
#include <twice/store/rows.hpp>

#include "broker/queue.hpp"
#include "runtime/circuit_breaker.hpp"
#include "runtime/execution_timeout.hpp"
#include "runtime/job_catalogue.hpp"
#include "runtime/pubsub_ack_deadline.hpp"
#include "runtime/retry_breaker.hpp"
#include "runtime/retry_budget.hpp"
#include "runtime/weighted_fetch.hpp"

namespace twice {

class store;
class kafka_topic;
class consumer_group;

// What every worker of a world shares.
struct runtime_services {
  sim::kernel& kernel;
  event_log& events;
  queue& jobs;
  queue* dead_letters;  // where the runtime sends a job out of attempts; may be null
  store& db;
  handler& job_handler;
  fault_plan& faults;
  const runtime_config& config;
  // Every job's spec by id.
  const job_catalogue& job_specs;
  const std::map<std::string, tool*, std::less<>>& tools;
  // The split discipline: where a handed-off step's job is sent, and (on
  // the split-out jobs' own services) where their parents resume.
  queue* split_queue = nullptr;
  queue* parent_queue = nullptr;
  std::uint64_t next_lease_token = 1;  // fencing tokens, unique per world
  std::uint32_t slices_in_flight = 0;  // across all workers
  // For the run's summary: retries the workers' retry budgets refused (each
  // job dead-lettered instead), and calls their circuit breakers failed fast,
  // by tool.
  std::uint64_t retries_refused_by_budget = 0;
  std::map<std::string, std::uint64_t, std::less<>> calls_refused_by_breaker = {};
  // Slices running per tenant (runtime.tenant_limit), across all workers.
  std::map<std::string, std::uint32_t, std::less<>> running_by_tenant = {};
  // One job queue per tenant ([tenants] queues): the workers fetch from
  // these by weight, waiting on any_job_visible; empty: from `jobs` alone.
  std::vector<weighted_queue> job_queues = {};
  sim::condition* any_job_visible = nullptr;
  // Kafka (runtime.kafka): the topic the jobs are produced to and the group
  // the workers consume it in; then `jobs` carries nothing.
  kafka_topic* topic = nullptr;
  consumer_group* group = nullptr;
};

class worker {
 public:
  // `fetch_rng` orders the job queues of each fetch (runtime/weighted_fetch.hpp);
  // unused with one queue.
  worker(runtime_services& services, std::uint32_t index, std::string sha, sim::random_stream backoff_rng,
         sim::random_stream fetch_rng);
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;
  ~worker();

  const std::string& name() const { return name_; }
  sim::kernel& kernel() const { return services_.kernel; }
  const std::string& sha() const { return sha_; }
  bool running() const { return consumer_.valid() && services_.kernel.alive(consumer_); }
  bool busy() const { return slice_ != nullptr; }

  // The pod starts (again): a fresh consumer process, nothing remembered.
  void start();
  // The pod dies now: every process is destroyed at its suspension point.
  // With `restart`, it comes back after the configured restart delay.
  void crash(std::string_view why, bool restart = true);
  // Stop leasing; the current slice, if any, runs on. `drained()` fires
  // when the consumer has exited with nothing in flight.
  void begin_drain();
  // Sidekiq's -t: runtime.shutdown_timeout; unset: none of its own.
  std::optional<sim::duration> shutdown_timeout() const { return services_.config.shutdown_timeout; }
  sim::signal& drained() { return *drained_; }
  // The pod is gone for good (after a drain, or a kill during a deploy).
  void stop(ev::stop_reason why);
  // A deploy replaces the pod with one on a new version.
  void set_sha(std::string sha) { sha_ = std::move(sha); }

 private:
  class slice;
  friend class slice;

  sim::task<void> consume();
  // Celery (runtime/celery_consumer.cpp).
  struct child_lost {  // thrown where a fault crash kills the pool process running the task
    std::string job;
    std::uint32_t attempt = 0;
    receipt_handle handle = 0;
  };
  sim::task<void> consume_celery();
  sim::task<void> fetch_celery();
  std::optional<received_message> next_celery_task();
  sim::task<void> run_celery_task(received_message message);
  sim::task<void> on_worker_lost(const child_lost& lost);
  // Task.retry(countdown=delay): a new message with an ETA, then the ack of this one.
  queue_status republish(const std::string& job, receipt_handle handle, sim::duration delay);
  void restore_reserved();
  void release_held(bool push_back);
  void retry_wrapped_shutdown();
  // Kafka (runtime/kafka_consumer.cpp).
  struct kafka_fetched {
    std::uint32_t partition = 0;
    std::int64_t offset = 0;
  };
  sim::task<void> consume_kafka();
  sim::task<std::vector<kafka_fetched>> kafka_poll();
  void kafka_assigned();
  std::vector<kafka_fetched> kafka_fetch();
  // Commits `offsets` (partition -> next offset) it has not committed yet;
  // false when the group refused (the member is out of the generation).
  bool kafka_commit(const std::map<std::uint32_t, std::int64_t>& offsets, bool automatic);
  const std::map<std::uint32_t, std::int64_t>& kafka_auto_commit_offsets() const;
  sim::task<void> kafka_commit_in_background();
  // The record a slice ran is processed ("the ack"): commitSync it when
  // committing after each record.
  void kafka_processed(const received_message& record);
  void kafka_store(std::uint32_t partition, std::int64_t next);
  sim::task<void> kafka_recover(const std::string& job);
  // The batch stops at `from`: its records run again from the next poll.
  void kafka_seek_back(const std::vector<kafka_fetched>& batch, std::size_t from);
  // The process died: the group stops hearing its heartbeats.
  void kafka_heartbeats_stop();
  // `source`: the queue the message came from; null for a Kafka record.
  sim::task<void> run_slice(queue* source, received_message message);
  sim::task<void> heartbeat(queue& source, receipt_handle handle, slice* s);
  sim::task<void> probe_liveness();
  static void liveness_kill_callback(sim::kernel&, void* ctx, std::uint64_t incarnation);
  sim::task<void> ack(slice& s);
  static std::string message_marker(const slice& s, std::string_view what);
  // discipline.work_id = "message": whether this flavour's consumer keeps a
  // record per message (SQS) or none (every delivery is new work).
  static bool keeps_message_record(const slice& s);
  // Records, in `tx`, that the slice's message ended (discipline.work_id = "message" only).
  sim::task<void> note_message_ended(const slice& s, transaction& tx);
  sim::task<void> finish(slice& s, job_status status, std::string_view error);
  sim::task<void> retry_later(slice& s, const slice_outcome& outcome);
  // `failed`: the slice failed (its failure counts with count_attempts = at_failure).
  // Out of attempts (or retries refused): to the dead-letter queue, or, with
  // none, the job fails (Celery's FAILURE, Sidekiq's discard).
  // `discard`: dropped, in no dead set whatever the world has (Sidekiq's
  // :discard), with `reason` as the job's last error.
  sim::task<void> dead_letter(slice& s, std::string_view reason, bool failed = false, bool discard = false);
  // Sidekiq's JobRetry with the job's sidekiq_retry_in or retry_for
  // (worker_job_retry.cpp); job_retry_overridden says when retry_later
  // takes that road, which without them is the plain schedule's.
  bool job_retry_overridden(const slice& s) const;
  sim::task<void> sidekiq_process_retry(slice& s, const slice_outcome& outcome);
  std::string given_up_error(const slice& s, std::string_view reason) const;
  sim::task<void> record_failure(slice& s, std::string_view error);
  std::uint32_t attempts_taken_back(const slice_outcome& outcome) const;
  // What a failure adds to the row's attempts (runtime.count_failures), and
  // the count once this slice's failure is counted.
  std::uint32_t attempts_per_failure() const;
  std::uint32_t attempts_after_failure(const slice& s) const;
  // Whether `attempts` leaves none under `limit` (0: unlimited), by
  // runtime.attempts_left.
  bool out_of_attempts(std::uint32_t attempts, std::uint32_t limit) const;
  sim::task<void> hand_off(slice& s, std::size_t step);
  // A split-out job's end, written to its parent in the same transaction.
  sim::task<void> update_parent(transaction& tx, const continuation& then, job_status status, std::string_view error);
  void after_parent_update(const slice& s, job_status status, std::string_view why);
  // How a Pub/Sub client nacks a failed slice (discipline.retry = "nack"):
  // the modack it sends (0, or a Retry-After), the subscription's backoff
  // (the envelope: no jitter), how long the message then waits (the backoff
  // or a longer Retry-After), the policy's cap.
  struct pubsub_nack {
    bool pubsub = false;  // false: not a Pub/Sub nack, nothing else is set
    sim::duration modack;
    sim::duration backoff;
    sim::duration delay;
    sim::duration cap;
  };
  // `subscription`: a Pub/Sub nack, whose wait is the subscription's RetryPolicy's.
  void trace_backoff(const slice& s, const slice_outcome& outcome, sim::duration delay, retry_mode mode,
                     const pubsub_nack* subscription = nullptr);
  pubsub_nack pubsub_nack_of(const slice& s, const slice_outcome& outcome) const;
  // Reports an event as this worker (actor worker/N).
  template <class Payload>
  void emit(const Payload& payload) {
    services_.events.emit(actor_, payload);
  }
  ev::name_id name_of(std::string_view text) { return services_.events.name(text); }
  void stop_heartbeat();
  void begin_slice(slice* s);
  // The slice is over (`how`: "returned", "crashed", "killed"); traced.
  void end_slice(std::string_view how);
  void kill_processes();
  static void restart_callback(sim::kernel&, void* ctx, std::uint64_t generation);

  runtime_services& services_;
  std::string name_;
  ev::name_id actor_ = 0;  // name_ in the event log
  std::string sha_;
  ev::name_id sha_name_ = 0;  // sha_ in the event log, from the first start()
  backoff backoff_;
  sim::random_stream fetch_rng_;
  std::optional<retry_budget> retry_budget_;    // runtime.retry_budget, this process's own
  std::optional<retry_breaker> retry_breaker_;  // runtime.retry_breaker, this process's own
  // A Pub/Sub streaming pull client's own ack deadline, with lease management on.
  std::optional<pubsub_ack_deadline> pubsub_deadline_;
  // runtime.circuit_breaker: this process's, one per tool it has called.
  std::map<std::string, circuit_breaker, std::less<>> breakers_;
  circuit_breaker* breaker_for(std::string_view tool);
  // `give_up_at`: the caller stops waiting then (a raising execution
  // timeout); the call runs on in a process of its own, its far side unaware.
  sim::task<tool_result> call_tool(tool& t, tool_call request, std::string_view tool_name, ev::name_id tool_id,
                                   std::optional<sim::instant> give_up_at);
  // runtime.execution_timeout (runtime/execution_timeout.hpp).
  execution_timeout_action timeout_action() const;
  void arm_execution_timeout(slice& s);
  static void execution_timeout_callback(sim::kernel&, void* ctx, std::uint64_t serial);
  sim::task<void> after_time_limit(child_lost lost);
  // Celery: acks the task's message and marks it failed with `error`.
  sim::task<void> fail_celery_task(const child_lost& lost, const std::string& error);
  sim::process_id consumer_;
  sim::process_id heartbeat_;
  sim::process_id prober_;
  // super_fetch: this process's periodic orphan check.
  sim::process_id orphan_checker_;
  sim::task<void> check_orphans_forever();
  void recover_orphans();
  // The tool call blocking this pod's loop, if any: what a liveness probe
  // waits on. calls_started_ tells one call from the next.
  bool in_call_ = false;
  std::uint64_t calls_started_ = 0;
  slice* slice_ = nullptr;  // the slice in flight, owned by the consumer's frame
  // The killing execution timeout armed for the attempt in flight (0: none),
  // and the last one armed: a timer whose serial is not armed_timeout_ is stale.
  std::uint64_t armed_timeout_ = 0;
  std::uint64_t timeout_serial_ = 0;
  bool draining_ = false;
  std::uint64_t incarnation_ = 0;  // bumped on every start, so a stale restart is ignored
  std::unique_ptr<sim::signal> drained_;
  // Celery: what the fetcher reserved and the executor has not started, in
  // arrival order; the tasks held for their ETA, soonest first; the fetcher.
  std::deque<received_message> reserved_;
  std::vector<received_message> eta_held_;
  sim::process_id fetcher_;
  sim::process_id offset_committer_;               // Kafka with librdkafka: the background auto-commit
  std::unique_ptr<sim::condition> task_ready_;     // the executor waits here
  std::unique_ptr<sim::condition> prefetch_room_;  // the fetcher waits here
  // Kafka: this process's member id (empty until it joins, and again once
  // it learns it was removed), the generation it joined, its partitions,
  // and by partition the next offset to fetch (the position), the next
  // after the last record processed, and the last offset it committed.
  struct kafka_state {
    std::string member;
    std::int64_t generation = -1;
    std::vector<std::uint32_t> partitions;
    std::map<std::uint32_t, std::int64_t> position, processed, committed;
    // librdkafka's offset store (runtime_config.hpp): the offset its
    // auto-commit commits, past the last record handed to the handler
    // (enable.auto.offset.store) or that ran (offsets_store after it).
    std::map<std::uint32_t, std::int64_t> stored;
    // Failures of the runtime's own steps, by (partition, offset), as
    // Spring's FailedRecordTracker counts them.
    std::map<std::pair<std::uint32_t, std::int64_t>, std::uint32_t> failures;
    sim::instant next_auto_commit;
    std::size_t next_partition = 0;  // where the next fetch starts, in turn
    bool batch_broken = false;       // a commit failed: the rest of the batch waits for the next poll
  } kafka_;
};

}  // namespace twice
