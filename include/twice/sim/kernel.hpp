#pragma once
// The kernel: a virtual clock and one event queue ordered by (time, sequence).
//
// Two kinds of entry share the queue:
//   * callbacks: a plain function pointer with a context and an argument;
//   * process wakes: "resume process P if it is still waiting on wait W".
// A process (a C++20 coroutine, see sim/task.hpp) waits by taking a fresh
// wait token; anything that may wake it (a timer, a signal, a channel send)
// names that token. The first wake to be *dispatched or claimed* consumes the
// token, so every other wake for the same wait becomes stale and is skipped.
// That is how a timeout races a signal, and how a killed process's pending
// timers never resume it (killing advances the token too). Equal times run
// in scheduling order: the sequence number is the tie-break, so the same
// program produces the same schedule on every machine.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include <twice/sim/check.hpp>
#include <twice/sim/coroutine.hpp>
#include <twice/sim/frame_pool.hpp>
#include <twice/sim/time.hpp>

namespace twice::sim {

class kernel;
template <class T>
class task;

// A process's identity: slot index plus the slot's generation, so an id of a
// finished or killed process never names the slot's next occupant.
struct process_id {
  std::uint32_t index = UINT32_MAX;
  std::uint32_t generation = 0;
  friend bool operator==(process_id, process_id) = default;
  bool valid() const { return index != UINT32_MAX; }
};

// Why a waiting process was resumed.
enum class wake_reason : std::uint8_t { none, timer, signal };

enum class stop_reason : std::uint8_t {
  quiescent,      // nothing left to do: the queue is empty
  time_limit,     // the next event lies past run_limits::until
  event_budget,   // run_limits::max_events events were dispatched
  stopped,        // request_stop() was called: the model decided its story ended
  memory_budget,  // never returned by the kernel: a caller that checks the
                  // memory held between slices of a run ends it with this
};
std::string_view to_string(stop_reason);
// A run stopped by one of its budgets, not by its own end.
constexpr bool is_budget(stop_reason r) {
  return r == stop_reason::time_limit || r == stop_reason::event_budget || r == stop_reason::memory_budget;
}

struct run_limits {
  instant until = instant::max();         // events at exactly `until` still run
  std::uint64_t max_events = UINT64_MAX;  // dispatched events in this call
};

struct run_result {
  stop_reason reason = stop_reason::quiescent;
  std::uint64_t events = 0;  // events dispatched in this call
  instant now;
};

using callback_fn = void (*)(kernel&, void* ctx, std::uint64_t arg);

namespace detail {
// Every coroutine run by the kernel carries the kernel and its process, so
// awaitables deep in a call chain know whom to suspend.
struct promise_base {
  // Frames come from the per-thread frame pool (sim/frame_pool.hpp).
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { free_frame(frame, bytes); }

  kernel* owner = nullptr;
  process_id pid;
  std::coroutine_handle<> continuation;
  std::exception_ptr exception;
};

template <class P>
promise_base& base_of(std::coroutine_handle<P> h) {
  return static_cast<promise_base&>(h.promise());
}
}  // namespace detail

class kernel {
 public:
  kernel() = default;
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;
  ~kernel();

  instant now() const { return now_; }

  // ---- callbacks -------------------------------------------------------
  void schedule_at(instant at, callback_fn fn, void* ctx = nullptr, std::uint64_t arg = 0);
  void schedule_after(duration d, callback_fn fn, void* ctx = nullptr, std::uint64_t arg = 0) {
    TWICE_CHECK(d >= duration::zero());
    schedule_at(now_ + d, fn, ctx, arg);
  }

  // A block of `n` consecutive places in the (time, sequence) order, taken
  // now; returns the first. An event later scheduled into one of them with
  // schedule_reserved() orders exactly as if it had been scheduled now. A
  // long series known up front (a workload's arrivals) then need not sit in
  // the queue all at once: each is scheduled when the one before it fires,
  // and the queue holds what is pending, not the whole future.
  std::uint64_t reserve_sequence(std::uint64_t n);
  // Schedules into a reserved place. Each place is used at most once (the
  // caller's bookkeeping), and (at, seq) must come after the event being
  // dispatched: an event never lands before one that already ran.
  void schedule_reserved(instant at, std::uint64_t seq, callback_fn fn, void* ctx = nullptr, std::uint64_t arg = 0);

