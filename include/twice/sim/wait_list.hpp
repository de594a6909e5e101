#pragma once
// The processes waiting on one thing (a signal, a channel), in arrival order.
// Entries are (process, wait token): a waiter that timed out or was killed
// leaves a stale entry behind, which claim() skips and compaction drops, so
// the list stays bounded by the number of live waits.

#include <cstdint>
#include <cstddef>
#include <vector>

#include <twice/sim/coroutine.hpp>
#include <twice/sim/kernel.hpp>

namespace twice::sim {

template <class Extra = std::nullptr_t>
class wait_list {
 public:
  struct waiter {
    process_id pid;
    std::uint64_t token;
    Extra extra;
  };

  void add(kernel& k, waiter w) {
    if (size() >= compact_at_)
      compact(k);
    else if (head_ >= 16 && 2 * head_ >= waiters_.size())
      drop_claimed();  // a list that never empties still stays bounded
    waiters_.push_back(w);
  }

  // Claims the oldest live waiter, if any, and returns it (the caller then
  // hands it whatever it waited for; the process resumes later, at now).
  template <class Fn>
  bool wake_one(kernel& k, Fn&& before_claim) {
    while (head_ < waiters_.size()) {
      const waiter w = waiters_[head_++];
      if (head_ == waiters_.size()) {  // empty again: start over at the front, keeping the room
        waiters_.clear();
        head_ = 0;
      }
      if (!k.waiting(w.pid, w.token)) continue;
      before_claim(w);
      const bool claimed = k.claim(w.pid, w.token, wake_reason::signal);
      TWICE_CHECK(claimed);
      return true;
    }
    return false;
  }

  std::size_t wake_all(kernel& k) {
    std::size_t woken = 0;
    while (wake_one(k, [](const waiter&) {})) ++woken;
    return woken;
  }

  std::size_t size() const { return waiters_.size() - head_; }

  // Suspends the process of `h` on this list: a new wait, registered here,
  // with a timer at `deadline` unless it is instant::max(). Returns the
  // process, whose last_wake() then tells a signal from a timeout.
  template <class P>
  process_id suspend(kernel& k, std::coroutine_handle<P> h, instant deadline, Extra extra = {}) {
    detail::promise_base& p = detail::base_of(h);
    TWICE_CHECK(p.owner == &k);
    const std::uint64_t token = k.begin_wait(p.pid, h);
    add(k, {p.pid, token, extra});
    if (deadline != instant::max()) {
      TWICE_CHECK(deadline >= k.now());
      k.wake_at(deadline, p.pid, token, wake_reason::timer);
    }
    return p.pid;
  }

 private:
  void drop_claimed() {
    waiters_.erase(waiters_.begin(), waiters_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  void compact(kernel& k) {
    drop_claimed();
    std::erase_if(waiters_, [&k](const waiter& w) { return !k.waiting(w.pid, w.token); });
    // Amortised: compact again only when the list has doubled.
    compact_at_ = waiters_.size() * 2 < 16 ? 16 : waiters_.size() * 2;
  }

  // A vector read from a moving front, not a std::deque: libstdc++'s deque
  // allocates its map and a 512-byte block when it is constructed, and a
  // signal is made for every tool call, most never waited on by more than
  // one process; a vector allocates when first used.
  std::vector<waiter> waiters_;
  std::size_t head_ = 0;  // waiters_[head_..] are still queued, oldest first
  std::size_t compact_at_ = 16;
};

}  // namespace twice::sim
