#pragma once
// The far side of a call, as every simulated tool shares it: how long the far
// side takes (latency_model), when it is down or slow (fault windows), and
// whether its answer reaches the caller before the caller gives up
// (answer_desk, response_desk, remote_endpoint). The payment vendor and the simple tools
// (email, model, read) are built from these pieces, so a timeout means the
// same thing for every tool.
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
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/check.hpp"
#include "sim/distributions.hpp"
#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"
#include "events/event_log.hpp"
#include "sim/trace.hpp"
#include "tools/tool.hpp"

namespace twice {

// ---- latency ---------------------------------------------------------------

// A distribution of durations. Values, not a class hierarchy: configs copy
// them and a scenario file names one of three shapes.
class latency_model {
 public:
  enum class shape : std::uint8_t { fixed, uniform, lognormal };

  // fixed(0): a default so configs can be built field by field.
  latency_model() = default;

  static latency_model fixed(sim::duration value);
  // Whole microseconds uniform in [lo, hi] inclusive.
  static latency_model uniform(sim::duration lo, sim::duration hi);
  // Lognormal with the given median and 99th percentile (0 < p50 <= p99).
  static latency_model lognormal(sim::duration p50, sim::duration p99);

  // fixed: no draw; uniform: one uniform_int; lognormal: one standard normal
  // (Marsaglia polar, a variable number of raw draws).
  sim::duration sample(sim::random_stream& rng) const;

  // The 99th percentile: fixed: the value; uniform: lo + floor(0.99 (hi - lo));
  // lognormal: p99 as given. The linter compares it with visibility timeouts.
  sim::duration p99() const;
  shape kind() const { return shape_; }

  // "fixed(250ms)", "uniform(10ms..50ms)", "lognormal(p50=200ms, p99=2s)".
  std::string describe() const;

 private:
  shape shape_ = shape::fixed;
  sim::duration first_ = sim::duration::zero();   // fixed: value; uniform: lo; lognormal: p50
  sim::duration second_ = sim::duration::zero();  // uniform: hi; lognormal: p99
  sim::lognormal_params params_us_{0.0, 0.0};     // lognormal only
};

// ---- faults ----------------------------------------------------------------

// [begin, end): half open, so back-to-back windows never overlap.
struct time_window {
  sim::instant begin;
  sim::instant end;
  bool contains(sim::instant t) const { return begin <= t && t < end; }
};

// Extra latency for executions that *arrive* inside the window.
struct latency_spike {
  time_window window;
  sim::duration extra = sim::duration::zero();
};

// Probabilities are exact ratios in parts per million (the kernel rules:
// no floating-point probabilities).
inline constexpr std::uint32_t ppm_denominator = 1'000'000;

// True with probability ppm / 1e6; always exactly one bernoulli draw.
bool draw_ppm(sim::random_stream& rng, std::uint32_t ppm);

// error_code values shared by every simulated tool.
namespace error_codes {
inline constexpr std::string_view timeout = "timeout";          // status 0: no answer in time
inline constexpr std::string_view unavailable = "unavailable";  // 503 before any effect
}  // namespace error_codes

// ---- statistics --------------------------------------------------------------

inline constexpr sim::duration request_bucket_width = sim::duration::from_ms(100);

// Requests per 100 ms, in memory that does not grow with the run: the bucket
// being filled and the tallest few seen (a run of days has millions of
// buckets, and a report wants the peak and where it was).
class request_buckets {
 public:
  struct bucket {
    std::int64_t index = 0;  // send_time_us / 100'000
    std::uint64_t requests = 0;
    friend bool operator==(const bucket&, const bucket&) = default;
  };
  static constexpr std::size_t kept = 16;

  // Counts a request sent at `t`; time only moves forward.
  void count(sim::instant t);
  // The tallest buckets, tallest first (the earlier of two the same height).
  const std::vector<bucket>& tallest() const { return tallest_; }
  std::uint64_t peak() const { return tallest_.empty() ? 0 : tallest_.front().requests; }

 private:
  bucket current_{-1, 0};
  std::vector<bucket> tallest_;
};

struct call_stats {
  std::uint64_t calls = 0;            // requests callers sent (lost ones included)
  std::uint64_t executions = 0;       // requests that began executing on the far side
  std::uint64_t client_timeouts = 0;  // callers still alive that got status 0
  // Fresh non-2xx answers by status (replays are not counted again).
  std::map<int, std::uint64_t> rejections_by_status;
  std::uint32_t executing_peak = 0;  // most executions in progress at once
  // The tallest buckets of requests sent per 100 ms of simulated time
  // (bucket = send_time_us / 100'000): a retry stampede shows as a tall one.
  request_buckets requests_per_100ms;
};

// ---- response delivery ---------------------------------------------------------

// Answers of executions in flight: per slot a one-shot signal the caller
// awaits with a deadline, and the response. A slot is recycled once both
// sides are done with it: the far side has delivered (or dropped) its answer,
// and the caller has read it, given up, or died. So a million calls keep only
// as many slots as were ever in flight at once.
//
// The slots sit behind a shared_ptr that every waiting caller also holds:
// when a world is torn down, the kernel may destroy suspended callers after
// the tool itself is gone, and their clean-up must not touch freed memory.
//
// The coroutine lives in the .cpp on purpose: clang 14 cannot compile an
// inline or template coroutine under -fsanitize=function ("Cannot represent a
// difference across sections"), which TWICE_SANITIZE turns on.
class answer_desk {
 public:
  explicit answer_desk(sim::kernel& k);
  answer_desk(const answer_desk&) = delete;
  answer_desk& operator=(const answer_desk&) = delete;

  // A fresh slot for one execution.
  std::uint32_t open();
  // The far side's answer reaches the caller now (if it still waits).
  void deliver(std::uint32_t slot, tool_result response);
  // The far side finished but its answer never reaches the caller.
  void drop(std::uint32_t slot);
  // Caller side: the answer, or nullopt if `deadline` passed first.
  sim::task<std::optional<tool_result>> wait(std::uint32_t slot, sim::instant deadline) const;

  std::size_t slots_allocated() const;

  struct state;  // defined in the .cpp

 private:
  std::shared_ptr<state> state_;
};

// An answer_desk plus what the far side needs to finish each execution
// (`Work`). The far side is done with the Work once it answers, so the Work
// is released then, even if the caller has not read the answer yet.
template <class Work>
class response_desk {
 public:
  explicit response_desk(sim::kernel& k) : answers_(k) {}

  std::uint32_t open(Work work) {
    const std::uint32_t slot = answers_.open();
    // deque: growing at the end keeps references to other slots' Work valid.
    while (works_.size() <= slot) works_.emplace_back();
    works_[slot] = std::move(work);
    return slot;
  }
  Work& work(std::uint32_t slot) {
    TWICE_CHECK(slot < works_.size());
    return works_[slot];
  }
  void deliver(std::uint32_t slot, tool_result response) {
    work(slot) = Work{};
    answers_.deliver(slot, std::move(response));
  }
  void drop(std::uint32_t slot) {
    work(slot) = Work{};
    answers_.drop(slot);
  }
  const answer_desk& answers() const { return answers_; }
  std::size_t records_allocated() const { return answers_.slots_allocated(); }

 private:
  answer_desk answers_;
  std::deque<Work> works_;
};

// ---- the endpoint ----------------------------------------------------------

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
