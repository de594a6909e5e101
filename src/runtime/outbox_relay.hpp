#pragma once
// The outbox relay: a separate process that polls the outbox for intents
// written by slices, sends each through its tool with the key the intent
// already carries, then records the effect and marks the row sent. It sends
// at least once: a crash between the send and the mark sends it again on
// the next poll, which is why the key must reach the vendor.

#include <twice/sim/task.hpp>

#include "runtime/worker.hpp"

namespace twice {

class outbox_relay {
 public:
  outbox_relay(runtime_services& services, sim::duration poll_interval);
  outbox_relay(const outbox_relay&) = delete;
  outbox_relay& operator=(const outbox_relay&) = delete;
  ~outbox_relay();

  void start();
  void stop();
  // A crash (from a fault at one of its points): it comes back after the
  // runtime's restart delay.
  void crash();

 private:
  sim::task<void> loop();
  sim::task<bool> relay_one(const outbox_row& row);
  static void restart_callback(sim::kernel&, void* ctx, std::uint64_t incarnation);

  runtime_services& services_;
  sim::duration poll_interval_;
  sim::process_id process_;
  std::uint64_t incarnation_ = 0;
};

}  // namespace twice
