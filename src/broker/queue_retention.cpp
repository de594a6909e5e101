// Part of broker/queue.hpp's queue: retention deadlines, the tombstones of
// gone messages, and the receipt handles they keep known.

#include <algorithm>

#include <twice/sim/check.hpp>

#include "broker/queue.hpp"

namespace twice {

// ---- retention ------------------------------------------------------------

namespace {
struct later_retention {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.at_us != b.at_us ? a.at_us > b.at_us : a.seq > b.seq;
  }
};
}  // namespace

// A Redis list keeps its entries for ever: a queue held until the ack
// (Sidekiq) has no retention.
void queue::arm_retention_timer(const message& m) {
  if (!keeps_forever()) arm_deadline(m.sent_at + config_.retention, m.id);
}

void queue::arm_deadline(sim::instant at, message_id id) {
  TWICE_CHECK(at > kernel_.now());
  // The place in the order a timer scheduled now would take.
  retention_.push_back(retention_entry{at.us(), kernel_.reserve_sequence(1), id, false});
  std::push_heap(retention_.begin(), retention_.end(), later_retention{});
  schedule_soonest_retention();
}

// An entry that becomes the soonest goes into the kernel's queue at its
// reserved place; one already there stays (a new, sooner entry fires first,
// and by the time the older one fires it is the soonest again).
void queue::schedule_soonest_retention() {
  if (retention_.empty() || retention_.front().scheduled) return;
  retention_entry& soonest = retention_.front();
  soonest.scheduled = true;
  kernel_.schedule_reserved(sim::instant::from_us(soonest.at_us), soonest.seq, &queue::on_retention_timer, this,
                            soonest.seq);
}

void queue::on_retention_timer(sim::kernel&, void* ctx, std::uint64_t seq) {
  TWICE_CHECK(ctx != nullptr);
  static_cast<queue*>(ctx)->retention_due(seq);
}

void queue::retention_due(std::uint64_t seq) {
  // Entries fire in (time, seq) order, the heap's order: the one firing is the soonest.
  TWICE_CHECK(!retention_.empty() && retention_.front().seq == seq);
  const message_id id = retention_.front().id;
  std::pop_heap(retention_.begin(), retention_.end(), later_retention{});
  retention_.pop_back();
  schedule_soonest_retention();
  retention_timer_fired(id);
}

void queue::retention_timer_fired(message_id id) {
  if (const tombstone_table::tombstone* tomb = gone_.find(id)) {
    // A deadline armed before the tombstone's own (its retention end, when
    // it left less than 12 h before) finds it still remembered.
    if (kernel_.now() >= tomb->forget_at) forget_tombstone(id);
    return;
  }
  const auto it = messages_.find(id);
  if (it == messages_.end()) return;  // redriven away
  // Only a message that left and came back (a redrive cycle) could be here early.
  if (kernel_.now() < it->second.sent_at + config_.retention) return;
  expire(it);
}

void queue::expire(message_map::iterator it) {
  // Wherever it is: visible, delayed or in flight (a lease does not protect
  // it: SQS "automatically deletes messages left in a queue longer than the
  // retention period", DeleteMessage, API reference).
  record_expiry(it->second);
  erase_message(it);
}

// DeadSet#kill (sidekiq/sidekiq lib/sidekiq/api.rb): ZADD the death, then
// ZREMRANGEBYSCORE "-inf" .. now - dead_timeout_in_seconds, then
// ZREMRANGEBYRANK 0 .. -dead_max_jobs: the deaths too old, then the oldest
// beyond the cap, each a message the dead set deleted unprocessed. Deaths
// arrive in time order, so the oldest is at the front of deaths_ (an entry
// whose message has left, or left and come back since, is passed over).
void queue::trim_dead_set(message_id arriving) {
  const sim::instant now = kernel_.now();
  deaths_.emplace_back(now, arriving);
  while (!deaths_.empty()) {
    const auto [entered, id] = deaths_.front();
    const auto it = messages_.find(id);
    if (it == messages_.end() || it->second.entered_at != entered) {
      deaths_.pop_front();  // it left the dead set since (and may have died again later)
      continue;
    }
    const bool too_old = entered + config_.retention <= now;
    if (!too_old && messages_.size() <= config_.dead_max_jobs) break;
    deaths_.pop_front();
    expire(it);
  }
}

void queue::record_expiry(const message& m) {
  const sim::instant now = kernel_.now();
  events_.emit(actor_name_, ev::retention_expired{m.id, m.body_name, now - m.sent_at, m.receive_count, m.state});
  ++expired_;
  count_final(m.receive_count);
}

void queue::erase_message(message_map::iterator it) {
  const message& m = it->second;
  if (m.state == message_state::visible) unindex_visible(m);
  if (m.state == message_state::in_flight) count_in_flight(m, false);
  if (fifo_) fifo_->leave(m.group, m.id);
  eta_.erase(m.id);
  orphans_.erase(m.id);
  recoveries_.erase(m.id);
  // Its handles stay known until its retention end (whose deadline is still
  // armed, unless this is its expiry), or 12 h from now if that is later: a
  // lease taken now cannot outlast that.
  // A message never received here has no handles to remember.
  if (m.handles_issued > 0) {
    // Without retention (a Redis list) no deadline of its own is armed.
    const sim::instant later = kernel_.now() + longest_lease();
    const sim::instant retention_end = keeps_forever() ? later : m.sent_at + config_.retention;
    const sim::instant forget_at = std::max(retention_end, later);
    gone_.insert(m.id, tombstone_table::tombstone{m.handles_from, forget_at, m.handles_issued});
    if (forget_at != retention_end || keeps_forever()) arm_deadline(forget_at, m.id);
  }
  messages_.erase(it);
}

void queue::forget_tombstone(message_id id) { forget_handles(gone_.erase(id).handles_issued); }

// ---- receipt handles ------------------------------------------------------

message_id queue::message_of(receipt_handle handle) const {
  const auto row = std::lower_bound(handle_rows_.begin(), handle_rows_.end(), handle,
                                    [](const handle_row& r, receipt_handle h) { return r.handle < h; });
  if (row == handle_rows_.end() || row->handle != handle || !row_live(*row)) return 0;
  return row->id;
}

bool queue::row_live(const handle_row& row) const {
  if (const auto it = messages_.find(row.id); it != messages_.end()) return row.handle >= it->second.handles_from;
  if (const tombstone_table::tombstone* tomb = gone_.find(row.id)) return row.handle >= tomb->handles_from;
  return false;
}

void queue::forget_handles(std::uint32_t rows) {
  forgotten_rows_ += rows;
  TWICE_CHECK(forgotten_rows_ <= handle_rows_.size());
  // In batches, once dead rows are half of them: each row is looked at
  // O(1) times on average, and the table stays within twice the live rows.
  if (forgotten_rows_ >= 1024 && 2 * forgotten_rows_ >= handle_rows_.size()) compact_handles();
}

void queue::compact_handles() {
  std::erase_if(handle_rows_, [this](const handle_row& row) { return !row_live(row); });
  forgotten_rows_ = 0;
  if (handle_rows_.capacity() > 4 * handle_rows_.size() + 1024) handle_rows_.shrink_to_fit();
}

void queue::count_final(std::uint32_t receive_count) { ++receive_count_histogram_[receive_count]; }

}  // namespace twice
