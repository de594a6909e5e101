#pragma once
// The outbox relay's events (the vocabulary: events/trace_events.hpp).

#include <cstdint>
#include <string_view>

#include <twice/events/event_basics.hpp>
#include <twice/sim/time.hpp>

namespace twice::ev {

// ---- outbox relay (actor relay) ----------------------------------------------------

struct relay_crash {
  static constexpr std::string_view kind = "crash";
  name_id why = 0;
  template <class V>
  void fields(V& v) const {
    v.name("why", why);
  }
};

struct relay_tool_start {
  static constexpr std::string_view kind = "tool_start";
  name_id job = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  std::uint64_t outbox_id = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.integer("outbox_id", static_cast<std::int64_t>(outbox_id));
  }
};

struct relay_tool_call {
  static constexpr std::string_view kind = "tool_call";
  name_id job = 0;
  std::int64_t step = 0;
  name_id tool = 0;
  name_id key = 0;
  std::int64_t status = 0;
  name_id error = 0;
  name_id ref = 0;
  bool replayed = false;
  bool new_write = false;
  sim::instant started;
  std::uint64_t outbox_id = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.integer("step", step);
    v.name("tool", tool);
    v.name("key", key);
    v.integer("status", status);
    v.name("error", error);
    v.name("ref", ref);
    v.boolean("replayed", replayed);
    v.boolean("new_write", new_write);
    v.integer("started_us", started.us());
    v.integer("outbox_id", static_cast<std::int64_t>(outbox_id));
  }
};

// The relay sent an outbox row (`relayed`) or gave up on it.
struct relayed {
  static constexpr std::string_view kind = "relayed";
  name_id job = 0;
  name_id key = 0;
  std::int64_t status = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("key", key);
    v.integer("status", status);
  }
};
struct relay_gave_up {
  static constexpr std::string_view kind = "relay_gave_up";
  name_id job = 0;
  name_id key = 0;
  std::int64_t status = 0;
  template <class V>
  void fields(V& v) const {
    v.name("job", job);
    v.name("key", key);
    v.integer("status", status);
  }
};

}  // namespace twice::ev
