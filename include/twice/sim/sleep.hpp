#pragma once
// Awaitables that suspend the current process on the virtual clock.
//   co_await sim::sleep_for(250_ms);
//   co_await sim::sleep_until(deadline);
// Sleeping zero time still yields: the process resumes after everything
// already scheduled for the current instant.

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>

namespace twice::sim {

class sleep_until {
 public:
  explicit sleep_until(instant at) : at_(at) {}
  bool await_ready() const noexcept { return false; }
  template <class P>
  void await_suspend(std::coroutine_handle<P> h) {
    detail::promise_base& p = detail::base_of(h);
    TWICE_CHECK(p.owner != nullptr);
    kernel& k = *p.owner;
    TWICE_CHECK(at_ >= k.now());
    const std::uint64_t token = k.begin_wait(p.pid, h);
    k.wake_at(at_, p.pid, token, wake_reason::timer);
  }
  void await_resume() const noexcept {}

 private:
  instant at_;
};

class sleep_for {
 public:
  explicit sleep_for(duration d) : d_(d) { TWICE_CHECK(d >= duration::zero()); }
  bool await_ready() const noexcept { return false; }
  template <class P>
  void await_suspend(std::coroutine_handle<P> h) {
    detail::promise_base& p = detail::base_of(h);
    TWICE_CHECK(p.owner != nullptr);
    sleep_until(p.owner->now() + d_).await_suspend(h);
  }
  void await_resume() const noexcept {}

 private:
  duration d_;
};

}  // namespace twice::sim
