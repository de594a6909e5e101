#pragma once
// A one-shot signal: processes wait for it, someone triggers it once, every
// waiter resumes at the trigger's instant (in the order they began waiting).
// Waiting on a triggered signal does not suspend.
//
// wait_until/wait_for race the signal against a deadline and report which
// came first. The rule for a tie at the same instant is the kernel's total
// order: whichever is *dispatched* first wins. A trigger runs inside some
// event; if that event precedes the deadline's timer in (time, sequence)
// order, the signal wins, otherwise the timeout does.

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/wait_list.hpp>

namespace twice::sim {

class signal {
 public:
  explicit signal(kernel& k) : kernel_(&k) {}
  signal(const signal&) = delete;
  signal& operator=(const signal&) = delete;

  void trigger() {
    if (set_) return;
    set_ = true;
    waiters_.wake_all(*kernel_);
  }
  bool is_set() const { return set_; }

  class awaiter {
   public:
    awaiter(signal& s, instant deadline) : signal_(&s), kernel_(s.kernel_), deadline_(deadline) {}
    bool await_ready() const noexcept { return signal_->set_; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) {
      pid_ = signal_->waiters_.suspend(*kernel_, h, deadline_);
      suspended_ = true;
    }
    // True when the signal fired, false when the deadline passed first.
    bool await_resume() const {
      if (!suspended_) return true;
      // Read the kernel, not the signal: the signal may be gone by now.
      return kernel_->last_wake(pid_) == wake_reason::signal;
    }

   private:
    signal* signal_;
    kernel* kernel_;
    instant deadline_;
    process_id pid_;
    bool suspended_ = false;
  };

  awaiter wait() { return awaiter(*this, instant::max()); }
  awaiter wait_until(instant deadline) { return awaiter(*this, deadline); }
  awaiter wait_for(duration d) {
    TWICE_CHECK(d >= duration::zero());
    return awaiter(*this, kernel_->now() + d);
  }

 private:
  kernel* kernel_;
  wait_list<> waiters_;
  bool set_ = false;
};

}  // namespace twice::sim