  // ---- processes -------------------------------------------------------
  // Takes ownership of the coroutine; it starts at the current time, after
  // everything already scheduled for now.
  process_id spawn(task<void> body, std::string name = {});
  // Destroys the process at its suspension point: its locals are destroyed,
  // nothing after the suspension point runs, and its pending wakes are
  // stale. A process killing itself dies when it next suspends. Returns
  // false when the process had already ended.
  bool kill(process_id pid);
  bool alive(process_id pid) const;
  const std::string& name(process_id pid) const;
  // The process being resumed right now (invalid outside a process).
  process_id current() const { return current_; }
  std::size_t live_processes() const { return live_processes_; }

  // ---- running ---------------------------------------------------------
  run_result run(run_limits limits = {});
  // Ends the current run() after the event being dispatched (for a model
  // whose story is over while timers it no longer cares about remain).
  void request_stop() { stop_requested_ = true; }
  std::uint64_t events_dispatched() const { return events_dispatched_; }
  // Bytes held for pending events and processes (sim/footprint.hpp); a live
  // process's coroutine frames are counted at a fixed estimate.
  std::uint64_t footprint() const;
  std::size_t pending() const { return queue_.size(); }

  // ---- the wait protocol used by awaitables (sim/sleep.hpp, sim/condition.hpp, sim/wait_list.hpp)
  // Starts a new wait of process `pid` that will resume `resume_point`;
  // returns the token every wake of this wait must carry.
  std::uint64_t begin_wait(process_id pid, std::coroutine_handle<> resume_point);
  // Schedules a wake of the wait `token` at `at` (a timer).
  void wake_at(instant at, process_id pid, std::uint64_t token, wake_reason reason);
  // Claims the wait `token` now (a signal or channel hand-off): if it is still
  // current, it is consumed and the process resumes at the current time,
  // after what is already scheduled for now. False when the wait is stale.
  bool claim(process_id pid, std::uint64_t token, wake_reason reason);
  // Whether `token` is still the live wait of `pid` (cheap; no side effect).
  bool waiting(process_id pid, std::uint64_t token) const;
  // Why `pid`'s last wait ended; read by an awaiter when it resumes.
  wake_reason last_wake(process_id pid) const;

 private:
  struct entry {
    std::int64_t time_us;
    std::uint64_t seq;
    std::uint64_t token_or_arg;
    void* ctx;
    callback_fn fn;  // nullptr: a process wake
    std::uint32_t slot;
    wake_reason reason;
  };
  struct later {
    bool operator()(const entry& a, const entry& b) const {
      if (a.time_us != b.time_us) return a.time_us > b.time_us;
      return a.seq > b.seq;
    }
  };
  struct process_slot {
    std::coroutine_handle<> root;
    std::coroutine_handle<> resume_point;
    std::string name;
    std::uint64_t wait_token = 0;  // monotonic over the slot's whole life
    std::uint32_t generation = 0;
    wake_reason last_wake = wake_reason::none;
    bool alive = false;
    bool kill_requested = false;
  };

  void push(entry e);
  void push_with_seq(entry e);
  bool dispatch_wake(const entry& e);
  void resume(std::uint32_t slot);
  void destroy_process(std::uint32_t slot);
  process_slot* find(process_id pid);
  const process_slot* find(process_id pid) const;

  instant now_;
  std::uint64_t next_seq_ = 0;
  std::optional<std::uint64_t> dispatched_seq_;  // the event being (or last) dispatched
  std::uint64_t events_dispatched_ = 0;
  std::vector<entry> queue_;  // a binary heap under `later`
  std::vector<process_slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t live_processes_ = 0;
  process_id current_;
  bool stop_requested_ = false;
  std::exception_ptr failure_;  // an exception that escaped a process
};

}  // namespace twice::sim
