#pragma once
// The vendors' events (the vocabulary: events/trace_events.hpp).

#include <cstdint>
#include <string_view>

#include <twice/events/event_basics.hpp>
#include <twice/sim/time.hpp>

namespace twice::ev {

// ---- vendors (actor vendor/NAME) -------------------------------------------------

// A request arrived; `amount` only for a payment (has_amount).
struct vendor_request {
  static constexpr std::string_view kind = "request";
  std::uint64_t req = 0;
  name_id key = 0;
  name_id target = 0;
  bool has_amount = false;
  std::int64_t amount = 0;
  name_id verdict = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("key", key);
    v.name("target", target);
    if (has_amount) v.integer("amount", amount);
    v.name("verdict", verdict);
  }
};

// A stored answer replayed for a key seen before.
struct vendor_replay {
  static constexpr std::string_view kind = "replay";
  std::uint64_t req = 0;
  name_id key = 0;
  std::int64_t status = 0;
  name_id ref = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("key", key);
    v.integer("status", status);
    v.name("ref", ref);
  }
};

struct vendor_execute {
  static constexpr std::string_view kind = "execute";
  std::uint64_t req = 0;
  sim::duration latency;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("latency_us", latency.us());
  }
};

struct vendor_response_lost {
  static constexpr std::string_view kind = "response_lost";
  std::uint64_t req = 0;
  name_id ref = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
  }
};

// A refund committed to the vendor's own ledger.
struct vendor_commit {
  static constexpr std::string_view kind = "commit";
  std::uint64_t req = 0;
  name_id ref = 0;
  name_id key = 0;
  std::int64_t amount = 0;
  name_id target = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
    v.name("key", key);
    v.integer("amount", amount);
    v.name("target", target);
  }
};

struct vendor_execution_error {
  static constexpr std::string_view kind = "execution_error";
  std::uint64_t req = 0;
  std::int64_t status = 0;
  name_id error_code = 0;
  name_id key = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("status", status);
    v.name("error_code", error_code);
    v.name("key", key);
  }
};

struct vendor_reject {
  static constexpr std::string_view kind = "reject";
  std::uint64_t req = 0;
  std::int64_t status = 0;
  name_id error_code = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("status", status);
    v.name("error_code", error_code);
  }
};

// A request that waited in the far side's queue longer than its queue
// timeout, dropped unserved when a server would have taken it
// (vendors/server_pool.hpp).
struct vendor_dropped {
  static constexpr std::string_view kind = "dropped";
  std::uint64_t req = 0;
  sim::duration waited;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.integer("waited_us", waited.us());
  }
};

struct vendor_client_timeout {
  static constexpr std::string_view kind = "client_timeout";
  std::uint64_t req = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
  }
};

struct vendor_answered {
  static constexpr std::string_view kind = "answered";
  std::uint64_t req = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
  }
};

// A write tool's effect at its far side (an email sent, a file uploaded, a
// webhook delivered): the `count`-th on that target. `reference` is the
// caller's name for the request (job:step:tool).
struct effect_done {
  static constexpr std::string_view kind = "effect";
  std::uint64_t req = 0;
  name_id ref = 0;
  name_id target = 0;
  name_id reference = 0;
  std::int64_t count = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("req", static_cast<std::int64_t>(req));
    v.name("ref", ref);
    v.name("target", target);
    v.name("reference", reference);
    v.integer("count", count);
  }
};

struct key_pruned {
  static constexpr std::string_view kind = "key_pruned";
  name_id key = 0;
  sim::instant created;
  template <class V>
  void fields(V& v) const {
    v.name("key", key);
    v.integer("created_us", created.us());
  }
};

}  // namespace twice::ev
