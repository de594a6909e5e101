// Part of broker/queue.hpp's queue: SQS fair queues, the choice of a message
// when one message group is a noisy neighbour.

#include <algorithm>

#include <twice/sim/check.hpp>

#include "broker/queue.hpp"

namespace twice {

// ---- fair queues ----------------------------------------------------------

void queue::note_group_seen() {
  if (grouped_seen_) return;
  grouped_seen_ = true;
  visible_ungrouped_ = visible_index_;  // every message so far had no group
}

void queue::index_visible(const message& m) {
  const std::pair<std::int64_t, message_id> key{m.queued_at.us(), m.id};
  const bool inserted = visible_index_.insert(key).second;
  TWICE_CHECK(inserted);
  if (m.grouped)
    visible_by_group_[m.group].insert(key);
  else if (grouped_seen_)
    visible_ungrouped_.insert(key);
}

void queue::unindex_visible(const message& m) {
  const std::pair<std::int64_t, message_id> key{m.queued_at.us(), m.id};
  const std::size_t erased = visible_index_.erase(key);
  TWICE_CHECK(erased == 1);
  if (!m.grouped) {
    visible_ungrouped_.erase(key);
    return;
  }
  const auto g = visible_by_group_.find(m.group);
  TWICE_CHECK(g != visible_by_group_.end());
  g->second.erase(key);
  if (g->second.empty()) visible_by_group_.erase(g);
}

void queue::count_in_flight(const message& m, bool entering) {
  if (entering) {
    ++in_flight_total_;
    if (m.grouped) ++in_flight_by_group_[m.group];
    return;
  }
  TWICE_CHECK(in_flight_total_ > 0);
  --in_flight_total_;
  if (!m.grouped) return;
  const auto g = in_flight_by_group_.find(m.group);
  TWICE_CHECK(g != in_flight_by_group_.end() && g->second > 0);
  if (--g->second == 0) in_flight_by_group_.erase(g);
}

// SQS's concurrency share: more than 10% of the queue's in-flight messages,
// and at least 30 of the group's own.
bool queue::noisy(std::uint32_t in_flight) const {
  return in_flight >= 30 && std::uint64_t{in_flight} * 10 > in_flight_total_;
}

bool queue::any_noisy_group() const {
  for (const auto& [group, count] : in_flight_by_group_)
    if (noisy(count)) return true;
  return false;
}

// The next message a fair queue hands out, not yet `taken` by this receive:
// the oldest of a quiet group or of none; failing that, the oldest of the
// noisy group with the fewest in flight (the older head on a tie).
std::optional<message_id> queue::fair_pick(const std::vector<message_id>& taken) const {
  auto first_untaken = [&](const std::set<std::pair<std::int64_t, message_id>>& set)
      -> std::optional<std::pair<std::int64_t, message_id>> {
    for (const auto& key : set)
      if (std::find(taken.begin(), taken.end(), key.second) == taken.end()) return key;
    return std::nullopt;
  };
  std::optional<std::pair<std::int64_t, message_id>> quiet = first_untaken(visible_ungrouped_);
  std::optional<std::pair<std::int64_t, message_id>> loud;
  std::uint32_t loud_in_flight = 0;
  for (const auto& [group, visible] : visible_by_group_) {
    const auto in = in_flight_by_group_.find(group);
    const std::uint32_t count = in == in_flight_by_group_.end() ? 0 : in->second;
    const std::optional<std::pair<std::int64_t, message_id>> head = first_untaken(visible);
    if (!head) continue;
    if (!noisy(count)) {
      if (!quiet || *head < *quiet) quiet = head;
    } else if (!loud || count < loud_in_flight || (count == loud_in_flight && *head < *loud)) {
      loud = head;
      loud_in_flight = count;
    }
  }
  if (quiet) return quiet->second;
  if (loud) return loud->second;
  return std::nullopt;
}

// As take_visible, choosing each message afresh: every delivery changes the
// in-flight shares the choice depends on.
void queue::take_visible_fairly(const receive_options& options, std::vector<received_message>& out) {
  const sim::duration timeout = options.visibility_timeout.value_or(config_.visibility_timeout);
  std::vector<message_id> taken;  // a duplicate delivery stays visible: not twice in one receive
  while (out.size() < options.max_messages) {
    const std::optional<message_id> id = fair_pick(taken);
    if (!id) return;
    const auto it = messages_.find(*id);
    TWICE_CHECK(it != messages_.end() && it->second.state == message_state::visible);
    if (config_.max_receive_count > 0 && it->second.receive_count >= config_.max_receive_count) {
      redrive(it);
      continue;
    }
    taken.push_back(*id);
    out.push_back(deliver(it->second, timeout));
  }
}

}  // namespace twice
