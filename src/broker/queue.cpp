// An SQS-like queue: sends, receives, deletes, redrives and what it
// reports. Its visibility (leases, timers, the scheduled poller) is in
// queue_visibility.cpp, its held messages in queue_held.cpp, batches in
// queue_batch.cpp, fair queues in queue_fair.cpp, retention in
// queue_retention.cpp.

#include "broker/queue.hpp"

#include <algorithm>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

namespace {

// MessageRetentionPeriod: 60 s .. 1,209,600 s (14 days).
constexpr sim::duration retention_min = sim::duration::from_s(60);
constexpr sim::duration retention_max = sim::duration::from_s(14 * 24 * 3600);
// Redrive policy maxReceiveCount: 1 .. 1000.
constexpr std::uint32_t max_receive_count_max = 1000;

}  // namespace

queue_status check_receive_options(const receive_options& options) {
  if (options.max_messages < 1 || options.max_messages > max_messages_per_receive)
    return queue_status::invalid_parameter;
  if (options.wait && (*options.wait < sim::duration::zero() || *options.wait > max_long_poll))
    return queue_status::invalid_parameter;
  if (options.visibility_timeout &&
      (*options.visibility_timeout < sim::duration::zero() || *options.visibility_timeout > max_visibility_timeout))
    return queue_status::invalid_parameter;
  return queue_status::ok;
}

queue::queue(sim::kernel& k, event_log& events, queue_id_source& ids, queue_config config)
    : kernel_(k),
      events_(events),
      ids_(ids),
      config_(std::move(config)),
      actor_("queue/" + config_.name),
      actor_name_(events.name(actor_)),
      available_(k) {
  // The scenario loader validates user input; here a bad value is a bug.
  TWICE_CHECK(sim::is_trace_identifier(config_.name));
  TWICE_CHECK(config_.visibility_timeout >= sim::duration::zero());
  TWICE_CHECK(config_.visibility_timeout <=
              (config_.redis_ack_emulation ? max_redis_visibility_timeout : max_visibility_timeout));
  TWICE_CHECK(config_.retention >= retention_min);
  TWICE_CHECK(config_.retention <= (config_.pubsub     ? max_pubsub_retention
                                    : config_.dead_set ? max_dead_set_retention
                                                       : retention_max));
  TWICE_CHECK(!config_.pubsub || config_.visibility_timeout <= max_ack_deadline);
  TWICE_CHECK(!config_.retry_policy ||
              (config_.pubsub && config_.retry_policy->minimum_backoff >= sim::duration::zero() &&
               config_.retry_policy->minimum_backoff <= config_.retry_policy->maximum_backoff &&
               config_.retry_policy->maximum_backoff <= max_pubsub_backoff));
  TWICE_CHECK(config_.max_receive_count <= max_receive_count_max);
  TWICE_CHECK(config_.delay >= sim::duration::zero() && config_.delay <= max_delay);
  TWICE_CHECK(config_.receive_wait >= sim::duration::zero() && config_.receive_wait <= max_long_poll);
  TWICE_CHECK(config_.fifo || !config_.content_based_deduplication);
  TWICE_CHECK(config_.fifo_scan_window >= 1);
  TWICE_CHECK(
      int{config_.fifo} + int{config_.hold_until_ack} + int{config_.redis_ack_emulation} + int{config_.pubsub} <= 1);
  TWICE_CHECK(!config_.redis_ack_emulation || config_.restore_sweep > sim::duration::zero());
  TWICE_CHECK(!config_.super_fetch || config_.hold_until_ack);
  if (config_.fifo) fifo_.emplace(config_.fifo_scan_window);
}

