#include "broker/consumer_group.hpp"

#include <algorithm>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

std::string_view to_string(offset_commit_status s) {
  switch (s) {
    case offset_commit_status::ok:
      return "ok";
    case offset_commit_status::commit_failed:
      return "commit_failed";
  }
  return "?";
}

consumer_group::consumer_group(sim::kernel& k, event_log& events, consumer_group_config config)
    : kernel_(k),
      events_(events),
      config_(std::move(config)),
      actor_("group/" + config_.name),
      committed_(config_.partitions),
      positions_(config_.partitions),
      changed_(k) {
  TWICE_CHECK(config_.partitions > 0);
  TWICE_CHECK(config_.session_timeout > config_.heartbeat_interval);
  actor_name_ = events_.name(actor_);
}

std::string consumer_group::join_new(std::string_view consumer) {
  auto counted = joins_.find(consumer);
  if (counted == joins_.end()) counted = joins_.emplace(std::string(consumer), 0).first;
  const std::string id = std::string(consumer) + "#" + std::to_string(++counted->second);
  const bool empty = members_.empty();
  // A member joining a new group's delayed first join: the delay goes on.
  if (initial_ && generation_ == 0) member_added_ = true;
  member m;
  m.serial = next_serial_++;
  m.name = events_.name(id);
  m.joined_at = kernel_.now();
  m.rejoined = true;
  m.in_poll = true;
  members_.emplace(id, m);
  const bool was_rebalancing = rebalancing_;
  begin_rebalance("member joined", m.name);
  if (empty && !was_rebalancing) {
    // An empty group waits group.initial.rebalance.delay.ms for more
    // members before its join completes (GroupCoordinator.scala,
    // InitialDelayedJoin), at most the rebalance timeout in all.
    initial_ = true;
    member_added_ = false;
    initial_delay_ = std::min(config_.initial_rebalance_delay, config_.rebalance_deadline());
    initial_left_ = std::max(config_.rebalance_deadline() - config_.initial_rebalance_delay, sim::duration::zero());
    arm(kernel_.now() + initial_delay_, phase_timer, 0, round_);
  }
  return id;
}

bool consumer_group::needs_join(std::string_view id) const {
  const auto it = members_.find(id);
  return it == members_.end() || rebalancing_ || it->second.generation != generation_;
}

sim::task<bool> consumer_group::join(std::string id, const bool* woken) {
  auto it = members_.find(id);
  if (it == members_.end()) co_return false;
  it->second.rejoined = true;
  it->second.in_poll = true;
  try_complete();
  while (true) {
    it = members_.find(id);
    if (it == members_.end()) co_return false;
    if (!rebalancing_ && it->second.generation == generation_) co_return true;
    if (woken != nullptr && *woken) co_return false;  // still a member: its close() leaves
    co_await changed_.wait();
  }
}

const std::vector<std::uint32_t>& consumer_group::assignment(std::string_view id) const {
  const auto it = members_.find(id);
  TWICE_CHECK(it != members_.end());
  return it->second.partitions;
}

offset_commit_status consumer_group::commit(std::string_view id, std::int64_t generation, std::uint32_t partition,
                                            std::int64_t offset) {
  TWICE_CHECK(partition < committed_.size());
  const auto it = members_.find(id);
  // UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION: the client's CommitFailedException.
  if (it == members_.end() || it->second.generation != generation || generation != generation_)
    return offset_commit_status::commit_failed;
  committed_[partition] = offset;
  return offset_commit_status::ok;
}

std::optional<std::int64_t> consumer_group::committed(std::uint32_t partition) const {
  TWICE_CHECK(partition < committed_.size());
  return committed_[partition];
}

void consumer_group::note_start(std::uint32_t partition, std::int64_t offset) {
  TWICE_CHECK(partition < positions_.size());
  positions_[partition] = read_position{offset, offset};
}

void consumer_group::note_fetched(std::uint32_t partition, std::int64_t next) {
  TWICE_CHECK(partition < positions_.size() && positions_[partition].has_value());
  positions_[partition]->next = std::max(positions_[partition]->next, next);
}

std::optional<consumer_group::read_position> consumer_group::position(std::uint32_t partition) const {
  TWICE_CHECK(partition < positions_.size());
  return positions_[partition];
}

void consumer_group::poll_entered(std::string_view id) {
  const auto it = members_.find(id);
  if (it == members_.end()) return;
  it->second.in_poll = true;
  ++it->second.polls;
}

void consumer_group::poll_returned(std::string_view id) {
  const auto it = members_.find(id);
  if (it == members_.end()) return;
  member& m = it->second;
  m.in_poll = false;
  ++m.polls;
  arm(kernel_.now() + config_.max_poll_interval, poll_timer, m.serial, m.polls);
}

void consumer_group::leave(std::string_view id) {
  const auto it = members_.find(id);
  if (it != members_.end()) remove(it, "left the group");
}

void consumer_group::heartbeats_stopped(std::string_view id) {
  const auto it = members_.find(id);
  if (it == members_.end() || it->second.dead) return;
  member& m = it->second;
  m.dead = true;
  // The last heartbeat went out on the member's heartbeat grid, at or before now.
  const std::int64_t interval = config_.heartbeat_interval.us();
  const std::int64_t since_join = (kernel_.now() - m.joined_at).us();
  const sim::instant last = m.joined_at + sim::duration::from_us(since_join / interval * interval);
  arm(last + config_.session_timeout, session_timer, m.serial, 0);
}

