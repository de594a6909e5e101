#pragma once
// A Kafka consumer group as its coordinator runs it with the classic
// (eager) rebalance protocol and the Java client's default assignor
// (RangeAssignor, first of partition.assignment.strategy's default list):
//
//  * membership: a consumer without a member id joins (JoinGroup) as a new
//    member; that starts a rebalance. A member leaves when it closes
//    (LeaveGroup), when its poll timeout expires (max.poll.interval.ms
//    between two polls: the client's heartbeat thread leaves the group,
//    "consumer poll timeout has expired"), or when its session expires: the
//    heartbeat thread of a dead process stops, and the coordinator removes
//    the member session.timeout.ms after the last heartbeat it had
//    (heartbeats go every heartbeat.interval.ms from the join).
//  * a rebalance: every member must rejoin. A member learns of it through
//    its heartbeat and rejoins from its next poll: a member busy with a
//    batch rejoins only when it polls again, and the whole group waits for
//    it (stop-the-world). The join phase ends once every member has
//    rejoined, or at the rebalance timeout (the Java client's
//    max.poll.interval.ms, or a rebalance timeout of the client's own),
//    when the members that have not are removed: a member busy with a long
//    record holds every other member's partitions revoked until then. A rebalance of an empty group waits
//    group.initial.rebalance.delay.ms (3 s) for more members, and a new
//    group waits another delay whenever a member joined during the last,
//    up to the rebalance timeout (InitialDelayedJoin).
//  * assignment: members in a fixed order (by member id), each gets
//    partitions/members consecutive partitions, the first partitions %
//    members one more. A new generation begins.
//  * offset commits: accepted from a member of the current generation
//    (also while a rebalance is preparing: that is how a member commits
//    before it rejoins); from anyone else, CommitFailedException ("Commit
//    cannot be completed since the group has already rebalanced and
//    assigned the partitions to another member").
//
// The heartbeat traffic itself is not simulated: only when heartbeats stop
// (a process died) matters, and the coordinator acts at the session's
// expiry. A member learns of a rebalance at once when it is waiting in
// poll (the client: within heartbeat.interval.ms). Not modelled:
// cooperative-sticky rebalancing, static membership (group.instance.id),
// the SyncGroup round trip.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/broker/consumer_group_config.hpp>
#include <twice/events/event_log.hpp>
#include <twice/sim/condition.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>

namespace twice {

enum class offset_commit_status : std::uint8_t { ok, commit_failed };
std::string_view to_string(offset_commit_status);

class consumer_group {
 public:
  consumer_group(sim::kernel& k, event_log& events, consumer_group_config config);
  consumer_group(const consumer_group&) = delete;
  consumer_group& operator=(const consumer_group&) = delete;

