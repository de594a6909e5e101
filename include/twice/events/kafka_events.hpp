#pragma once
// A Kafka topic's and consumer group's events (the vocabulary:
// events/trace_events.hpp). The topic's actor is "topic/NAME", the group
// coordinator's "group/NAME"; what a consumer does is its worker's.

#include <cstdint>
#include <string_view>

#include <twice/events/event_basics.hpp>

namespace twice::ev {

// A record appended to a partition of the topic.
struct produced {
  static constexpr std::string_view kind = "produced";
  std::uint64_t id = 0;
  name_id body = 0;
  std::int64_t partition = 0;
  std::int64_t offset = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("partition", partition);
    v.integer("offset", offset);
  }
};

// A record a poll handed to the consumer: the `deliveries`-th time any
// consumer of the group was handed it.
struct fetched {
  static constexpr std::string_view kind = "fetched";
  std::uint64_t id = 0;
  name_id body = 0;
  std::int64_t partition = 0;
  std::int64_t offset = 0;
  std::int64_t deliveries = 0;
  std::int64_t generation = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("id", static_cast<std::int64_t>(id));
    v.name("body", body);
    v.integer("partition", partition);
    v.integer("offset", offset);
    v.integer("deliveries", deliveries);
    v.integer("generation", generation);
  }
};

// An offset commit: `offset` is the next record to read of `partition`.
// `status`: "ok", "rebalance_in_progress" or "commit_failed" (Kafka's
// CommitFailedException: the member is no longer in the group's generation).
struct offset_commit {
  static constexpr std::string_view kind = "offset_commit";
  std::int64_t partition = 0;
  std::int64_t offset = 0;
  name_id status = 0;
  bool automatic = false;  // enable.auto.commit, not the application's commitSync
  template <class V>
  void fields(V& v) const {
    v.integer("partition", partition);
    v.integer("offset", offset);
    v.name("status", status);
    v.boolean("automatic", automatic);
  }
};

// The group begins a rebalance: every member must rejoin (the eager
// protocol) before partitions are handed out again.
struct rebalance_start {
  static constexpr std::string_view kind = "rebalance_start";
  std::int64_t generation = 0;  // the generation ending
  name_id reason = 0;
  name_id member = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("generation", generation);
    v.name("reason", reason);
    v.name("member", member);
  }
};

// A member leaves the group: it left (close), its poll timeout expired, its
// session expired, or it did not rejoin within the rebalance timeout.
struct member_removed {
  static constexpr std::string_view kind = "member_removed";
  name_id member = 0;
  name_id reason = 0;
  template <class V>
  void fields(V& v) const {
    v.name("member", member);
    v.name("reason", reason);
  }
};

// The rebalance is over: a member's partitions in the new generation
// ("0,2"; "none").
struct partitions_assigned {
  static constexpr std::string_view kind = "partitions_assigned";
  std::int64_t generation = 0;
  name_id member = 0;
  name_id partitions = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("generation", generation);
    v.name("member", member);
    v.name("partitions", partitions);
  }
};

}  // namespace twice::ev
