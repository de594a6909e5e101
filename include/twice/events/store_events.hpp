#pragma once
// The store's events (the vocabulary: events/trace_events.hpp).

#include <cstdint>
#include <string_view>

#include <twice/events/event_basics.hpp>
#include <twice/sim/time.hpp>

namespace twice::ev {

// ---- store (actor store) ----------------------------------------------------------

// A wait for a pool connection; `holder` (0: none) is who waited.
struct pool_wait {
  static constexpr std::string_view kind = "pool_wait";
  sim::duration waited;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("waited_us", waited.us());
    if (holder != 0) v.name("holder", holder);
  }
};
struct pool_wait_abandoned {
  static constexpr std::string_view kind = "pool_wait_abandoned";
  sim::duration waited;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("waited_us", waited.us());
    if (holder != 0) v.name("holder", holder);
  }
};

struct constraint_violation {
  static constexpr std::string_view kind = "constraint_violation";
  std::uint64_t tx = 0;
  name_id table = 0;
  name_id key = 0;
  name_id phase = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("table", table);
    v.name("key", key);
    v.name("phase", phase);
  }
};

// Another session's long transaction (store.long_transactions): `state` is
// "begins", "commits" or "terminated" (by store.transaction_timeout);
// `dead_versions`: the dead row versions some open transaction could still
// see, which every read of the job table walked, just before the end (at a
// begin: those older transactions hold).
struct long_transaction {
  static constexpr std::string_view kind = "long_transaction";
  name_id holder = 0;
  name_id state = 0;
  std::int64_t dead_versions = 0;
  template <class V>
  void fields(V& v) const {
    v.name("holder", holder);
    v.name("state", state);
    v.integer("dead_versions", dead_versions);
  }
};

// A write refused by the job row's lease token.
struct store_fenced {
  static constexpr std::string_view kind = "fenced";
  std::uint64_t tx = 0;
  name_id job = 0;
  std::uint64_t expected = 0;
  std::uint64_t found = 0;
  name_id phase = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("job", job);
    v.integer("expected", static_cast<std::int64_t>(expected));
    v.integer("found", static_cast<std::int64_t>(found));
    v.name("phase", phase);
  }
};

struct store_commit {
  static constexpr std::string_view kind = "commit";
  std::uint64_t tx = 0;
  std::int64_t writes = 0;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.integer("writes", writes);
    if (holder != 0) v.name("holder", holder);
  }
};

struct store_rollback {
  static constexpr std::string_view kind = "rollback";
  std::uint64_t tx = 0;
  name_id reason = 0;
  std::int64_t discarded = 0;
  name_id holder = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("tx", static_cast<std::int64_t>(tx));
    v.name("reason", reason);
    v.integer("discarded", discarded);
    if (holder != 0) v.name("holder", holder);
  }
};

}  // namespace twice::ev
