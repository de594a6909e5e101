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

#include <exception>
#include <optional>
#include <utility>

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>

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
// Owns a coroutine frame: move-only, destroys the frame it still owns.
template <class Promise>
class owned_frame {
 public:
  owned_frame() = default;
  explicit owned_frame(std::coroutine_handle<Promise> h) : h_(h) {}
  owned_frame(owned_frame&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  owned_frame& operator=(owned_frame&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  owned_frame(const owned_frame&) = delete;
  owned_frame& operator=(const owned_frame&) = delete;
  ~owned_frame() { reset(); }

  std::coroutine_handle<Promise> get() const { return h_; }
  std::coroutine_handle<Promise> release() { return std::exchange(h_, {}); }

 private:
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  std::coroutine_handle<Promise> h_;
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

  detail::task_awaiter<promise_type> operator co_await() && noexcept { return {frame_.get()}; }

 private:
  explicit task(std::coroutine_handle<promise_type> h) : frame_(h) {}
  detail::owned_frame<promise_type> frame_;
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

  detail::task_awaiter<promise_type> operator co_await() && noexcept { return {frame_.get()}; }

  // For kernel::spawn: the kernel takes the frame over.
  std::coroutine_handle<promise_type> release() { return frame_.release(); }

 private:
  explicit task(std::coroutine_handle<promise_type> h) : frame_(h) {}
  detail::owned_frame<promise_type> frame_;
};

}  // namespace twice::sim