void queue::set_dead_letter(queue* dlq) {
  if (dlq != nullptr) {
    TWICE_CHECK(dlq != this);
    // A redrive policy names both the target and maxReceiveCount (super_fetch
    // sends its poison pills to the dead set without one).
    TWICE_CHECK(config_.max_receive_count > 0 || config_.super_fetch);
    TWICE_CHECK(&dlq->kernel_ == &kernel_);
    // Ids stay unique across the world only if both queues draw from one source.
    TWICE_CHECK(&dlq->ids_ == &ids_);
    // "The dead-letter queue of a FIFO queue must also be a FIFO queue" (and
    // a standard queue's a standard one): Developer Guide, dead-letter queues.
    TWICE_CHECK(dlq->config_.fifo == config_.fifo);
  }
  dead_letter_ = dlq;
}

void queue::set_faults(queue_faults* faults) { faults_ = faults; }

// ---- send -----------------------------------------------------------------

message_id queue::send(std::string body, std::optional<sim::duration> delay_given, std::string_view group) {
  if (config_.fifo) {
    // The body (a job id) names the message: its deduplication id, and its
    // group when none is given.
    send_request request;
    request.group = group.empty() ? body : std::string(group);
    request.deduplication_id = body;
    request.body = std::move(body);
    request.delay = delay_given;
    const send_result sent = send_message(std::move(request));
    TWICE_CHECK(sent.status == queue_status::ok);
    return sent.id;
  }
  const sim::duration delay = delay_given.value_or(config_.delay);
  TWICE_CHECK(delay >= sim::duration::zero());
  TWICE_CHECK(delay <= max_delay);
  return store_sent(std::move(body), delay, group);
}

send_result queue::send_message(send_request request) {
  send_result out;
  const sim::duration delay = request.delay.value_or(config_.delay);
  if (!config_.fifo) {
    // "The request include parameter that is not valid for this queue type."
    if (!request.deduplication_id.empty() || delay < sim::duration::zero() || delay > max_delay ||
        (request.eta && !config_.redis_ack_emulation))
      out.status = queue_status::invalid_parameter;
    else
      out.id = store_sent(std::move(request.body), delay, request.group);
    if (out.id != 0 && request.eta) eta_.emplace(out.id, *request.eta);
    return out;
  }
  // A FIFO queue takes no per-message delay, but an explicit 0 means the
  // queue's (test_fifo_queue_send_message_with_delay_seconds_fails,
  // test_fifo_queue_send_message_with_zero_delay_defaults_to_queue_delay).
  if (request.delay && *request.delay != sim::duration::zero()) {
    out.status = queue_status::invalid_parameter;
  } else if (request.group.empty()) {
    out.status = queue_status::missing_group;
  } else if (request.deduplication_id.empty() && !config_.content_based_deduplication) {
    out.status = queue_status::missing_deduplication_id;
  }
  if (out.status != queue_status::ok) return out;
  const sim::instant now = kernel_.now();
  const bool by_content = request.deduplication_id.empty();
  dedup_window::key key{by_content, by_content ? request.body : request.deduplication_id};
  if (const std::optional<message_id> first = dedup_.find(key, now)) {
    events_.emit(actor_name_,
                 ev::send_deduplicated{*first, events_.name(request.body), events_.name(request.deduplication_id)});
    out.id = *first;
    out.deduplicated = true;
    return out;
  }
  out.id = store_sent(std::move(request.body), config_.delay, request.group);
  dedup_.remember(std::move(key), out.id, now);
  return out;
}

message_id queue::store_sent(std::string body, sim::duration delay, std::string_view group) {
  const sim::instant now = kernel_.now();
  message m;
  m.id = ids_.next_message++;
  m.body = std::move(body);
  m.body_name = events_.name(m.body);
  m.sent_at = now;
  m.entered_at = now;
  m.state = message_state::delayed;
  m.visible_at = now + delay;
  if (!group.empty()) {
    m.grouped = true;
    m.group = events_.name(group);
    note_group_seen();
  }
  m.place = next_place_++;
  const auto [it, inserted] = messages_.emplace(m.id, std::move(m));
  TWICE_CHECK(inserted);
  message& stored = it->second;
  if (fifo_) {
    TWICE_CHECK(stored.grouped);
    fifo_->enter(stored.group, stored.id, stored.place, false);
  }
  ++sent_;
  events_.emit(actor_name_, ev::send{stored.id, stored.body_name, delay});
  arm_retention_timer(stored);
  if (config_.dead_set) trim_dead_set(stored.id);
  if (delay == sim::duration::zero()) {
    make_visible(stored);
  } else {
    arm_visibility_timer(stored);
  }
  return stored.id;
}

