#pragma once
// task<T>: the coroutine type of simulated code. A task is lazy: it starts
// when awaited (or when spawned as a process) and hands control back to its
// awaiter by symmetric transfer when it finishes, so worker code reads as a
// straight story: `auto r = co_await vendor.refund(...)`.
//
// Ownership: a task object owns its frame. While a parent awaits a child,
// the child's task object lives in the parent's frame, so destroying the
// outermost frame (a kill) destroys the whole chain, innermost state
// included, and runs every local's destructor.

#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

#include "sim/kernel.hpp"

namespace twice::sim {

namespace detail {
struct final_awaiter {
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
    // A child returns to its parent; a process root returns to the kernel,
    // which notices the finished frame and releases it.
    auto next = base_of(h).continuation;
    return next ? next : std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

template <class Promise>
struct task_awaiter {
  std::coroutine_handle<Promise> child;
  bool await_ready() const noexcept { return false; }
  template <class P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    promise_base& from = base_of(parent);
    promise_base& to = child.promise();
    to.owner = from.owner;
    to.pid = from.pid;
    to.continuation = parent;
    return child;
  }
  decltype(auto) await_resume() { return child.promise().take_result(); }
};
}  // namespace detail

template <class T = void>
class [[nodiscard]] task {
 public:
  struct promise_type : detail::promise_base {
    std::optional<T> value;
    task get_return_object() { return task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    detail::final_awaiter final_suspend() const noexcept { return {}; }
    template <class U>
    void return_value(U&& v) {
      value.emplace(std::forward<U>(v));
    }
    void unhandled_exception() { exception = std::current_exception(); }
    T take_result() {
      if (exception) std::rethrow_exception(exception);
      TWICE_CHECK(value.has_value());
      return std::move(*value);
    }
  };

  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() { reset(); }

  detail::task_awaiter<promise_type> operator co_await() && noexcept { return {h_}; }

 private:
  explicit task(std::coroutine_handle<promise_type> h) : h_(h) {}
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  std::coroutine_handle<promise_type> h_;
};

template <>
class [[nodiscard]] task<void> {
 public:
  struct promise_type : detail::promise_base {
    task get_return_object() { return task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() const noexcept { return {}; }
    detail::final_awaiter final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() { exception = std::current_exception(); }
    void take_result() {
      if (exception) std::rethrow_exception(exception);
    }
  };

  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() { reset(); }

  detail::task_awaiter<promise_type> operator co_await() && noexcept { return {h_}; }

  // For kernel::spawn: the kernel takes the frame over.
  std::coroutine_handle<promise_type> release() { return std::exchange(h_, {}); }

 private:
  explicit task(std::coroutine_handle<promise_type> h) : h_(h) {}
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  std::coroutine_handle<promise_type> h_;
};

}  // namespace twice::sim
