#pragma once
// A reusable condition: processes wait until notified (or a deadline), and
// re-check whatever they wait for when they resume. Unlike a signal it holds
// no state: a notify with nobody waiting is lost, so callers always check
// their predicate before waiting, in a loop:
//   while (!ready()) if (!co_await cond.wait_until(deadline)) break;

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/wait_list.hpp>

namespace twice::sim {

class condition {
 public:
  explicit condition(kernel& k) : kernel_(&k) {}
  condition(const condition&) = delete;
  condition& operator=(const condition&) = delete;

  // Wakes the longest-waiting live process; false when nobody waits.
  bool notify_one() {
    return waiters_.wake_one(*kernel_, [](const auto&) {});
  }
  std::size_t notify_all() { return waiters_.wake_all(*kernel_); }

  class awaiter {
   public:
    awaiter(condition& c, instant deadline) : condition_(&c), kernel_(c.kernel_), deadline_(deadline) {}
    bool await_ready() const noexcept { return false; }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) {
      pid_ = condition_->waiters_.suspend(*kernel_, h, deadline_);
    }
    // True when notified, false when the deadline passed first.
    bool await_resume() const { return kernel_->last_wake(pid_) == wake_reason::signal; }

   private:
    condition* condition_;
    kernel* kernel_;
    instant deadline_;
    process_id pid_;
  };

  awaiter wait() { return awaiter(*this, instant::max()); }
  awaiter wait_until(instant deadline) { return awaiter(*this, deadline); }

 private:
  kernel* kernel_;
  wait_list<> waiters_;
};

// Suspends the current process for good: it resumes never and ends only
// when killed. A crash point uses it after asking the kernel for the kill.
struct suspend_forever {
  bool await_ready() const noexcept { return false; }
  template <class P>
  void await_suspend(std::coroutine_handle<P> h) {
    detail::promise_base& p = detail::base_of(h);
    TWICE_CHECK(p.owner != nullptr);
    p.owner->begin_wait(p.pid, h);
  }
  void await_resume() const noexcept { TWICE_CHECK(false); }
};

}  // namespace twice::sim