// ---- receive --------------------------------------------------------------

sim::task<receive_result> queue::receive(receive_options options) {
  receive_result result;
  result.status = check_receive_options(options);
  if (result.status != queue_status::ok) co_return result;
  const sim::instant started = kernel_.now();
  const sim::instant deadline = started + options.wait.value_or(config_.receive_wait);
  std::vector<received_message>& out = result.messages;
  out.reserve(options.max_messages);
  // Bounded: every pass either returns, or waits for the deadline or for a
  // notify, and a notify is spent per message made visible. After a wake we
  // look again: another consumer may have taken what woke us.
  while (true) {
    take_visible(options, out);
    if (!out.empty()) break;
    if (kernel_.now() >= deadline) break;
    co_await available_.wait_until(deadline);
  }
  if (out.empty()) note_empty_receive(kernel_.now() - started);
  co_return result;
}

void queue::note_empty_receive(sim::duration waited) { events_.emit(actor_name_, ev::receive_empty{waited}); }

std::vector<received_message> queue::take_now(const receive_options& options) {
  TWICE_CHECK(check_receive_options(options) == queue_status::ok);
  std::vector<received_message> out;
  take_visible(options, out);
  return out;
}

void queue::take_visible(const receive_options& options, std::vector<received_message>& out) {
  if (fifo_) return take_visible_fifo(options, out);
  if (any_noisy_group()) return take_visible_fairly(options, out);
  const sim::duration timeout = options.visibility_timeout.value_or(config_.visibility_timeout);
  // `next` is advanced before the current entry is handled: a delivery or a
  // redrive erases only the current entry, and a duplicate delivery leaves it
  // in place without this receive taking it twice.
  auto next = visible_index_.begin();
  while (next != visible_index_.end() && out.size() < options.max_messages) {
    const message_id id = next->second;
    ++next;
    const auto it = messages_.find(id);
    TWICE_CHECK(it != messages_.end());
    TWICE_CHECK(it->second.state == message_state::visible);
    const bool redrive_due = config_.max_receive_count > 0 && it->second.receive_count >= config_.max_receive_count;
    if (redrive_due) {
      // The receive that would be delivery N+1 moves it instead, and goes
      // on looking for another message (SQS moves the message "when the
      // ReceiveCount for a message exceeds the maxReceiveCount", Developer
      // Guide, "Using dead-letter queues").
      redrive(it);
      continue;
    }
    out.push_back(deliver(it->second, timeout));
  }
}

// What the FIFO order lets this receive take, delivered in that order. A
// redrive takes a message out of its group and lets the one behind it move
// up, so the order is asked again until nothing more is ready or the
// receive is full (each pass takes at least one visible message).
void queue::take_visible_fifo(const receive_options& options, std::vector<received_message>& out) {
  const sim::duration timeout = options.visibility_timeout.value_or(config_.visibility_timeout);
  while (out.size() < options.max_messages) {
    const std::vector<message_id> ids = fifo_->ready(options.max_messages - static_cast<std::uint32_t>(out.size()));
    if (ids.empty()) return;
    for (const message_id id : ids) {
      const auto it = messages_.find(id);
      TWICE_CHECK(it != messages_.end() && it->second.state == message_state::visible);
      if (config_.max_receive_count > 0 && it->second.receive_count >= config_.max_receive_count) {
        redrive(it);
        continue;
      }
      out.push_back(deliver(it->second, timeout));
    }
  }
}

