#pragma once
// The on-call's answer to a dead-letter alarm: a CloudWatch alarm on the
// dead-letter queue's ApproximateNumberOfMessagesVisible > 0 pages someone
// (AWS: "Creating alarms for dead-letter queues using Amazon CloudWatch"),
// who, `after` the page, runs the redrive runbook:
//
//   1. UPDATE jobs SET status = 'queued', redrives = redrives + 1
//      WHERE id IN (<the dead letters' jobs>) AND status NOT IN ('done', 'failed')
//   2. StartMessageMoveTask from the dead-letter queue back to the source:
//      every message becomes a new one there, with a new id and enqueue
//      time, so its retention starts again.
//
// Step 1 first, so no worker receives a redriven message while its row
// still says dead-lettered (it would ack it as already ended: a message
// lost). Only the messages whose rows step 1 saw are moved; a dead letter
// arriving meanwhile raises the alarm again.
//
// Without a redrive nothing reads the dead-letter queue: its messages wait
// until its retention deletes them (counted from the runtime's send to it,
// or for a message the broker redrove there, from its ORIGINAL enqueue), the
// incident `no_message_lost` catches.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/queue.hpp"
#include "events/event_log.hpp"
#include "sim/kernel.hpp"
#include "sim/task.hpp"

namespace twice {

class store;

struct dead_letter_redrive_config {
  sim::duration after = sim::duration::from_s(3600);  // from the alarm to the move task
  std::uint32_t times = 1;                            // redrives the on-call runs, at most
  friend bool operator==(const dead_letter_redrive_config&, const dead_letter_redrive_config&) = default;
};

class dead_letter_redrive {
 public:
  // The queue a job's messages came from (a split-out job's is the split
  // queue): SQS redrives each message to its own source queue.
  using source_of_job = std::function<queue&(std::string_view job)>;

  dead_letter_redrive(sim::kernel& k, event_log& events, store& db, queue& dead_letters, source_of_job source_of,
                      dead_letter_redrive_config config);
  dead_letter_redrive(const dead_letter_redrive&) = delete;
  dead_letter_redrive& operator=(const dead_letter_redrive&) = delete;
  ~dead_letter_redrive();

  // A message arrived in the dead-letter queue (the world sees the event).
  // Raises the alarm unless it is already raised or no redrive is left.
  void note_arrival();
  // Whether a redrive is still to come for what the queue holds: the story
  // is not over while one is.
  bool pending() const;
  std::uint32_t redrives_run() const { return runs_; }

 private:
  static void alarm_callback(sim::kernel&, void* ctx, std::uint64_t);
  sim::task<void> redrive();

  sim::kernel& kernel_;
  event_log& events_;
  store& db_;
  queue& dead_letters_;
  source_of_job source_of_;
  dead_letter_redrive_config config_;
  ev::name_id actor_ = 0;
  bool alarm_ = false;  // raised and not yet answered by a redrive
  std::uint32_t runs_ = 0;
  sim::process_id process_;
};

}  // namespace twice