  const consumer_group_config& config() const { return config_; }
  // JoinGroup without a member id: returns the new member's id ("worker/0#2":
  // the consumer and how many times it joined), now a member waiting for the
  // rebalance its join began.
  std::string join_new(std::string_view consumer);
  bool is_member(std::string_view member) const { return members_.find(member) != members_.end(); }
  // Whether `member` must rejoin before it may fetch: a rebalance is under
  // way, or it has not joined the current generation.
  bool needs_join(std::string_view member) const;
  // The member rejoins and waits for the rebalance to end. True: it is in
  // the new generation; false: it was removed meanwhile, or `woken` was set
  // while it waited (and changed() notified): the Java client's wakeup()
  // breaks a poll blocked in the join phase with a WakeupException, still a
  // member, so that close() can send LeaveGroup (KafkaConsumer.java's
  // shutdown-hook example: `closed.set(true); consumer.wakeup();`).
  sim::task<bool> join(std::string member, const bool* woken = nullptr);
  std::int64_t generation() const { return generation_; }
  const std::vector<std::uint32_t>& assignment(std::string_view member) const;
  // OffsetCommit of `offset` (the next record to read) for `partition`.
  offset_commit_status commit(std::string_view member, std::int64_t generation, std::uint32_t partition,
                              std::int64_t offset);
  std::optional<std::int64_t> committed(std::uint32_t partition) const;
  // Where the partition's owner in this generation reads: the offset it
  // started from at its assignment (the committed offset, or where
  // auto.offset.reset put it) and its position, the next offset its poll
  // will fetch. Not the coordinator's knowledge but the consumers' own (the
  // Java client's SubscriptionState): kept here so a sample of the group's
  // lag sees what its members have fetched. Unset until the partition's
  // owner in this generation took it; every rebalance unsets it (the eager
  // protocol revokes every partition).
  struct read_position {
    std::int64_t start = 0;
    std::int64_t next = 0;
  };
  void note_start(std::uint32_t partition, std::int64_t offset);
  // A poll fetched the partition up to `next` (positions only go forward
  // here; a seek back for a retry reads records still counted as fetched).
  void note_fetched(std::uint32_t partition, std::int64_t next);
  std::optional<read_position> position(std::uint32_t partition) const;
  // The consumer entered poll / poll handed it records: its poll timer
  // (max.poll.interval.ms) runs from the latter until the next poll.
  void poll_entered(std::string_view member);
  void poll_returned(std::string_view member);
  // LeaveGroup (the consumer closed).
  void leave(std::string_view member);
  // The member's process died: its heartbeats stop, and its session expires.
  void heartbeats_stopped(std::string_view member);
  // The story's end stops every pod at once, and the group with them: no
  // session, poll or rebalance timer acts after it, so nothing rebalances,
  // and no member that stopped cleanly is removed for not rejoining.
  void stop();
  // Notified when a rebalance begins or ends (and, as the topic's watcher,
  // on every record appended): what a consumer in poll waits on.
  sim::condition& changed() { return changed_; }
  std::uint64_t footprint() const;
  const std::string& actor() const { return actor_; }

 private:
  struct member {
    std::uint32_t serial = 0;  // names the member in kernel timers
    ev::name_id name = 0;
    sim::instant joined_at;
    std::int64_t generation = -1;  // the last generation it joined
    bool rejoined = false;         // in the rebalance under way
    bool dead = false;             // heartbeats stopped
    bool in_poll = false;
    std::uint32_t polls = 0;  // poll timers armed for an earlier poll do nothing
    std::vector<std::uint32_t> partitions;
  };
  using member_map = std::map<std::string, member, std::less<>>;

  enum timer_kind : std::uint64_t { session_timer = 0, poll_timer = 1, phase_timer = 2, deadline_timer = 3 };
  static void on_timer(sim::kernel&, void* ctx, std::uint64_t arg);
  void timer_fired(timer_kind kind, std::uint32_t serial, std::uint32_t version);
  void arm(sim::instant at, timer_kind kind, std::uint32_t serial, std::uint32_t version);
  member_map::iterator by_serial(std::uint32_t serial);
  void begin_rebalance(std::string_view reason, ev::name_id member);
  // Removes the member and reacts: a rebalance begins, or the one under way may end.
  void remove(member_map::iterator it, std::string_view reason);
  void erase(member_map::iterator it, std::string_view reason);  // removes it, nothing more
  void try_complete();
  void complete();

  sim::kernel& kernel_;
  event_log& events_;
  consumer_group_config config_;
  std::string actor_;
  ev::name_id actor_name_ = 0;
  member_map members_;
  std::map<std::string, std::uint32_t, std::less<>> joins_;  // by consumer: JoinGroups without a member id
  std::uint32_t next_serial_ = 1;
  std::int64_t generation_ = 0;
  bool rebalancing_ = false;
  bool stopped_ = false;     // stop(): every timer does nothing
  std::uint32_t round_ = 0;  // rebalances begun; a deadline timer of an earlier one does nothing
  // An empty group's delayed join: under way, whether a member joined since
  // the delay began, the delay running and what is left of the rebalance timeout.
  bool initial_ = false;
  bool member_added_ = false;
  sim::duration initial_delay_;
  sim::duration initial_left_;
  std::vector<std::optional<std::int64_t>> committed_;
  std::vector<std::optional<read_position>> positions_;  // by partition, this generation
  sim::condition changed_;
};

}  // namespace twice
