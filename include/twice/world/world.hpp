#pragma once
// A whole world built from one configuration: the queue (and its dead-letter
// queue), the store, the tools, the workers, the handler, and the faults and
// deploys that interrupt them — all on one kernel, one trace and one root
// seed, each component drawing from its own named stream.
//
// The story ends when every job has ended (done, failed or dead-lettered):
// the workers are then shut down and the kernel runs on to quiescence so
// what the models still have scheduled (a vendor commit after a client
// timeout, a dead letter's retention expiry) still happens and is traced.
// The time limit and the event budget bound every run; hitting one is a
// reported outcome, never a hang.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <twice/broker/queue_config.hpp>
#include <twice/events/event_log.hpp>
#include <twice/faults/deploy_spec.hpp>
#include <twice/faults/fault_specs.hpp>
#include <twice/runtime/dead_letter_redrive_config.hpp>
#include <twice/runtime/job.hpp>
#include <twice/runtime/runtime_config.hpp>
#include <twice/runtime/workload_spec.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/trace.hpp>
#include <twice/store/store.hpp>
#include <twice/vendors/call_stats.hpp>
#include <twice/vendors/service_tool_config.hpp>
#include <twice/world/queue_health.hpp>

namespace twice {

struct timed_crash {
  sim::instant at;
  std::uint32_t worker = 0;
  bool restart = true;
};

// The split discipline's queue and its consumers (used when
// runtime.rules.split_tool names a tool): its visibility timeout is chosen
// for the slow call, so a slice there outlives nothing.
struct split_config {
  queue_config queue{.name = "jobs-slow", .visibility_timeout = sim::duration::from_s(15 * 60)};
  std::uint32_t workers = 1;
};

// One job queue per tenant ([tenants] queues = "one_per_tenant"): the
// producer sends a job to its tenant's queue ("jobs-<tenant>"; a job without
// a tenant to "jobs"), every queue like [queue], and the workers fetch from
// them by weight as Sidekiq does (runtime/weighted_fetch.hpp).
struct tenant_queues_config {
  std::map<std::string, std::uint32_t, std::less<>> weights;  // by tenant; a tenant not named: 1
  friend bool operator==(const tenant_queues_config&, const tenant_queues_config&) = default;
};

// What the producer sets as a message's MessageGroupId: none, the job's
// tenant (a job without one: its own id), or the job's id.
enum class message_group_source : std::uint8_t { none, tenant, job };

// What the producer sets as a FIFO message's MessageDeduplicationId: the
// job's id; none, with the queue's ContentBasedDeduplication on (the body is
// the job id, so the same in effect); or a new id for every send (a UUID per
// call: a re-send of the same job is not recognised).
enum class deduplication_source : std::uint8_t { job_id, content, per_send };

// The models a world is made of. Their classes are private (src/): a
// program that links twice reads a run through the world's results, its
// events and its checkers, not through the models' own interfaces.
class queue;
class kafka_topic;
class consumer_group;
class service_tool;
class worker;
class job_book;
struct world_state;
// A program's own handler and tools (runtime/handler.hpp, tools/tool.hpp).
class handler;
class tool;

struct world_config {
  std::uint64_t seed = 1;
  sim::duration time_limit = sim::duration::from_s(24 * 3600);
  // How often the outbox relay polls (used with the outbox discipline).
  sim::duration relay_poll_interval = sim::duration::from_ms(500);
  // How often the queues' counters are sampled into the trace; zero: never.
  sim::duration sample_interval = sim::duration::from_s(1);
  // How far behind the queue its sampled counters are: each sample shows the
  // counts of the last sample at least this old (SQS's approximate counters
  // "may not achieve consistency until at least 1 minute after the producers
  // stop sending messages", GetQueueAttributes). Zero: exact and instant.
  sim::duration counter_lag = sim::duration::zero();
  std::uint64_t event_budget = 50'000'000;
  // Bytes the world may hold (world::held_bytes(), checkers included), checked
  // every memory_check_every events; past it the run ends, reported like
  // the event budget. Zero: unchecked.
  std::uint64_t memory_budget = std::uint64_t{1} << 30;
  sim::trace_recorder::retention trace_retention = sim::trace_recorder::retention::keep_records;

