#pragma once
// A queue on its own kernel, for the broker's tests (test_queue.cpp, the
// SQS conformance table's test_sqs_conformance.cpp): a world with a trace,
// receive options by name, and a consumer that receives once.

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/sleep.hpp>

#include "broker/queue.hpp"

namespace queue_testing {

using namespace twice;
using namespace twice::sim::literals;

constexpr sim::duration hours(std::int64_t h) { return sim::duration::from_s(h * 3600); }
inline constexpr sim::duration days(std::int64_t d) { return hours(24 * d); }
inline constexpr sim::instant at(sim::duration d) { return sim::instant::epoch() + d; }

// Receive options by name: designated initializers that skip a member
// trip -Wmissing-field-initializers on g++.
inline receive_options long_poll(sim::duration wait, std::uint32_t max_messages = 1) {
  receive_options o;
  o.wait = wait;
  o.max_messages = max_messages;
  return o;
}
inline receive_options at_most(std::uint32_t max_messages) { return long_poll(sim::duration::zero(), max_messages); }
inline receive_options leased_for(sim::duration visibility_timeout) {
  receive_options o;
  o.visibility_timeout = visibility_timeout;
  return o;
}

struct poll_result {
  queue_status status = queue_status::ok;
  std::vector<received_message> messages;
  sim::instant returned_at;
  bool done = false;
};

// A consumer that waits until `start`, receives once and keeps the answer.
// Started at `start` itself it receives at once, without yielding first.
inline sim::task<void> poll(sim::kernel& k, queue& q, sim::instant start, receive_options options, poll_result& out) {
  if (k.now() < start) co_await sim::sleep_until(start);
  receive_result r = co_await q.receive(options);
  out.status = r.status;
  out.messages = std::move(r.messages);
  out.returned_at = k.now();
  out.done = true;
}

// One world: a kernel, a trace, the shared id source and a queue (plus an
// optional dead-letter queue wired to it).
struct world {
  sim::kernel k;
  event_log events{k};
  queue_id_source ids;
  queue q;
  std::unique_ptr<queue> dead_letter;

  explicit world(queue_config config = {}) : q(k, events, ids, std::move(config)) {}

  // A dead-letter queue named `name` (SQS's default retention unless given)
  // that q redrives into; it lives as long as the world.
  queue& add_dead_letter(std::string name, std::optional<sim::duration> retention = std::nullopt) {
    queue_config config;
    config.name = std::move(name);
    if (retention) config.retention = *retention;
    dead_letter = std::make_unique<queue>(k, events, ids, std::move(config));
    q.set_dead_letter(dead_letter.get());
    return *dead_letter;
  }

  // Runs everything up to and including `t`, and leaves the clock at `t`
  // even if nothing was scheduled (a no-op event marks the instant).
  void run_until(sim::instant t) {
    k.schedule_at(t, [](sim::kernel&, void*, std::uint64_t) {});
    k.run({.until = t});
    REQUIRE(k.now() == t);
  }

  // A consumer that receives from now on; a long poll goes on waiting while
  // the world runs. `out` is filled when it returns.
  void start_poll(queue& from, receive_options options, poll_result& out) {
    k.spawn(poll(k, from, k.now(), options, out), "poller");
  }

  // A short poll at the current instant, after everything already due now.
  poll_result poll_now(queue& from, receive_options options = {}) {
    poll_result r;
    k.spawn(poll(k, from, k.now(), options, r), "receive_now");
    k.run({.until = k.now()});
    REQUIRE(r.done);
    return r;
  }
  std::vector<received_message> receive_now(queue& from, receive_options options = {}) {
    return poll_now(from, options).messages;
  }
  std::vector<received_message> receive_now(receive_options options = {}) { return receive_now(q, options); }

  std::vector<const sim::trace_record*> records(std::string_view kind) const {
    std::vector<const sim::trace_record*> out;
    for (const sim::trace_record& r : events.records())
      if (r.kind == kind) out.push_back(&r);
    return out;
  }
};

inline queue_config config_with(sim::duration visibility_timeout, handle_semantics semantics = handle_semantics::sqs) {
  queue_config c;
  c.visibility_timeout = visibility_timeout;
  c.semantics = semantics;
  return c;
}

}  // namespace queue_testing
