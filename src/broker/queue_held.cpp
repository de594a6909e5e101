// The queue's held messages: a Redis list's (Sidekiq's BasicFetch and
// super_fetch, Celery's Redis transport), which a fetch holds until its ack
// with no lease to run out. What becomes of one when its process dies,
// drains or rejects it. The rest of the queue is in queue.cpp.

#include <algorithm>

#include <twice/sim/check.hpp>

#include "broker/queue.hpp"

namespace twice {

queue::message_map::iterator queue::held(receipt_handle handle) {
  TWICE_CHECK(config_.hold_until_ack || config_.redis_ack_emulation);
  const message_id id = message_of(handle);
  const auto it = id == 0 ? messages_.end() : messages_.find(id);
  if (it == messages_.end() || it->second.latest_handle != handle || it->second.state != message_state::in_flight)
    return messages_.end();
  return it->second.held ? it : messages_.end();
}

queue_status queue::drop_held(receipt_handle handle) {
  const auto it = held(handle);
  if (it == messages_.end()) return queue_status::invalid_handle;
  message& m = it->second;
  events_.emit(actor_name_, ev::lost_with_process{m.id, handle, m.body_name});
  ++lost_;
  count_final(m.receive_count);
  erase_message(it);
  return queue_status::ok;
}

queue_status queue::requeue_held(receipt_handle handle) {
  const auto it = held(handle);
  if (it == messages_.end()) return queue_status::invalid_handle;
  message& m = it->second;
  events_.emit(actor_name_, ev::pushed_back{m.id, handle, m.body_name});
  // Celery's restore_unacked RPUSHes each message to the end BRPOP reads
  // (kombu/transport/redis.py, celery/kombu@9ee8595b835c: QoS.restore_unacked
  // -> restore_by_tag -> Channel._do_restore_message(leftmost=False) ->
  // pipe.rpush), so the last pushed is read first, before everything waiting.
  // Sidekiq's hard-shutdown push-back keeps its place.
  if (config_.redis_ack_emulation) place_at_head(m);
  make_visible(m);  // keeps its place (on Celery, the one just given)
  return queue_status::ok;
}

message_id queue::schedule_retry(std::string body, sim::duration delay) {
  TWICE_CHECK(config_.hold_until_ack);
  TWICE_CHECK(delay >= sim::duration::zero() && delay <= uncapped_retry_wait);
  const sim::instant now = kernel_.now();
  // Waiting in the retry set is a delay; when it ends the message goes to
  // the back of the queue, as the poller's LPUSH puts it.
  return store_sent(std::move(body), scheduled_poll_at_or_after(now + delay) - now, {});
}

void queue::place_at_head(message& m) {
  // One place before the head of the receive order (the place is a time in
  // microseconds only as an order: it is never shown), or now if nothing waits.
  const std::int64_t now = kernel_.now().us();
  const std::int64_t head = visible_index_.empty() ? now : std::min(now, visible_index_.begin()->first - 1);
  m.queued_at = sim::instant::from_us(head);
}

queue_status queue::orphan_held(receipt_handle handle) {
  TWICE_CHECK(config_.super_fetch);
  const auto it = held(handle);
  if (it == messages_.end()) return queue_status::invalid_handle;
  message& m = it->second;
  events_.emit(actor_name_, ev::orphaned{m.id, handle, m.body_name});
  m.held = false;  // in the dead process's working list: nobody holds it
  orphans_.emplace(m.id, kernel_.now());
  return queue_status::ok;
}

std::size_t queue::recover_orphans() {
  TWICE_CHECK(config_.super_fetch);
  const sim::instant now = kernel_.now();
  // At most one orphan check an hour, across every process.
  if (last_orphan_check_ && now - *last_orphan_check_ < super_fetch_orphan_check) return 0;
  last_orphan_check_ = now;
  std::size_t recovered = 0;
  for (auto o = orphans_.begin(); o != orphans_.end();) {
    const auto [id, since] = *o;
    if (now < since + super_fetch_heartbeat_expiry) {
      ++o;
      continue;
    }
    o = orphans_.erase(o);
    const auto it = messages_.find(id);
    TWICE_CHECK(it != messages_.end());
    auto& [count, window_start] = recoveries_[id];
    if (count == 0 || now - window_start > super_fetch_recovery_window) {
      count = 0;
      window_start = now;
    }
    ++count;
    ++recovered;
    message& m = it->second;
    events_.emit(actor_name_, ev::orphan_recovered{m.id, m.body_name, count, now - since});
    if (count > super_fetch_recovery_limit && dead_letter_ != nullptr) {
      redrive(it);  // a poison pill: to the dead set
      continue;
    }
    make_visible(m);  // keeps its place
  }
  return recovered;
}

queue_status queue::reject_requeue(receipt_handle handle) {
  TWICE_CHECK(config_.redis_ack_emulation);
  const auto it = held(handle);
  if (it == messages_.end()) return queue_status::invalid_handle;
  message& m = it->second;
  events_.emit(actor_name_,
               ev::change_visibility{m.id, handle, sim::duration::zero(), queue_status::ok, true, true, kernel_.now()});
  make_visible(m, /*at_back=*/true);  // LPUSH: behind everything waiting
  return queue_status::ok;
}

}  // namespace twice