  queue_config queue;
  // none: no group, the queue serves oldest first; tenant: the job's tenant,
  // so the queue's fair delivery sees noisy neighbours (broker/queue.hpp).
  message_group_source message_group = message_group_source::none;
  // FIFO queues (queue.fifo) only; a FIFO queue needs a group other than none.
  deduplication_source deduplication = deduplication_source::job_id;
  // no_tenant_starved's bound: a tenant that sent no more than its share of
  // the jobs must see its jobs' 99th-percentile queue wait within it.
  sim::duration tenant_wait_bound = sim::duration::from_s(60);
  // Unset: one job queue that every tenant shares.
  std::optional<tenant_queues_config> tenant_queues;
  // The alarms on the job queue backlog_within_bound holds its samples to.
  queue_alarms alarms;
  bool dead_letter_queue = true;
  // Kept 14 days (SQS's most), longer than the source queue's 4, as AWS
  // advises: a dead letter's retention counts from its first enqueue. (An
  // SQS queue created with defaults keeps 4 days; lint's dead_letters_unread
  // says why that loses messages.)
  queue_config dead_letter{.name = "jobs-dlq", .retention = sim::duration::from_s(14 * 24 * 3600)};
  // The on-call's redrive when the dead-letter alarm goes off; unset: nobody
  // reads the dead-letter queue. Needs dead_letter_queue.
  std::optional<dead_letter_redrive_config> dead_letter_redrive;

  std::uint32_t workers = 2;
  std::string sha = "v1";
  runtime_config runtime;
  split_config split;
  store_config store;

  service_tool_config payments = payment_tool_config();
  service_tool_config email = email_tool_config();
  service_tool_config model = model_tool_config();
  service_tool_config read = read_tool_config();
  // The scenario's own tools ([tools.NAME]), steps call them by name.
  std::vector<service_tool_config> tools;
  // Tools and handlers of the program's own (world/registry.hpp), by the
  // names they were registered under: [tools.NAME] implementation = "...",
  // and [[job_type]] handler = "..." (jobs of that type run it; every other
  // job runs the built-in handler, or the one given to the world).
  struct registered_tool {
    std::string name;            // how steps call it
    std::string implementation;  // its registered name
    // What the tool says of itself (asked once, as the file is loaded), so
    // lint judges its steps as it judges a [tools.NAME] of the file's own.
    bool writes = false;
    bool accepts_key = false;
    bool moves_money = false;
  };
  std::vector<registered_tool> registered_tools;
  std::map<std::string, std::string, std::less<>> handlers_by_type;  // [[job_type]] name -> registered handler

  // The story's jobs: those loaded ([[job]]), then those generated
  // ([workload]) as they arrive. job_count and for_each_job see both.
  std::vector<job_spec> jobs;
  std::optional<workload_spec> workload;

  std::vector<point_fault> point_faults;
  std::vector<queue_fault> queue_faults;
  std::vector<timed_crash> crashes;
  std::vector<deploy_spec> deploys;
};

// Every tool but the payment vendor: email, model, read, then the
// scenario's own in its order.
std::vector<const service_tool_config*> service_tools(const world_config& c);
std::vector<service_tool_config*> service_tools(world_config& c);

// The tenants the story's jobs can name (loaded jobs and the workload's
// job types), sorted.
std::vector<std::string> story_tenants(const world_config& c);

// Whether a step of the story calls the tool steps name `tool` ("refund",
// "email", a [tools.NAME]): a loaded job's, a workload type's, or the agent
// job's (read, model, refund, and email when the workload may email). The
// generated jobs are not walked: their types say what they call.
bool story_calls(const world_config& c, std::string_view tool);

// How many jobs the story has, loaded and generated.
std::size_t job_count(const world_config& c);
// Each of the story's jobs in job order (loaded, then generated); a
// generated spec lives for its call only.
void for_each_job(const world_config& c, const std::function<void(const job_spec&)>& fn);

struct world_result {
  // How the story ended: `stopped` when every job ended; `time_limit` or
  // `event_budget` when a budget ran out first; `quiescent` when nothing was
  // left to happen with jobs still open (a lost message).
  sim::stop_reason reason = sim::stop_reason::quiescent;
  // After the story, how the settling run ended (quiescent, or a budget).
  sim::stop_reason settle_reason = sim::stop_reason::quiescent;
  bool all_jobs_ended = false;
  sim::instant story_end;  // when the story ended: every job ended and nothing ran on (or the run stopped)
  sim::instant now;        // the clock when the run returned
  std::uint64_t events = 0;
  std::uint64_t trace_digest = 0;
  std::uint64_t footprint_peak = 0;  // the most bytes held at a memory check (0: none was made)
};

// How often the world measures what it holds: often enough that a runaway
// world overshoots its budget by little (a few thousand events' worth).
inline constexpr std::uint64_t memory_check_every = 16'384;
// The memory budgets a scenario or the command line may set: below a MiB no
// world runs; past a TiB is a typo.
inline constexpr std::uint64_t memory_budget_min = std::uint64_t{1} << 20;
inline constexpr std::uint64_t memory_budget_max = std::uint64_t{1} << 40;

// A snapshot of a run in progress, for a person watching a long one.
struct world_progress {
  sim::instant now;
  std::uint64_t events = 0;      // dispatched so far
  std::uint64_t jobs_ended = 0;  // story jobs done, failed or dead-lettered (a redrive reopens some)
  std::uint64_t jobs_total = 0;
};
using world_progress_hook = std::function<void(const world_progress&)>;

class world {
 public:
  explicit world(world_config config, handler* custom_handler = nullptr);
  world(const world&) = delete;
  world& operator=(const world&) = delete;
  ~world();

