#pragma once
// A bounded FIFO channel between processes. Sending never blocks: it hands
// the value straight to the longest-waiting live receiver, or queues it, or
// reports that the channel is full (every queue in the simulator is bounded).
// A receive can carry a deadline (a long poll): it returns the first value
// to arrive, or nothing once the deadline passes.
//
// A value handed to a receiver that is then killed before it resumes is lost
// with that process, as a message returned to a crashed consumer would be.

#include <deque>
#include <optional>
#include <utility>

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/wait_list.hpp>

namespace twice::sim {

template <class T>
class channel {
 public:
  channel(kernel& k, std::size_t capacity) : kernel_(&k), capacity_(capacity) { TWICE_CHECK(capacity > 0); }
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  // False (and the value is dropped) when the channel is full.
  bool try_send(T value) {
    const bool handed = receivers_.wake_one(*kernel_, [&](const auto& w) { *w.extra = std::move(value); });
    if (handed) return true;
    if (items_.size() >= capacity_) return false;
    items_.push_back(std::move(value));
    return true;
  }

  std::size_t size() const { return items_.size(); }
  std::size_t capacity() const { return capacity_; }

  class awaiter {
   public:
    awaiter(channel& c, instant deadline) : channel_(&c), deadline_(deadline) {}
    bool await_ready() {
      // Queued values exist only while no live receiver waits, so taking one
      // here never jumps a queue of waiting receivers.
      if (channel_->items_.empty()) return false;
      mailbox_ = std::move(channel_->items_.front());
      channel_->items_.pop_front();
      return true;
    }
    template <class P>
    void await_suspend(std::coroutine_handle<P> h) {
      channel_->receivers_.suspend(*channel_->kernel_, h, deadline_, &mailbox_);
    }
    std::optional<T> await_resume() { return std::move(mailbox_); }

   private:
    channel* channel_;
    instant deadline_;
    std::optional<T> mailbox_;
  };

  // Waits without a deadline; the optional is always engaged on resume.
  awaiter receive() { return awaiter(*this, instant::max()); }
  awaiter receive_until(instant deadline) { return awaiter(*this, deadline); }
  awaiter receive_for(duration d) {
    TWICE_CHECK(d >= duration::zero());
    return awaiter(*this, kernel_->now() + d);
  }

 private:
  kernel* kernel_;
  std::size_t capacity_;
  std::deque<T> items_;
  wait_list<std::optional<T>*> receivers_;
};

}  // namespace twice::sim
