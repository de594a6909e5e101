#pragma once
// A vendor's stored idempotency keys: per key what the first request asked
// (target, amount), whether it still executes, and the response to replay.
// Keys are kept in creation order, the order they expire in (one retention
// for every key), and found by the key's name id, since the trace already
// interned the key's text: 40 bytes a key and 4 per name in the run, where
// a std::map of strings held ~250 bytes a key.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include <twice/events/event_basics.hpp>
#include <twice/sim/check.hpp>
#include <twice/sim/time.hpp>

namespace twice {

struct stored_key {
  ev::name_id key = 0;
  ev::name_id target = 0;
  std::int64_t amount_cents = 0;
  sim::instant created_at;
  bool executing = true;
  bool forgotten = false;  // taken back before it stored anything (see forget)
  // The response, once executing is false: all a stored response has
  // (a 200 with its refund's id, or an execution's 4xx/5xx code).
  std::int32_t status = 0;
  ev::name_id error_code = 0;
  ev::name_id ref = 0;
};

class key_store {
 public:
  stored_key* find(ev::name_id key) {
    if (key >= position_by_name_.size() || position_by_name_[key] == 0) return nullptr;
    return &entries_[position_by_name_[key] - 1 - popped_];
  }
  const stored_key* find(ev::name_id key) const { return const_cast<key_store*>(this)->find(key); }
  // Adds a key not stored now (a check).
  stored_key& add(const stored_key& k) {
    TWICE_CHECK(find(k.key) == nullptr);
    if (k.key >= position_by_name_.size())
      position_by_name_.resize(std::max<std::size_t>(k.key + 1, position_by_name_.size() * 2));
    entries_.push_back(k);
    TWICE_CHECK(popped_ + entries_.size() < UINT32_MAX);  // keys ever stored: bounded by the event budget
    position_by_name_[k.key] = static_cast<std::uint32_t>(popped_ + entries_.size());
    return entries_.back();
  }
  // Takes a key back as if never stored (a request that took it but never
  // started executing). Its entry stays until pruned, found by nobody.
  void forget(ev::name_id key) {
    stored_key* k = find(key);
    TWICE_CHECK(k != nullptr);
    k->forgotten = true;
    k->executing = false;
    position_by_name_[key] = 0;
  }
  const stored_key* oldest() const { return entries_.empty() ? nullptr : &entries_.front(); }
  void pop_oldest() {
    TWICE_CHECK(!entries_.empty());
    // A forgotten key's name may since have been stored again, further back.
    if (!entries_.front().forgotten) position_by_name_[entries_.front().key] = 0;
    entries_.pop_front();
    ++popped_;
  }
  std::size_t size() const { return entries_.size(); }
  std::uint64_t footprint() const {
    return entries_.size() * sizeof(stored_key) + position_by_name_.capacity() * sizeof(std::uint32_t);
  }

 private:
  std::deque<stored_key> entries_;  // creation order
  std::uint64_t popped_ = 0;        // entries pruned from the front so far
  // By key name: 1 + the entry's position counted from the first key ever
  // stored (0: none stored), so pruning moves no other entry's number.
  std::vector<std::uint32_t> position_by_name_;
};

}  // namespace twice