  world_result run();
  // Calls `hook` after every `every_events` events of run(). It only
  // observes: run() then hands the kernel its event budget in slices of
  // that size, and a kernel run stopped by its budget resumes exactly where
  // it stopped (every other stop is checked first), so the schedule, the
  // trace and its digest are the same with a hook or without one. The hook
  // may read the clock or print; it must not touch the world.
  void on_progress(std::uint64_t every_events, world_progress_hook hook);

  const world_config& config() const;
  // Bytes the world holds now (sim/footprint.hpp), its observers included.
  // (Not footprint(): the world observes its own events, and an observer's
  // footprint() is counted inside this sum.)
  std::uint64_t held_bytes() const;
  sim::kernel& kernel();
  // The run's typed events; checkers observe them (add_observer before run()).
  event_log& events();
  const event_log& events() const;
  // The job queue (with [tenants] queues, the one for jobs without a tenant).
  queue& jobs_queue();
  // A tenant's own job queue; null without [tenants] queues.
  queue* tenant_queue(std::string_view tenant);
  queue* dead_letter_queue();
  // runtime.kafka only; null otherwise.
  const kafka_topic* topic() const;
  const consumer_group* group() const;
  queue* split_queue();
  store& db();
  const store& db() const;
  service_tool& payments();
  const service_tool& payments() const;
  service_tool& email();
  // A tool of the scenario's own ([tools.NAME]); null for any other name.
  const service_tool* own_tool(std::string_view name) const;
  // The tools that move money, each with the name steps call it by: the
  // payment vendor ("refund") first, then the scenario's own, in its order.
  struct money_tool {
    std::string_view name;
    const service_tool* tool;
  };
  std::vector<money_tool> money_tools() const;
  // The tool steps call by `name` (the payment vendor is "refund"); null if none.
  const tool* tool_named(std::string_view name) const;
  // What the run leaves holding work when it returns, for the invariants'
  // final pass: every message of every queue (the job, tenant, split and
  // dead-letter queues; visible, delayed, in flight, held by a process or
  // orphaned), each Kafka record at or past its partition's committed
  // offset (every record of a partition with none committed), and the
  // producer's pending resends. A job that never ended and that nothing
  // here names was lost.
  struct held_message {
    std::string_view body;
    bool dead_letter = false;
    std::optional<sim::instant> retention_ends;  // none: kept for ever (a Redis list, a topic, a resend)
  };
  void for_each_held_message(const std::function<void(const held_message&)>& fn) const;
  // The workers in index order: the main pool, then the split queue's.
  worker& worker_at(std::size_t i);
  std::size_t worker_count() const;
  // The jobs' specs, and how each of the story's jobs ended.
  const job_book& jobs() const;
  // The worst of the job queue's samples so far (none when [trace]
  // sample_interval is 0s).
  const queue_peaks& queue_health() const;
  // What each tool counted, by the name steps call it, in the order
  // refund, email, model, read, the scenario's own in its order, then the program's
  // own (registered, counted from the caller's side: world/counted_tool.hpp).
  struct tool_calls {
    std::string_view name;
    const call_stats* stats;
  };
  std::vector<tool_calls> tool_stats() const;
  // What the workers' retry budgets and circuit breakers refused, the split
  // queue's workers included.
  struct refusals {
    std::uint64_t retries_by_budget = 0;
    std::map<std::string, std::uint64_t, std::less<>> calls_by_breaker;  // by tool
  };
  refusals refused() const;
  // Register a tool before run(); steps name it (the payment vendor is
  // "refund", then "email", "model", "read").
  void add_tool(std::string step_name, tool* t);

 private:
  std::unique_ptr<world_state> state_;  // world/world_state.hpp
};

// How the story ended, for machines: "all_jobs_ended", "time_limit",
// "event_budget", or "stuck" (nothing left to happen, jobs still open).
std::string_view end_name(const world_result& r);
// The same for people: "every job ended", "TIME LIMIT reached with jobs open" ...
std::string_view describe_end(const world_result& r);
// After a story that ended, what stopped the run's settling (the models'
// late events: a vendor's commit after a timeout, a dead letter's
// retention): "settled at 86400.000000s, stopped by [budget] time_limit";
// empty when the run stopped with the story.
std::string describe_settling(const world_result& r);

}  // namespace twice
