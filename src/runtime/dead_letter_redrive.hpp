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
//
// With an auto-resolving pager or an age alarm (alarm_states()), the alarms
// keep CloudWatch's states: each is OK or ALARM (INSUFFICIENT_DATA only
// before its first datapoint, not traced), evaluated once a period (60 s:
// SQS sends its metrics to CloudWatch every minute; one datapoint of one),
// and its action, the page, runs only on the transition to ALARM ("the
// actions to execute when this alarm transitions into an ALARM state from
// any other state", PutMetricAlarm AlarmActions; "Using Amazon CloudWatch
// alarms", alarm states). The depth alarm stays in ALARM while any dead
// letter is held, so a second dead letter pages nobody; the return to OK
// resolves its open incident (the pager integration's resolve on OK). The
// on-call answers a page `after` it, and runs the runbook only if the
// pager still shows an incident open then: one that auto-resolved first
// goes unanswered, and its dead letters wait for retention unseen. The age
// alarm measures from the arrival in the dead-letter queue (SQS: "The
// ApproximateAgeOfOldestMessage metric indicates when the message moved to
// the dead-letter queue", "Setting-up dead-letter queue retention"), so
// with a threshold below the retention it pages again, in time.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/runtime/dead_letter_redrive_config.hpp>
#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>

#include "broker/queue.hpp"

namespace twice {

class store;

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
  void note_arrival(std::string_view body);
  // A message left the dead-letter queue (retention, a move task): the
  // alarms look again at the next period.
  void note_departure();
  // Whether a redrive is still to come for what the queue holds: the story
  // is not over while one is.
  bool pending() const;
  std::uint32_t redrives_run() const { return runs_; }

 private:
  enum class alarm : std::uint8_t { depth, age };
  enum class incident_state : std::uint8_t { open, auto_resolved, alarm_ok, redriven };
  struct incident {
    alarm from = alarm::depth;
    incident_state state = incident_state::open;
  };
  struct arrival {
    sim::instant at;
    std::string body;
  };

  static void alarm_callback(sim::kernel&, void* ctx, std::uint64_t);
  static void evaluate_callback(sim::kernel&, void* ctx, std::uint64_t);
  static void auto_resolve_callback(sim::kernel&, void* ctx, std::uint64_t incident);
  static void renotify_callback(sim::kernel&, void* ctx, std::uint64_t alarm_and_spell);
  void arm_renotify(alarm which);
  sim::task<void> redrive();
  sim::task<void> answer(std::size_t incident);
  sim::task<void> runbook();
  // Alarm states: evaluate at the end of the current period.
  void evaluate_at_period_end(sim::instant after);
  void evaluate();
  void arm_age_check();
  void set_state(alarm which, bool in_alarm, std::int64_t value);
  void open_incident(alarm which);
  void close_incidents(incident_state why, std::optional<alarm> of);
  bool any_open() const;

  bool depth_alarm_ = false;  // in ALARM
  bool age_alarm_ = false;
  // Each alarm's spells in ALARM, counted: a re-notification timer from an
  // earlier spell finds the count moved on and does nothing.
  std::uint64_t depth_spells_ = 0;
  std::uint64_t age_spells_ = 0;
  std::uint32_t evaluations_pending_ = 0;
  std::uint32_t answers_pending_ = 0;
  std::optional<sim::instant> age_check_;  // the age alarm's next look
  std::vector<arrival> arrivals_;          // in arrival order; pruned as messages leave
  std::vector<incident> incidents_;
  std::vector<sim::process_id> answers_;

  sim::kernel& kernel_;
  event_log& events_;
  store& db_;
  queue& dead_letters_;
  source_of_job source_of_;
  dead_letter_redrive_config config_;
  ev::name_id actor_ = 0;
  bool alarm_states_ = false;
  bool alarm_ = false;  // raised and not yet answered by a redrive
  std::uint32_t runs_ = 0;
  sim::process_id process_;
};

}  // namespace twice
