#include "broker/fifo_order.hpp"

#include <iterator>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

void fifo_order::enter(ev::name_id group, id_type id, std::uint64_t place, bool visible) {
  group_state& g = groups_[group];
  const std::uint64_t rank = g.next_rank++;
  g.by_rank.emplace(rank, id);
  const bool inserted = g.members.emplace(id, std::pair{rank, entry{place, visible}}).second;
  TWICE_CHECK(inserted);
  places_.emplace(place, id);
  refresh(group, g);
}

void fifo_order::leave(ev::name_id group, id_type id) {
  const auto it = groups_.find(group);
  TWICE_CHECK(it != groups_.end());
  group_state& g = it->second;
  const auto member = g.members.find(id);
  TWICE_CHECK(member != g.members.end());
  const auto [rank, e] = member->second;
  places_.erase({e.place, id});
  g.by_rank.erase(rank);
  g.members.erase(member);
  refresh(group, g);
  if (g.members.empty())
    groups_.erase(it);  // an empty group costs nothing (test_fifo_empty_message_groups_added_back_to_queue)
}

void fifo_order::set_visible(ev::name_id group, id_type id, bool visible, std::uint64_t place) {
  group_state& g = groups_.at(group);
  entry& e = g.members.at(id).second;
  if (e.place != place) {
    places_.erase({e.place, id});
    places_.emplace(place, id);
    e.place = place;
  }
  e.visible = visible;
  refresh(group, g);
}

void fifo_order::refresh(ev::name_id group, group_state& g) {
  if (g.ready) ready_.erase({g.ready_place, group});
  g.ready = false;
  if (g.by_rank.empty()) return;
  const entry& head = g.members.at(g.by_rank.begin()->second).second;
  if (!head.visible) return;
  g.ready = true;
  g.ready_place = head.place;
  ready_.emplace(head.place, group);
}

std::optional<std::uint64_t> fifo_order::window_end() const {
  if (places_.size() <= scan_window_) return std::nullopt;  // nothing lies past the window
  auto it = places_.begin();
  std::advance(it, scan_window_);
  return it->first;
}

std::vector<fifo_order::id_type> fifo_order::ready(std::uint32_t max) const {
  std::vector<id_type> out;
  const std::optional<std::uint64_t> end = window_end();
  for (const auto& [place, group] : ready_) {
    if (out.size() >= max) break;
    // Ready groups come by place: once one lies past the window, all the rest do.
    if (end && place >= *end) break;
    const group_state& g = groups_.at(group);
    for (const auto& [rank, id] : g.by_rank) {
      if (out.size() >= max || !g.members.at(id).second.visible) break;
      out.push_back(id);
    }
  }
  return out;
}

std::uint64_t fifo_order::footprint() const {
  std::uint64_t bytes = sim::tree_footprint(groups_) + sim::tree_footprint(ready_) + sim::tree_footprint(places_);
  for (const auto& [group, g] : groups_) bytes += sim::tree_footprint(g.by_rank) + sim::tree_footprint(g.members);
  return bytes;
}

}  // namespace twice
