#include "broker/dedup_window.hpp"

#include <twice/sim/footprint.hpp>

namespace twice {

void dedup_window::forget_until(sim::instant now) {
  while (!by_time_.empty() && by_time_.front().first <= now) {
    const auto it = by_key_.find(by_time_.front().second);
    // A key remembered again after it lapsed has a later `until`: keep that one.
    if (it != by_key_.end() && it->second.until <= now) by_key_.erase(it);
    by_time_.pop_front();
  }
}

std::optional<dedup_window::id_type> dedup_window::find(const key& k, sim::instant now) {
  forget_until(now);
  const auto it = by_key_.find(k);
  if (it == by_key_.end()) return std::nullopt;
  return it->second.message;
}

void dedup_window::remember(key k, id_type message, sim::instant now) {
  forget_until(now);
  const sim::instant until = now + deduplication_interval;
  by_key_.insert_or_assign(k, tracked{message, until});
  by_time_.emplace_back(until, std::move(k));
}

void dedup_window::clear() {
  by_key_.clear();
  by_time_.clear();
}

std::uint64_t dedup_window::footprint() const {
  std::uint64_t bytes = sim::tree_footprint(by_key_) + sim::footprint_of(by_time_);
  for (const auto& [k, t] : by_key_) bytes += 2 * sim::footprint_of(k.second);  // once in each index
  return bytes;
}

}  // namespace twice
