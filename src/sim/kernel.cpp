#include <twice/sim/kernel.hpp>

#include <algorithm>
#include <cstdint>

#include <twice/sim/footprint.hpp>
#include <twice/sim/task.hpp>

namespace twice::sim {

namespace {
using root_handle = std::coroutine_handle<task<void>::promise_type>;

root_handle as_root(std::coroutine_handle<> h) { return root_handle::from_address(h.address()); }
}  // namespace

std::string_view to_string(stop_reason r) {
  switch (r) {
    case stop_reason::quiescent:
      return "quiescent";
    case stop_reason::time_limit:
      return "time_limit";
    case stop_reason::event_budget:
      return "event_budget";
    case stop_reason::stopped:
      return "stopped";
    case stop_reason::memory_budget:
      return "memory_budget";
  }
  return "unknown";
}

kernel::~kernel() {
  // Destroy frames still alive so their locals release what they hold.
  for (std::uint32_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].alive) destroy_process(i);
}

void kernel::push(entry e) {
  e.seq = next_seq_++;
  push_with_seq(e);
}

void kernel::push_with_seq(entry e) {
  TWICE_CHECK(e.time_us >= now_.us());  // nothing is scheduled in the past
  queue_.push_back(e);
  std::push_heap(queue_.begin(), queue_.end(), later{});
}

std::uint64_t kernel::reserve_sequence(std::uint64_t n) {
  const std::uint64_t first = next_seq_;
  TWICE_CHECK(n <= UINT64_MAX - next_seq_);
  next_seq_ += n;
  return first;
}

void kernel::schedule_reserved(instant at, std::uint64_t seq, callback_fn fn, void* ctx, std::uint64_t arg) {
  TWICE_CHECK(fn != nullptr);
  TWICE_CHECK(seq < next_seq_);  // a place reserve_sequence() handed out
  if (dispatched_seq_ && at == now_) TWICE_CHECK(seq > *dispatched_seq_);
  push_with_seq(entry{at.us(), seq, arg, ctx, fn, 0, wake_reason::none});
}

void kernel::schedule_at(instant at, callback_fn fn, void* ctx, std::uint64_t arg) {
  TWICE_CHECK(fn != nullptr);
  push(entry{at.us(), 0, arg, ctx, fn, 0, wake_reason::none});
}

kernel::process_slot* kernel::find(process_id pid) {
  if (!pid.valid() || pid.index >= slots_.size()) return nullptr;
  process_slot& s = slots_[pid.index];
  if (!s.alive || s.generation != pid.generation) return nullptr;
  return &s;
}

const kernel::process_slot* kernel::find(process_id pid) const { return const_cast<kernel*>(this)->find(pid); }

