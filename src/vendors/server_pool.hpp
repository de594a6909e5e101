#pragma once
// A far side with a fixed number of servers and a queue in front of them:
// the dependency whose latency grows with its load. A request a server
// cannot take at once waits; past the caller's client timeout the caller
// gives up, but the far side does not know and serves it anyway when its
// turn comes. That wasted work is what lets a retry storm outlive its
// trigger: every retry adds a request, every abandoned one still takes a
// server, and the queue never drains ("Metastable Failures in Distributed
// Systems", Bronson et al., HotOS 2021: the retry-storm example, where the
// sustaining effect is work done for callers that already left).
//
// The queueing form is a multi-server queue (M/G/c when arrivals are
// Poisson) with first-come-first-served order, and two of the defences
// production servers use (Maurer, "Fail at Scale", ACM Queue 13(8), 2015):
//   queue_timeout  a request that has waited longer is dropped, unserved,
//                  when a server would otherwise take it (checked at
//                  dequeue, as deadline checks and CoDel-style shedding are);
//                  its caller, if still waiting, gets 503;
//   lifo           serve the newest waiting request first, so the callers
//                  still waiting are served while stale ones age out.
// (Fail at Scale's Controlled Delay adapts its timeout to whether the queue
// emptied recently, and its Adaptive LIFO switches order only under load;
// both are fixed choices here.)
//
// Deterministic: a deque in arrival order, no clocks of its own.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include <twice/sim/time.hpp>
#include <twice/vendors/server_pool_config.hpp>

namespace twice {

class server_pool {
 public:
  struct waiting {
    std::uint32_t slot = 0;  // the tool's answer slot for the request
    sim::instant arrived;
  };

  explicit server_pool(server_pool_config config) : config_(config) {}

  // A request arrives: true when a server takes it now; otherwise call wait().
  bool take() {
    if (config_.servers == 0) return true;
    if (busy_ == config_.servers) return false;
    ++busy_;
    return true;
  }
  void wait(waiting w) { queue_.push_back(w); }

  // A server finished at `now`: the request it takes next, if any (the
  // server idles when none waits). Requests that waited past the queue
  // timeout are moved to `dropped`, oldest first.
  std::optional<waiting> release(sim::instant now, std::vector<waiting>& dropped) {
    if (config_.servers == 0) return std::nullopt;
    while (!queue_.empty() && config_.queue_timeout && now - queue_.front().arrived > *config_.queue_timeout) {
      dropped.push_back(queue_.front());
      queue_.pop_front();
    }
    if (queue_.empty()) {
      --busy_;
      return std::nullopt;
    }
    waiting next;
    if (config_.order == queue_order::fifo) {
      next = queue_.front();
      queue_.pop_front();
    } else {
      next = queue_.back();
      queue_.pop_back();
    }
    return next;
  }

  std::size_t queued() const { return queue_.size(); }
  std::uint64_t footprint() const { return queue_.size() * sizeof(waiting); }

 private:
  server_pool_config config_;
  std::deque<waiting> queue_;
  std::uint32_t busy_ = 0;
};

}  // namespace twice