received_message queue::deliver(message& m, sim::duration timeout) {
  const sim::instant now = kernel_.now();
  ++m.receive_count;
  ++m.version;
  ++received_;
  const receipt_handle handle = ids_.next_handle++;
  m.latest_handle = handle;
  TWICE_CHECK(handle_rows_.empty() || handle_rows_.back().handle < handle);
  handle_rows_.push_back({handle, m.id});
  ++m.handles_issued;
  received_message r{m.id, handle, m.body, m.receive_count, m.sent_at, std::nullopt};

  const bool duplicate = broker_faults_apply() && faults_->duplicate_delivery(r);
  if (duplicate) {
    // Left visible, at its place in the index: the next receive gets it too.
    events_.emit(actor_name_, ev::receive{m.id, handle, m.body_name, m.receive_count, now});
    events_.emit(actor_name_, ev::duplicate_delivery{m.id, handle, m.body_name, m.receive_count});
    // A long poller may be waiting: the message is still there for it.
    notify_visible();
    return r;
  }
  unindex_visible(m);
  m.state = message_state::in_flight;
  count_in_flight(m, true);
  if (fifo_) fifo_->set_visible(m.group, m.id, false, m.place);
  m.received_at = now;
  m.visible_at = now + timeout;
  m.held = config_.hold_until_ack || config_.redis_ack_emulation;
  if (config_.redis_ack_emulation) {
    // Restored by the first sweep at or after its timeout.
    const std::int64_t sweep = config_.restore_sweep.us();
    const std::int64_t due = (now + config_.visibility_timeout).us();
    m.visible_at = sim::instant::from_us((due + sweep - 1) / sweep * sweep);
    if (const auto eta = eta_.find(m.id); eta != eta_.end()) r.eta = eta->second;
  }
  events_.emit(actor_name_, ev::receive{m.id, handle, m.body_name, m.receive_count, m.visible_at});
  // Even a zero timeout goes through a timer, so the message becomes visible
  // after this receive returns rather than being taken twice by it. A
  // message held until its ack has no timer at all.
  if (!config_.hold_until_ack) arm_visibility_timer(m);
  return r;
}

// ---- delete ---------------------------------------------------------------

queue_status queue::delete_message(receipt_handle handle) {
  const message_id id = message_of(handle);
  if (id == 0) {
    events_.emit(actor_name_, ev::message_delete{0, handle, 0, queue_status::invalid_handle, false});
    return queue_status::invalid_handle;
  }
  const auto it = messages_.find(id);
  if (it == messages_.end()) {
    // Gone (deleted, expired, redriven, purged): AWS answers OK, every time
    // (test_delete_message_with_deleted_receipt_handle,
    // test_message_retention_with_inflight).
    TWICE_CHECK(gone_.contains(id));
    events_.emit(actor_name_, ev::message_delete{id, handle, 0, queue_status::ok, false});
    return queue_status::ok;
  }
  message& m = it->second;
  if (fifo_ && !fifo_lease_live(m, handle)) {
    // "The receipt handle has expired." (test_fifo_delete_after_visibility_timeout,
    // test_fifo_delete_message_with_expired_receipt_handle).
    events_.emit(actor_name_, ev::message_delete{id, handle, m.body_name, queue_status::receipt_handle_expired, false});
    return queue_status::receipt_handle_expired;
  }
  if (config_.redis_ack_emulation && (m.latest_handle != handle || m.state != message_state::in_flight)) {
    // Restored since this delivery (and maybe taken again): the ack removes
    // this delivery's tag from `unacked`, which is no longer there; the
    // restored copy stays in the list (kombu QoS.ack).
    events_.emit(actor_name_, ev::message_delete{id, handle, m.body_name, queue_status::ok, false});
    return queue_status::ok;
  }
  if (m.latest_handle != handle) {
    // Received again since this handle was issued. SQS: "If you use an old
    // ReceiptHandle, the request will succeed, but the message might not be
    // deleted" (DeleteMessage, API reference). We pick: not deleted.
    const queue_status status =
        config_.semantics == handle_semantics::strict ? queue_status::stale_handle : queue_status::ok;
    events_.emit(actor_name_, ev::message_delete{id, handle, m.body_name, status, false});
    return status;
  }
  if (broker_faults_apply() && faults_->lose_delete(id)) {
    events_.emit(actor_name_, ev::delete_lost{id, handle, m.body_name, queue_status::ok});
    return queue_status::ok;
  }
  // The latest handle deletes whether or not its lease expired, "even if the
  // message is locked by another reader" (DeleteMessage, API reference).
  events_.emit(actor_name_, ev::message_delete{id, handle, m.body_name, queue_status::ok, true});
  ++deleted_count_;
  count_final(m.receive_count);
  erase_message(it);
  return queue_status::ok;
}