process_id kernel::spawn(task<void> body, std::string name) {
  root_handle h = body.release();
  TWICE_CHECK(h);
  std::uint32_t index;
  if (!free_slots_.empty()) {
    index = free_slots_.back();
    free_slots_.pop_back();
  } else {
    TWICE_CHECK(slots_.size() < UINT32_MAX - 1);
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  process_slot& s = slots_[index];
  s.root = h;
  s.name = std::move(name);
  s.alive = true;
  s.kill_requested = false;
  s.last_wake = wake_reason::none;
  const process_id pid{index, s.generation};
  h.promise().owner = this;
  h.promise().pid = pid;
  ++live_processes_;
  const std::uint64_t token = begin_wait(pid, h);
  wake_at(now_, pid, token, wake_reason::none);
  return pid;
}

bool kernel::alive(process_id pid) const { return find(pid) != nullptr; }

const std::string& kernel::name(process_id pid) const {
  const process_slot* s = find(pid);
  TWICE_CHECK(s != nullptr);
  return s->name;
}

bool kernel::kill(process_id pid) {
  process_slot* s = find(pid);
  if (s == nullptr) return false;
  if (s->kill_requested) return true;
  if (pid == current_) {
    // The frame is executing: it cannot be destroyed under its own feet.
    // It dies as soon as it suspends and control is back in the kernel.
    s->kill_requested = true;
    return true;
  }
  destroy_process(pid.index);
  return true;
}

void kernel::destroy_process(std::uint32_t index) {
  process_slot& s = slots_[index];
  TWICE_CHECK(s.alive);
  // Mark dead first: destructors of the frame's locals may call back into
  // the kernel (e.g. ask whether this process is alive).
  s.alive = false;
  ++s.wait_token;
  ++s.generation;
  std::coroutine_handle<> root = std::exchange(s.root, {});
  s.resume_point = {};
  s.name.clear();
  root.destroy();
  free_slots_.push_back(index);
  TWICE_CHECK(live_processes_ > 0);
  --live_processes_;
}

std::uint64_t kernel::begin_wait(process_id pid, std::coroutine_handle<> resume_point) {
  process_slot* s = find(pid);
  TWICE_CHECK(s != nullptr);
  TWICE_CHECK(resume_point);
  s->resume_point = resume_point;
  s->last_wake = wake_reason::none;
  return ++s->wait_token;
}

void kernel::wake_at(instant at, process_id pid, std::uint64_t token, wake_reason reason) {
  const process_slot* s = find(pid);
  TWICE_CHECK(s != nullptr);
  TWICE_CHECK(s->wait_token == token);
  push(entry{at.us(), 0, token, nullptr, nullptr, pid.index, reason});
}

bool kernel::waiting(process_id pid, std::uint64_t token) const {
  const process_slot* s = find(pid);
  return s != nullptr && !s->kill_requested && s->wait_token == token;
}

bool kernel::claim(process_id pid, std::uint64_t token, wake_reason reason) {
  if (!waiting(pid, token)) return false;
  process_slot& s = slots_[pid.index];
  // Consume the wait (its timer is now stale) and resume under a new token.
  s.last_wake = reason;
  const std::uint64_t resume_token = ++s.wait_token;
  push(entry{now_.us(), 0, resume_token, nullptr, nullptr, pid.index, reason});
  return true;
}

wake_reason kernel::last_wake(process_id pid) const {
  const process_slot* s = find(pid);
  TWICE_CHECK(s != nullptr);
  return s->last_wake;
}

bool kernel::dispatch_wake(const entry& e) {
  process_slot& s = slots_[e.slot];
  if (!s.alive || s.wait_token != e.token_or_arg) return false;  // stale: consumed, or process gone
  // A claim already recorded its reason; a timer records its own.
  if (e.reason != wake_reason::signal) s.last_wake = e.reason;
  ++s.wait_token;
  resume(e.slot);
  return true;
}

void kernel::resume(std::uint32_t index) {
  process_slot& s = slots_[index];
  const process_id pid{index, s.generation};
  current_ = pid;
  std::coroutine_handle<> h = s.resume_point;
  s.resume_point = {};
  h.resume();
  current_ = process_id{};
  // `s` may have moved if the process spawned others (slots_ grew).
  process_slot& after = slots_[index];
  TWICE_CHECK(after.alive && after.generation == pid.generation);
  root_handle root = as_root(after.root);
  if (root.done()) {
    std::exception_ptr failure = root.promise().exception;
    destroy_process(index);
    if (failure && !failure_) failure_ = failure;
    return;
  }
  if (after.kill_requested) {
    destroy_process(index);
    return;
  }
  // A live process that suspended must have arranged to be woken, or be
  // parked on something that may wake it; either way it set a resume point.
  TWICE_CHECK(after.resume_point);
}

run_result kernel::run(run_limits limits) {
  TWICE_CHECK(limits.until >= now_);
  run_result out;
  stop_requested_ = false;
  while (true) {
    if (stop_requested_) {
      stop_requested_ = false;
      out.reason = stop_reason::stopped;
      break;
    }
    if (queue_.empty()) {
      out.reason = stop_reason::quiescent;
      break;
    }
    if (queue_.front().time_us > limits.until.us()) {
      now_ = limits.until;
      out.reason = stop_reason::time_limit;
      break;
    }
    if (out.events >= limits.max_events) {
      out.reason = stop_reason::event_budget;
      break;
    }
    std::pop_heap(queue_.begin(), queue_.end(), later{});
    const entry e = queue_.back();
    queue_.pop_back();
    TWICE_CHECK(e.time_us >= now_.us());  // time never goes backwards
    now_ = instant::from_us(e.time_us);
    dispatched_seq_ = e.seq;
    if (e.fn != nullptr) {
      e.fn(*this, e.ctx, e.token_or_arg);
    } else if (!dispatch_wake(e)) {
      continue;  // a stale wake is not an event: nothing happened
    }
    ++out.events;
    ++events_dispatched_;
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }
  TWICE_CHECK(out.events <= limits.max_events);
  out.now = now_;
  return out;
}

// A slice's chain of coroutine frames (worker loop, handler, tool call,
// waits) is a few hundred bytes each; a kilobyte per live process covers it.
inline constexpr std::uint64_t frames_per_process = 1024;

std::uint64_t kernel::footprint() const {
  std::uint64_t bytes = footprint_of(queue_) + footprint_of(slots_) + footprint_of(free_slots_);
  for (const process_slot& slot : slots_) bytes += footprint_of(slot.name);
  return bytes + live_processes_ * frames_per_process;
}

}  // namespace twice::sim