void consumer_group::arm(sim::instant at, timer_kind kind, std::uint32_t serial, std::uint32_t version) {
  TWICE_CHECK(serial < (1U << 30));
  const std::uint64_t arg = (std::uint64_t{version} << 32) | (std::uint64_t{serial} << 2) | kind;
  kernel_.schedule_at(at, on_timer, this, arg);
}

void consumer_group::on_timer(sim::kernel&, void* ctx, std::uint64_t arg) {
  static_cast<consumer_group*>(ctx)->timer_fired(static_cast<timer_kind>(arg & 3U),
                                                 static_cast<std::uint32_t>((arg >> 2) & ((1U << 30) - 1)),
                                                 static_cast<std::uint32_t>(arg >> 32));
}

consumer_group::member_map::iterator consumer_group::by_serial(std::uint32_t serial) {
  return std::find_if(members_.begin(), members_.end(), [&](const auto& m) { return m.second.serial == serial; });
}

void consumer_group::stop() { stopped_ = true; }

void consumer_group::timer_fired(timer_kind kind, std::uint32_t serial, std::uint32_t version) {
  if (stopped_) return;
  switch (kind) {
    case session_timer: {
      const auto it = by_serial(serial);
      if (it != members_.end()) remove(it, "session timeout (no heartbeat)");
      return;
    }
    case poll_timer: {
      // The member's own heartbeat thread leaves the group: "consumer poll
      // timeout has expired" (a dead process's session expires instead).
      const auto it = by_serial(serial);
      if (it != members_.end() && !it->second.dead && !it->second.in_poll && it->second.polls == version)
        remove(it, "poll timeout: max.poll.interval.ms between two polls");
      return;
    }
    case phase_timer:
      if (version != round_ || !initial_) return;
      if (member_added_ && initial_left_ > sim::duration::zero()) {
        // InitialDelayedJoin.onComplete: members joined meanwhile, so wait another delay.
        member_added_ = false;
        const sim::duration next = std::min(config_.initial_rebalance_delay, initial_left_);
        initial_left_ = std::max(initial_left_ - initial_delay_, sim::duration::zero());
        initial_delay_ = next;
        arm(kernel_.now() + next, phase_timer, 0, round_);
        return;
      }
      initial_ = false;
      try_complete();
      return;
    case deadline_timer: {
      if (version != round_ || !rebalancing_) return;
      // The rebalance timeout: who has not rejoined is out.
      for (auto it = members_.begin(); it != members_.end();) {
        auto next = std::next(it);
        if (!it->second.rejoined) erase(it, "did not rejoin within the rebalance timeout");
        it = next;
      }
      complete();
      return;
    }
  }
}

void consumer_group::begin_rebalance(std::string_view reason, ev::name_id who) {
  if (!rebalancing_) {
    rebalancing_ = true;
    ++round_;
    for (auto& [id, m] : members_) m.rejoined = m.rejoined && m.generation < 0;  // a new member's join counts
    events_.emit(actor_name_, ev::rebalance_start{generation_, events_.name(reason), who});
    arm(kernel_.now() + config_.rebalance_deadline(), deadline_timer, 0, round_);
  }
  changed_.notify_all();
}

void consumer_group::erase(member_map::iterator it, std::string_view reason) {
  events_.emit(actor_name_, ev::member_removed{it->second.name, events_.name(reason)});
  members_.erase(it);
}

void consumer_group::remove(member_map::iterator it, std::string_view reason) {
  const ev::name_id who = it->second.name;
  erase(it, reason);
  if (rebalancing_)
    try_complete();
  else
    begin_rebalance("member left", who);
}

void consumer_group::try_complete() {
  if (!rebalancing_) return;
  if (initial_) return;  // the first join of an empty group waits out its delay
  for (const auto& [id, m] : members_)
    if (!m.rejoined) return;
  complete();
}

// RangeAssignor over one topic: members in member-id order.
void consumer_group::complete() {
  rebalancing_ = false;
  initial_ = false;
  ++generation_;
  // Every partition's new owner starts again from the committed offset.
  for (std::optional<read_position>& p : positions_) p.reset();
  const std::uint32_t count = static_cast<std::uint32_t>(members_.size());
  std::uint32_t index = 0, next = 0;
  if (count == 0) {  // everyone left: an empty group, nothing to hand out
    changed_.notify_all();
    return;
  }
  for (auto& [id, m] : members_) {
    const std::uint32_t share = config_.partitions / count + (index < config_.partitions % count ? 1 : 0);
    m.partitions.clear();
    for (std::uint32_t p = 0; p < share; ++p) m.partitions.push_back(next++);
    m.generation = generation_;
    m.rejoined = false;
    std::string list;
    for (std::uint32_t p : m.partitions) list += (list.empty() ? "" : ",") + std::to_string(p);
    events_.emit(actor_name_, ev::partitions_assigned{generation_, m.name, events_.name(list.empty() ? "none" : list)});
    ++index;
  }
  changed_.notify_all();
}

std::uint64_t consumer_group::footprint() const {
  std::uint64_t bytes = sim::tree_footprint(members_) + sim::footprint_of(committed_) + sim::footprint_of(positions_);
  for (const auto& [id, m] : members_) bytes += sim::footprint_of(id) + sim::footprint_of(m.partitions);
  return bytes;
}

}  // namespace twice
