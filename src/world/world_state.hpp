#pragma once
// What a world holds and does (world/world.hpp is its public face): the
// models, the processes, the arrivals and how the story ends. Private, so
// the installed world.hpp names no concrete model and its layout can
// change without a user's program being rebuilt.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/runtime/runtime_config.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/world/queue_health.hpp>
#include <twice/world/world.hpp>

#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"
#include "broker/queue.hpp"
#include "faults/scripted_faults.hpp"
#include "handlers/agent_handler.hpp"
#include "runtime/dead_letter_redrive.hpp"
#include "runtime/orphan_rescue.hpp"
#include "runtime/outbox_relay.hpp"
#include "runtime/worker.hpp"
#include "runtime/workload.hpp"
#include "vendors/service_tool.hpp"
#include "world/counted_tool.hpp"
#include "world/job_book.hpp"

namespace twice {

// The world observes its own events to learn how jobs end (on_event).
struct world_state final : event_observer {
  world_state(world_config config, handler* custom_handler);
  world_state(const world_state&) = delete;
  world_state& operator=(const world_state&) = delete;
  ~world_state() override;

  world_result run();
  std::uint64_t held_bytes() const;
  queue* tenant_queue(std::string_view tenant);
  void for_each_held_message(const std::function<void(const world::held_message&)>& fn) const;
  void add_tool(std::string step_name, tool* t);

  void on_event(const ev::event& e, const name_table& names) override;
  void note_end(const ev::event& e);
  void mark_end(std::string_view job, job_end how);
  void shut_down();
  sim::run_result run_kernel(sim::run_limits limits);
  world_progress progress() const;
  bool story_over() const;
  static void shutdown_callback(sim::kernel&, void* ctx, std::uint64_t);
  static void crash_callback(sim::kernel&, void* ctx, std::uint64_t index);
  static void enqueue_callback(sim::kernel&, void* ctx, std::uint64_t index);
  static void resend_callback(sim::kernel&, void* ctx, std::uint64_t index);
  void schedule_next_arrival(sim::kernel& k);
  void seed_rows(const job_spec& spec);
  // `again`: the producer's retry of a send that timed out.
  void send_job(std::string_view id, const std::string& tenant, bool again = false);
  // Where a job's message goes: its tenant's queue, or the job queue.
  queue& queue_for(std::string_view tenant);
  std::vector<const queue*> job_queues() const;

  world_config config_;
  sim::kernel kernel_;
  event_log events_;
  sim::random_root random_;
  queue_id_source ids_;
  std::unique_ptr<queue> queue_;
  std::unique_ptr<queue> dlq_;
  // runtime.kafka: the topic the producer sends to and the workers' group
  // (then queue_ carries nothing).
  std::unique_ptr<consumer_group> group_;
  std::unique_ptr<kafka_topic> topic_;
  // [tenants] queues: each tenant's queue, the condition every job queue
  // notifies, and the job queues' trace actors.
  std::map<std::string, std::unique_ptr<queue>, std::less<>> tenant_queues_;
  std::unique_ptr<sim::condition> any_job_visible_;
  std::vector<ev::name_id> job_queue_actors_;
  std::uint64_t fifo_sends_ = 0;  // numbers the per_send deduplication ids
  // The producer's sends that timed out ([[queue_fault]] send_timeout), each
  // sent again when its resend_after has passed; the story is not over while
  // one is pending.
  struct resend {
    std::string job;
    std::string tenant;
  };
  std::map<std::uint64_t, resend> resends_;  // pending, by the order they timed out
  std::uint64_t resends_made_ = 0;
  std::unique_ptr<store> store_;
  std::unique_ptr<service_tool> payments_;
  std::unique_ptr<service_tool> email_;
  std::unique_ptr<service_tool> model_;
  std::unique_ptr<service_tool> read_;
  std::vector<std::unique_ptr<service_tool>> own_tools_;
  std::vector<std::unique_ptr<counted_tool>> registered_tools_;  // config_.registered_tools' order
  std::map<std::string, tool*, std::less<>> tools_;
  job_book book_;
  // The arrivals: job i's (in job order) takes place arrivals_seq_ + i in
  // the kernel's order; they fire in enqueue_at order, ties by job order.
  // Loaded jobs go in `loaded_order_` (job order unless the list is out of
  // time order); generated ones come from the generator one at a time, in
  // time order; the next arrival is the earlier of the two heads.
  std::uint64_t arrivals_seq_ = 0;
  std::vector<std::uint32_t> loaded_order_;
  std::size_t loaded_next_ = 0;
  std::optional<workload_generator> generator_;
  std::optional<generated_job> generated_next_;
  std::unique_ptr<agent_handler> default_handler_;
  std::unique_ptr<handler> handler_by_type_;  // when config.handlers_by_type names any
  handler* handler_;
  std::unique_ptr<scripted_faults> faults_;
  std::unique_ptr<runtime_services> services_;
  std::unique_ptr<queue> split_queue_;
  runtime_config split_runtime_;
  std::unique_ptr<runtime_services> split_services_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::vector<sim::process_id> deploys_;
  sim::process_id sampler_;
  std::unique_ptr<outbox_relay> relay_;
  std::unique_ptr<dead_letter_redrive> redrive_;
  std::unique_ptr<orphan_rescue> rescue_;
  ev::name_id dlq_actor_ = 0;
  queue_peaks queue_peaks_;
  std::size_t open_jobs_ = 0;
  std::uint64_t footprint_peak_ = 0;
  sim::instant story_end_;
  bool shutting_down_ = false;
  bool shutdown_scheduled_ = false;
  std::uint64_t progress_every_ = 0;
  world_progress_hook progress_hook_;
};

}  // namespace twice
