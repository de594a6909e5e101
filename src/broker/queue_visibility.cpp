// The queue's visibility: a lease's change (ChangeMessageVisibility, a
// Pub/Sub modack), a message becoming visible again, Sidekiq's scheduled
// poller, a Pub/Sub RetryPolicy's backoff, and the visibility timers. The
// rest of the queue is in queue.cpp.

#include <algorithm>

#include <twice/sim/check.hpp>
#include <twice/sim/distributions.hpp>

#include "broker/queue.hpp"

namespace twice {

namespace {

// A visibility timer's argument packs the message id (high 40 bits) and the
// low 24 bits of the message version it was armed for. A stale timer could
// only be mistaken for a live one after exactly 2^24 visibility changes of
// one message between arming and firing, and it would still have to fire at
// the message's current visible_at, which is checked as well.
constexpr unsigned timer_version_bits = 24;
constexpr std::uint64_t timer_version_mask = (std::uint64_t{1} << timer_version_bits) - 1;
constexpr message_id timer_id_max = (message_id{1} << (64 - timer_version_bits)) - 1;

std::uint64_t pack_timer(message_id id, std::uint64_t version) {
  TWICE_CHECK(id <= timer_id_max);
  return (id << timer_version_bits) | (version & timer_version_mask);
}

}  // namespace

// ---- visibility -----------------------------------------------------------

queue_status queue::change_visibility(receipt_handle handle, sim::duration timeout) {
  const message_id id = message_of(handle);
  // A deleted message's handles are still known, but it is not in messages_.
  const auto it = id == 0 ? messages_.end() : messages_.find(id);
  const bool known = it != messages_.end();
  const bool latest = known && it->second.latest_handle == handle;

  queue_status status = queue_status::ok;
  bool applied = false;
  // A held message's retry waits as long as it is told (no 12 h lease limit).
  const sim::duration longest = config_.hold_until_ack ? uncapped_retry_wait
                                : config_.pubsub       ? max_ack_deadline
                                                       : max_visibility_timeout;
  if (config_.redis_ack_emulation) {
    // kombu has no such call: a lease in Redis cannot be changed.
    status = queue_status::invalid_parameter;
  } else if (timeout < sim::duration::zero() || timeout > longest) {
    status = queue_status::invalid_timeout;
  } else if (id == 0) {
    status = queue_status::invalid_handle;  // never issued here, or forgotten
  } else if (!known) {
    // The message is gone (deleted, expired, redriven, purged): SQS answers
    // InvalidParameterValue, "Message does not exist or is not available
    // for visibility timeout change" (AWS-validated
    // test_change_visibility_on_deleted_message_raises_invalid_parameter_value).
    status = queue_status::message_not_available;
  } else if (fifo_ && !fifo_lease_live(it->second, handle)) {
    status = queue_status::receipt_handle_expired;
  } else if (!latest && config_.semantics == handle_semantics::strict) {
    status = queue_status::stale_handle;
  } else if (it->second.state != message_state::in_flight) {
    // The lease expired and nobody holds it: SQS answers OK and changes
    // nothing (AWS-validated test in localstack/localstack PR #9632, "fix
    // change_message_visibility behaviour for expired handles"), although
    // the API reference lists a MessageNotInflight error. The project's design
    // notes (shared/DESIGN.md, "Semantics to model") say OK too.
  } else {
    // In flight. With an old handle SQS still applies it, to the copy now in
    // flight (the same localstack tests; the design notes' "Semantics to
    // model"); so a heartbeat cannot tell a worker it lost its lease.
    // A Pub/Sub nack with a RetryPolicy: the message waits out the backoff.
    if (timeout == sim::duration::zero() && config_.pubsub && config_.retry_policy) {
      start_retry_backoff(it->second, pubsub_retry_delay(*config_.retry_policy, it->second.receive_count));
      status = queue_status::ok;
    } else {
      status = apply_visibility(it->second, timeout);
    }
    applied = status == queue_status::ok;
  }

  const sim::instant now = kernel_.now();
  const sim::instant visible_at = applied ? it->second.visible_at : now + timeout;
  events_.emit(actor_name_, ev::change_visibility{id, handle, timeout, status, applied, latest, visible_at});
  return status;
}

queue_status queue::apply_visibility(message& m, sim::duration timeout) {
  TWICE_CHECK(m.state == message_state::in_flight);
  const sim::instant now = kernel_.now();
  // The new timeout counts from the call, and the lease may not end later
  // than 12 h after the receive: "If you attempt to set the
  // VisibilityTimeout to an amount more than the maximum time left, Amazon
  // SQS returns an error. It will not automatically recalculate and increase
  // the timeout to the maximum time remaining." (ChangeMessageVisibility, API
  // reference).
  if (!config_.hold_until_ack && !config_.pubsub && now + timeout > m.received_at + max_visibility_timeout)
    return queue_status::invalid_timeout;
  if (timeout == sim::duration::zero()) {
    make_visible(m, config_.hold_until_ack);
    return queue_status::ok;
  }
  ++m.version;
  m.visible_at = config_.hold_until_ack ? scheduled_poll_at_or_after(now + timeout) : now + timeout;
  m.held = false;  // a retry waits in the broker, not with the process
  arm_visibility_timer(m);
  return queue_status::ok;
}

void queue::set_scheduled_poller(sim::random_stream waits) {
  TWICE_CHECK(config_.hold_until_ack && config_.scheduled_poll_average > sim::duration::zero());
  poller_waits_ = waits;
}

// The first look of the poller at or after `due`: scheduled.rb's loop
// enqueues what is due, then sleeps random_poll_interval, "poll_interval_average
// * rand + poll_interval_average / 2".
sim::instant queue::scheduled_poll_at_or_after(sim::instant due) {
  if (!poller_waits_) return due;
  const sim::duration average = config_.scheduled_poll_average;
  while (poller_drawn_until_ < due) {
    poller_drawn_until_ = poller_drawn_until_ + sim::uniform_duration(*poller_waits_, average / 2, average * 3 / 2);
    poller_looks_.push_back(poller_drawn_until_);
  }
  const sim::instant now = kernel_.now();
  while (poller_looks_.size() > 1 && poller_looks_[1] <= now) poller_looks_.pop_front();
  return *std::lower_bound(poller_looks_.begin(), poller_looks_.end(), due);
}

void queue::make_visible(message& m, bool at_back) {
  TWICE_CHECK(m.state != message_state::visible);
  const sim::instant now = kernel_.now();
  ++m.version;  // any timer still pending for the old state is now stale
  if (m.state == message_state::in_flight) count_in_flight(m, false);
  m.held = false;
  // A delayed message takes its place in the receive order now; one whose
  // lease ended keeps the place it had. On a FIFO queue it goes to the back
  // of the order of groups instead (broker/fifo_order.hpp).
  const bool lease_ended = m.state == message_state::in_flight;
  if (m.state == message_state::delayed || at_back) m.queued_at = now;
  if (fifo_ && lease_ended) m.place = next_place_++;
  m.state = message_state::visible;
  m.visible_at = now;
  index_visible(m);
  if (fifo_) fifo_->set_visible(m.group, m.id, true, m.place);
  notify_visible();
}

void queue::start_retry_backoff(message& m, sim::duration wait) {
  TWICE_CHECK(m.state == message_state::in_flight && config_.pubsub);
  count_in_flight(m, false);
  ++m.version;  // the lease's timer is stale
  m.state = message_state::delayed;
  m.visible_at = kernel_.now() + wait;
  arm_visibility_timer(m);
}

bool queue::fifo_lease_live(const message& m, receipt_handle handle) const {
  return m.latest_handle == handle && m.state == message_state::in_flight;
}

void queue::notify_visible() {
  available_.notify_one();
  if (watcher_ != nullptr) watcher_->notify_one();
}

void queue::arm_visibility_timer(message& m) {
  TWICE_CHECK(m.state != message_state::visible);
  TWICE_CHECK(m.visible_at >= kernel_.now());
  kernel_.schedule_at(m.visible_at, &queue::on_visibility_timer, this, pack_timer(m.id, m.version));
}

void queue::on_visibility_timer(sim::kernel&, void* ctx, std::uint64_t arg) {
  TWICE_CHECK(ctx != nullptr);
  static_cast<queue*>(ctx)->visibility_timer_fired(arg >> timer_version_bits, arg & timer_version_mask);
}

void queue::visibility_timer_fired(message_id id, std::uint64_t version_bits) {
  const auto it = messages_.find(id);
  if (it == messages_.end()) return;  // deleted, expired or redriven since
  message& m = it->second;
  if ((m.version & timer_version_mask) != version_bits) return;  // lease changed since
  if (m.state == message_state::visible) return;
  if (m.visible_at != kernel_.now()) return;  // a version that wrapped around: not this lease's timer
  const bool was_delayed = m.state == message_state::delayed;
  if (was_delayed) {
    events_.emit(actor_name_, ev::delay_ended{m.id, m.body_name});
  } else {
    const ev::lease_kind lease = config_.hold_until_ack        ? ev::lease_kind::retry_set
                                 : config_.pubsub              ? ev::lease_kind::ack_deadline
                                 : config_.redis_ack_emulation ? ev::lease_kind::redis_visibility
                                                               : ev::lease_kind::visibility_timeout;
    events_.emit(actor_name_, ev::lease_expired{m.id, m.latest_handle, m.body_name, m.receive_count, lease});
    // The RetryPolicy is "triggered on NACKs or acknowledgment deadline
    // exceeded events" (pubsub_retry_policy.hpp): an expired deadline waits
    // out the same backoff as a nack before the message goes out again.
    if (config_.pubsub && config_.retry_policy) {
      start_retry_backoff(m, pubsub_retry_delay(*config_.retry_policy, m.receive_count));
      return;
    }
  }
  // A held message's timer is its retry coming due: back of the queue.
  make_visible(m, !was_delayed && config_.hold_until_ack);
}

}  // namespace twice