queue_status queue::purge() {
  const sim::instant now = kernel_.now();
  if (last_purge_ && now < *last_purge_ + purge_interval) {
    events_.emit(actor_name_, ev::purge{0, queue_status::purge_in_progress});
    return queue_status::purge_in_progress;
  }
  last_purge_ = now;
  dedup_.clear();  // test_purge_queue_clears_fifo_deduplication_cache
  const std::int64_t held = static_cast<std::int64_t>(messages_.size());
  events_.emit(actor_name_, ev::purge{held, queue_status::ok});
  while (!messages_.empty()) {
    const auto it = messages_.begin();
    count_final(it->second.receive_count);
    ++purged_;
    erase_message(it);
  }
  return queue_status::ok;
}

// ---- redrive --------------------------------------------------------------

// "The redrive task resets the retention period. All redriven messages are
// considered new messages with a new messageID and enqueueTime", in the
// order the dead-letter queue received them, oldest first (Developer
// Guide, "Learn how to configure a dead-letter queue redrive").
std::size_t queue::move_visible_to(queue& target, const std::function<bool(std::string_view body)>& which) {
  TWICE_CHECK(&target != this);
  // Not modelled for FIFO queues (the scenario loader refuses a redrive there).
  TWICE_CHECK(!config_.fifo && !target.config_.fifo);
  std::vector<message_id> chosen;
  for (const auto& [at, id] : visible_index_)
    if (!which || which(messages_.at(id).body)) chosen.push_back(id);
  const ev::name_id to = events_.name(target.config_.name);
  for (const message_id id : chosen) {
    const auto it = messages_.find(id);
    TWICE_CHECK(it != messages_.end());
    const std::string body = std::move(it->second.body);
    const ev::name_id body_name = it->second.body_name;
    const std::uint32_t receives = it->second.receive_count;
    const std::string group = it->second.grouped ? std::string(events_.names().text(it->second.group)) : std::string();
    count_final(receives);
    erase_message(it);
    ++moved_out_;
    // The new id is the next one the shared source hands out: the send below.
    events_.emit(actor_name_, ev::moved_out{id, body_name, receives, to, ids_.next_message});
    target.send(body, sim::duration::zero(), group);
  }
  return chosen.size();
}

std::vector<std::string> queue::visible_bodies() const {
  std::vector<std::string> out;
  for (const auto& [at, id] : visible_index_) out.push_back(messages_.at(id).body);
  return out;
}

void queue::for_each_message(const std::function<void(const held_view&)>& fn) const {
  for (const auto& [id, m] : messages_)
    fn({m.body, keeps_forever() ? std::nullopt : std::optional<sim::instant>(m.sent_at + config_.retention)});
}

void queue::redrive(message_map::iterator it) {
  // A redrive policy without a target does not exist in SQS.
  TWICE_CHECK(dead_letter_ != nullptr);
  message& m = it->second;
  events_.emit(actor_name_, ev::redrive{m.id, m.body_name, m.receive_count, events_.name(dead_letter_->config_.name)});
  ++redriven_;
  count_final(m.receive_count);
  // Keeps id, body, sent time (the enqueue timestamp), receive count, and
  // the version, so a timer armed here can never match it in another stint.
  message moved;
  moved.id = m.id;
  moved.body = std::move(m.body);
  moved.body_name = m.body_name;
  moved.sent_at = m.sent_at;
  moved.receive_count = m.receive_count;
  moved.version = m.version;
  moved.grouped = m.grouped;
  moved.group = m.group;
  erase_message(it);
  dead_letter_->accept_redriven(std::move(moved), config_.name);
}

