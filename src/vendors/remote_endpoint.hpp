#pragma once
// The far side of a call, as every simulated tool shares it: how long the far
// side takes (latency_model.hpp), when it is down or slow (tool_faults.hpp),
// what it counts (call_stats.hpp), and whether its answer reaches the caller
// before the caller gives up (answer_desk.hpp, and remote_endpoint here).
// Every tool (service_tool.hpp: the payment vendor, email, model, read and a
// scenario's own) is built from these pieces, so a timeout means the same
// thing for every tool.
//
// Timing rules, the same for every tool:
//   * An answer that runs nothing on the far side (a rejection, a replay)
//     reaches the caller one round trip after the request was sent.
//   * An execution finishes at arrival + sampled latency (+ the extra of any
//     latency spike open at arrival); its answer reaches the caller then.
//   * The caller waits client_timeout from sending. If nothing has arrived by
//     then it gets status 0 (tool_result::timed_out()) and cannot tell
//     whether the far side acted. The far side does not know the caller left
//     and finishes anyway. An answer due exactly at the deadline is in time
//     (the far side's event is scheduled before the caller's deadline timer).
//   * A caller killed mid-call (its coroutine destroyed) does not stop the
//     far side: execution state lives in records the tool owns.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/tools/tool.hpp>
#include <twice/vendors/call_stats.hpp>
#include <twice/vendors/tool_faults.hpp>

#include "vendors/answer_desk.hpp"

namespace twice {

// What every simulated tool shares: its trace actor ("vendor/<name>"),
// request numbering and per-request randomness, fault windows, execution
// accounting, and the answers that involve no execution. The endpoint does
// not decide outcomes; each tool does.
//
// Per-request randomness: request i takes exactly ONE draw from the tool's
// stream and seeds its own stream with it. Whatever request i then draws
// (and however its branches go) never shifts request i+1's values, so a
// changed outcome early in a run does not reshuffle everything after it.
class remote_endpoint {
 public:
  remote_endpoint(sim::kernel& k, event_log& events, sim::random_stream rng, std::string name,
                  sim::duration client_timeout, sim::duration round_trip, call_stats& stats);
  remote_endpoint(const remote_endpoint&) = delete;
  remote_endpoint& operator=(const remote_endpoint&) = delete;

  struct arrival {
    std::uint64_t request_id;  // 1, 2, 3 ... per endpoint
    sim::instant sent_at;
    sim::random_stream rng;  // this request's own stream
  };
  // Numbers a new request, counts it (calls, its 100 ms bucket) and derives
  // its random stream.
  arrival arrive();

  sim::kernel& kernel() const { return *kernel_; }
  sim::instant now() const { return kernel_->now(); }
  const std::string& name() const { return name_; }
  const std::string& actor() const { return actor_; }
  sim::duration client_timeout() const { return client_timeout_; }

  // Fault windows, also added from outside while a run goes on.
  void add_outage(time_window window);
  void add_latency_spike(latency_spike spike);
  bool in_outage(sim::instant t) const;
  sim::duration spike_extra(sim::instant t) const;  // sum over open spikes

  // Execution accounting: begin when execution starts, end when it finishes.
  void begin_execution();
  void end_execution();
  std::uint32_t executing() const { return executing_; }

  // Reports an event of this tool's (actor vendor/<name>).
  template <class Payload>
  void emit(const Payload& payload) const {
    events_->emit(actor_name_, payload);
  }
  ev::name_id name_of(std::string_view text) const { return events_->name(text); }
  const name_table& names() const { return events_->names(); }
  void count_rejection(int status);

  // A rejection that runs nothing: traced ("reject"), counted, and answered
  // one round trip later (or the caller times out first). Stores nothing.
  sim::task<tool_result> reject(std::uint64_t request_id, tool_result response);
  // An answer that runs nothing and is not a rejection (a replay).
  sim::task<tool_result> answer(std::uint64_t request_id, tool_result response);
  // The request never reached the far side: the caller waits out its timeout.
  sim::task<tool_result> lose(std::uint64_t request_id);
  // The execution's answer, or status 0 at sent_at + client_timeout.
  sim::task<tool_result> await_execution(const answer_desk& desk, std::uint32_t slot, std::uint64_t request_id,
                                         sim::instant sent_at);

 private:
  tool_result client_timed_out(std::uint64_t request_id);

  sim::kernel* kernel_;
  event_log* events_;
  sim::random_stream rng_;
  std::string name_;
  std::string actor_;
  ev::name_id actor_name_ = 0;
  sim::duration client_timeout_;
  sim::duration round_trip_;
  call_stats* stats_;
  std::uint64_t next_request_id_ = 1;
  std::uint32_t executing_ = 0;
  std::vector<time_window> outages_;
  std::vector<latency_spike> spikes_;
};

}  // namespace twice