void queue::accept_redriven(message m, const std::string& from) {
  const sim::instant now = kernel_.now();
  // Back in a queue it left before: its old handles here go now.
  if (gone_.contains(m.id)) forget_tombstone(m.id);
  m.entered_at = now;
  m.queued_at = now;
  m.state = message_state::visible;
  m.visible_at = now;
  m.latest_handle = 0;  // the source queue's handles mean nothing here
  m.handles_from = ids_.next_handle;
  m.handles_issued = 0;
  ++m.version;
  // "For standard queues, the expiration of a message is always based on its
  // original enqueue timestamp. When a message is moved to a dead-letter
  // queue, the enqueue timestamp is unchanged." (Developer Guide, "Setting-up
  // dead-letter queue retention").
  // (The dead set scores a job by its death: the earliest a later death may trim it.)
  const sim::instant expires_at = (config_.dead_set ? now : m.sent_at) + config_.retention;
  events_.emit(actor_name_, ev::redrive_in{m.id, m.body_name, m.receive_count, events_.name(from), expires_at});
  if (!config_.dead_set && expires_at <= now) {
    record_expiry(m);  // its retention had already passed: gone at once
    return;
  }
  if (m.grouped) note_group_seen();
  m.place = next_place_++;
  const auto [it, inserted] = messages_.emplace(m.id, std::move(m));
  TWICE_CHECK(inserted);
  index_visible(it->second);
  if (fifo_) {
    TWICE_CHECK(it->second.grouped);
    fifo_->enter(it->second.group, it->second.id, it->second.place, true);
  }
  arm_retention_timer(it->second);
  if (config_.dead_set) trim_dead_set(it->second.id);
  notify_visible();
}

// ---- observation ----------------------------------------------------------

queue_stats queue::stats() const {
  queue_stats s;
  const sim::instant now = kernel_.now();
  sim::instant oldest = now;
  for (const auto& entry : messages_) {
    const message& m = entry.second;
    switch (m.state) {
      case message_state::visible:
        ++s.visible;
        break;
      case message_state::delayed:
        ++s.delayed;
        break;
      // Held until the ack, a message that is not with a process waits out
      // a retry in Sidekiq's retry set: scheduled, not in flight.
      case message_state::in_flight:
        ++(config_.hold_until_ack && !m.held ? s.delayed : s.in_flight);
        break;
    }
    if (m.entered_at < oldest) oldest = m.entered_at;
  }
  TWICE_CHECK(s.visible == visible_index_.size());
  // Age since the message entered this queue: for a dead-letter queue that is
  // the redrive, as CloudWatch's ApproximateAgeOfOldestMessage reports it
  // (Developer Guide, "Setting-up dead-letter queue retention").
  s.oldest_age = now - oldest;
  s.sent = sent_;
  s.received = received_;
  s.deleted = deleted_count_;
  s.expired = expired_;
  s.redriven = redriven_;
  s.moved_out = moved_out_;
  s.purged = purged_;
  s.lost_with_process = lost_;
  s.receive_count_histogram = receive_count_histogram_;
  return s;
}

bool queue::contains(message_id id) const { return messages_.contains(id); }

bool queue::given_out_since(receipt_handle handle) const {
  const auto it = messages_.find(message_of(handle));
  return it != messages_.end() && (it->second.latest_handle != handle || it->second.state != message_state::in_flight);
}

std::uint64_t queue::footprint() const {
  return sim::tree_footprint(messages_) + sim::footprint_of(handle_rows_) + gone_.footprint() +
         sim::tree_footprint(visible_index_) + sim::tree_footprint(visible_ungrouped_) +
         sim::tree_footprint(visible_by_group_) + sim::tree_footprint(in_flight_by_group_) +
         sim::footprint_of(retention_) + sim::tree_footprint(receive_count_histogram_) +
         (fifo_ ? fifo_->footprint() : 0) + dedup_.footprint() + sim::tree_footprint(eta_) +
         sim::footprint_of(deaths_) + sim::footprint_of(poller_looks_);
}

}  // namespace twice
