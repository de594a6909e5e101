// A Kafka consumer: the parts of worker that differ from the SQS consumer
// loop. It is the Java client's poll loop (apache/kafka, KafkaConsumer and
// ConsumerCoordinator) with a listener that runs each record in turn, as a
// plain `while (true) { records = poll(); for (r : records) handle(r); }`
// or Spring Kafka's listener container does:
//
//  * poll: rejoin the group first if it is rebalancing (with auto-commit,
//    committing the positions before the rejoin: onJoinPrepare); then, once
//    auto.commit.interval.ms has passed, commit the positions (every record
//    returned by earlier polls, processed or not); then return up to
//    max.poll.records records from the member's partitions, or wait for
//    some. After a rebalance every partition starts again from its
//    committed offset (the eager protocol revokes them all), or, with none
//    committed, from auto.offset.reset.
//  * the batch runs record by record. A failure is retried in place: the
//    slice sleeps its backoff and runs the record again, holding up the
//    partition (Spring's DefaultErrorHandler seeks back to it; its default
//    FixedBackOff(0, 9) tries 10 times), then gives it to the recoverer
//    (the dead-letter topic, if any) and moves on.
//  * without auto-commit the application commits with commitSync after
//    each record or after the batch. A commit from a member the group has
//    removed fails (CommitFailedException); the loop goes back to poll,
//    rejoins as a new member, and the rest of the batch is read again by
//    whoever owns the partition now.
//  * the loop does not look at the group while it runs a batch: a member
//    removed for a slow batch (max.poll.interval.ms) runs the rest of it
//    while another member reads the same records from the last commit.
//  * a drain (SIGTERM) finishes the batch, then close(): with auto-commit
//    the positions are committed, and the member leaves the group, also
//    from the middle of a rebalance (wakeup() breaks the join). A crash
//    or kill stops its heartbeats; the group notices at the session's end.
//  * an error in the runtime's own steps after the handler (its checkpoint
//    or commit) stops the batch there: the record runs again from the next
//    poll after the retry backoff (Spring's DefaultErrorHandler: a seek to
//    the failed record), until retry.maximum_attempts such failures of the
//    record; then the recoverer dead-letters its job and the batch goes on.
//  * with librdkafka's client (kafka.client = "librdkafka") poll hands over
//    one record, and the auto-commit is a background thread's: every
//    interval it commits the stored offsets, by default stored as poll
//    hands a record over, so a record still running may be committed
//    (kafka_commit_in_background, runtime_config.hpp).
//
// A commit that would not move a partition's offset is not sent (the
// client sends it again every interval; nothing changes).

#include <algorithm>

#include <twice/store/store.hpp>
#include <twice/sim/sleep.hpp>

#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"
#include "runtime/worker.hpp"

namespace twice {

namespace {
// A record's receipt handle: its partition and offset.
constexpr int offset_bits = 40;
receipt_handle record_handle(std::uint32_t partition, std::int64_t offset) {
  return (std::uint64_t{partition} << offset_bits) | static_cast<std::uint64_t>(offset);
}
std::uint32_t handle_partition(receipt_handle h) { return static_cast<std::uint32_t>(h >> offset_bits); }
std::int64_t handle_offset(receipt_handle h) {
  return static_cast<std::int64_t>(h & ((std::uint64_t{1} << offset_bits) - 1));
}
}  // namespace

sim::task<void> worker::consume_kafka() {
  const kafka_config& cfg = *services_.config.kafka;
  kafka_topic& topic = *services_.topic;
  while (!draining_) {
    const std::vector<kafka_fetched> batch = co_await kafka_poll();
    kafka_.batch_broken = false;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (kafka_.batch_broken) {
        kafka_seek_back(batch, i);
        break;
      }
      if (cfg.client == kafka_client::librdkafka && cfg.enable_auto_offset_store)
        kafka_store(batch[i].partition, batch[i].offset + 1);  // as poll hands it over
      const kafka_record& rec = topic.at(batch[i].partition, batch[i].offset);
      received_message m;
      m.id = rec.id;
      m.handle = record_handle(batch[i].partition, batch[i].offset);
      m.body = rec.body;
      m.receive_count = rec.deliveries;
      m.sent_at = rec.sent_at;
      const std::string job = rec.body;
      bool runtime_failed = false;
      try {
        co_await run_slice(nullptr, std::move(m));
      } catch (const slice_error& e) {
        emit(ev::runtime_error{name_of(job), name_of(e.what())});
        runtime_failed = true;
      }
      if (runtime_failed) {
        // Spring's DefaultErrorHandler: the failure counts against the
        // record (FailedRecordTracker); the container sleeps the back-off
        // and seeks back to it, until the attempts are spent: then the
        // record is logged and skipped.
        const std::uint32_t failures = ++kafka_.failures[{batch[i].partition, batch[i].offset}];
        const std::uint32_t limit = services_.config.retry.maximum_attempts;
        if (limit == 0 || failures < limit) {
          kafka_seek_back(batch, i);
          kafka_.batch_broken = true;
          co_await sim::sleep_for(backoff_.next_delay(failures - 1));
          break;
        }
        kafka_.failures.erase({batch[i].partition, batch[i].offset});
        kafka_.processed[batch[i].partition] = batch[i].offset + 1;
        if (cfg.client == kafka_client::librdkafka && !cfg.enable_auto_offset_store)
          kafka_store(batch[i].partition, batch[i].offset + 1);
        runtime_failed = false;
        co_await kafka_recover(job);
      }
    }
    if (!kafka_.batch_broken && !cfg.enable_auto_commit && cfg.manual_commit == kafka_manual_commit::per_batch)
      kafka_commit(kafka_.processed, false);
  }
  // close(): commit (auto-commit), leave the group.
  if (!kafka_.member.empty() && services_.group->is_member(kafka_.member)) {
    if (cfg.enable_auto_commit) kafka_commit(kafka_auto_commit_offsets(), true);
    services_.group->leave(kafka_.member);
  }
  kafka_.member.clear();
  drained_->trigger();
}

sim::task<std::vector<worker::kafka_fetched>> worker::kafka_poll() {
  const kafka_config& cfg = *services_.config.kafka;
  consumer_group& group = *services_.group;
  if (!kafka_.member.empty()) group.poll_entered(kafka_.member);
  while (!draining_) {
    if (kafka_.member.empty() || !group.is_member(kafka_.member)) {
      // Removed (a poll timeout): the auto-commit before the rejoin fails
      // ("Asynchronous auto-commit of offsets failed"); then, as after
      // never having joined, JoinGroup as a new member.
      if (cfg.enable_auto_commit && !kafka_.member.empty() && kafka_.generation >= 0)
        kafka_commit(kafka_auto_commit_offsets(), true);
      kafka_.member = group.join_new(name_);
      kafka_.generation = -1;
    }
    if (group.needs_join(kafka_.member)) {
      if (cfg.enable_auto_commit && kafka_.generation >= 0) kafka_commit(kafka_auto_commit_offsets(), true);
      // A drain wakes a consumer blocked here (begin_drain notifies the
      // group): it leaves the join phase still a member, and close() below
      // sends LeaveGroup, so the rebalance under way goes on without it
      // instead of waiting for it until the pod is killed and its session
      // expires. apache/kafka@1eb7644349cb AbstractCoordinator.java L1123-1132
      // (close -> maybeLeaveGroup("the consumer is being closed")) and
      // L1170-1171: LeaveGroup is sent in any state but UNJOINED, a
      // rebalance under way included; GroupCoordinator.scala L1515: a member
      // leaving during PreparingRebalance completes the join if it was the
      // last one awaited.
      if (co_await group.join(kafka_.member, &draining_)) kafka_assigned();
      continue;
    }
    const sim::instant now = services_.kernel.now();
    const bool commits_in_poll = cfg.enable_auto_commit && cfg.client == kafka_client::java;
    if (commits_in_poll && now >= kafka_.next_auto_commit) {
      kafka_commit(kafka_auto_commit_offsets(), true);
      kafka_.next_auto_commit = now + cfg.auto_commit_interval;
    }
    std::vector<kafka_fetched> batch = kafka_fetch();
    if (!batch.empty()) {
      group.poll_returned(kafka_.member);
      co_return batch;
    }
    co_await group.changed().wait_until(commits_in_poll ? kafka_.next_auto_commit : sim::instant::max());
  }
  co_return std::vector<kafka_fetched>{};
}

// A new generation: every partition starts again from its committed offset.
void worker::kafka_assigned() {
  consumer_group& group = *services_.group;
  kafka_.generation = group.generation();
  kafka_.partitions = group.assignment(kafka_.member);
  kafka_.position.clear();
  kafka_.processed.clear();
  kafka_.stored.clear();
  kafka_.committed.clear();
  kafka_.next_partition = 0;
  for (std::uint32_t p : kafka_.partitions) {
    const std::optional<std::int64_t> committed = group.committed(p);
    const std::int64_t start = committed                                   ? *committed
                               : services_.config.kafka->reset_to_earliest ? 0
                                                                           : services_.topic->end_offset(p);
    kafka_.position[p] = start;
    kafka_.processed[p] = start;
    kafka_.committed[p] = committed.value_or(-1);
    group.note_start(p, start);
  }
}

// Up to max.poll.records from the member's partitions, each partition in
// turn starting after the one the last fetch started with.
std::vector<worker::kafka_fetched> worker::kafka_fetch() {
  const std::uint32_t limit = services_.config.kafka->max_poll_records;
  kafka_topic& topic = *services_.topic;
  std::vector<kafka_fetched> batch;
  const std::size_t n = kafka_.partitions.size();
  for (std::size_t k = 0; k < n && batch.size() < limit; ++k) {
    const std::uint32_t p = kafka_.partitions[(kafka_.next_partition + k) % n];
    std::int64_t& position = kafka_.position[p];
    while (position < topic.end_offset(p) && batch.size() < limit) {
      kafka_record& rec = topic.at(p, position);
      ++rec.deliveries;
      emit(ev::fetched{rec.id, name_of(rec.body), p, position, rec.deliveries, kafka_.generation});
      batch.push_back({p, position++});
    }
    services_.group->note_fetched(p, position);
  }
  if (n > 0) kafka_.next_partition = (kafka_.next_partition + 1) % n;
  return batch;
}

// What an auto-commit commits: the Java client's positions (every record
// poll returned), or librdkafka's stored offsets (runtime_config.hpp).
const std::map<std::uint32_t, std::int64_t>& worker::kafka_auto_commit_offsets() const {
  const kafka_config& cfg = *services_.config.kafka;
  if (cfg.client == kafka_client::java) return kafka_.position;
  return kafka_.stored;
}

// librdkafka's auto-commit: a thread of the client commits the stored
// offsets every auto.commit.interval.ms while the consumer has an
// assignment, whether the application is in poll or in its handler
// (confluentinc/librdkafka src/rdkafka_cgrp.c, rd_kafka_cgrp_offset_commit_tmr_cb
// on the auto-commit timer). It dies with the process.
sim::task<void> worker::kafka_commit_in_background() {
  const kafka_config& cfg = *services_.config.kafka;
  while (!(draining_ && kafka_.member.empty())) {
    co_await sim::sleep_for(cfg.auto_commit_interval);
    if (!kafka_.member.empty() && kafka_.generation >= 0 && services_.group->is_member(kafka_.member))
      kafka_commit(kafka_auto_commit_offsets(), true);
  }
}

bool worker::kafka_commit(const std::map<std::uint32_t, std::int64_t>& offsets, bool automatic) {
  bool all_ok = true;
  for (const auto& [partition, offset] : offsets) {
    auto last = kafka_.committed.find(partition);
    if (last != kafka_.committed.end() && last->second == offset) continue;
    const offset_commit_status st = services_.group->commit(kafka_.member, kafka_.generation, partition, offset);
    emit(ev::offset_commit{partition, offset, name_of(to_string(st)), automatic});
    if (st == offset_commit_status::ok)
      kafka_.committed[partition] = offset;
    else
      all_ok = false;
  }
  return all_ok;
}

// librdkafka's offset store: a partition has no stored offset until a
// record of it is stored, and the auto-commit leaves such a partition out.
void worker::kafka_store(std::uint32_t partition, std::int64_t next) {
  auto [it, added] = kafka_.stored.try_emplace(partition, next);
  if (!added) it->second = std::max(it->second, next);
}

void worker::kafka_processed(const received_message& record) {
  const std::uint32_t p = handle_partition(record.handle);
  const std::int64_t next = handle_offset(record.handle) + 1;
  kafka_.processed[p] = std::max(kafka_.processed[p], next);
  kafka_.failures.erase({p, next - 1});
  const kafka_config& cfg = *services_.config.kafka;
  // offsets_store() after the record ran, with enable.auto.offset.store off.
  if (cfg.client == kafka_client::librdkafka && !cfg.enable_auto_offset_store) kafka_store(p, next);
  if (cfg.enable_auto_commit || cfg.manual_commit != kafka_manual_commit::per_record) return;
  if (!kafka_commit({{p, next}}, false)) kafka_.batch_broken = true;
}

// The recoverer, after the record's last failure: the job ends dead-lettered
// (unless it ended meanwhile), and its record goes to the dead-letter topic
// if there is one (DeadLetterPublishingRecoverer); without one it is only
// logged, as Spring's default recoverer does.
sim::task<void> worker::kafka_recover(const std::string& job) {
  transaction tx = co_await services_.db.begin(name_);
  job_update change;
  change.status = job_status::dead_lettered;
  change.last_error = "failed in the runtime, retries spent";
  change.unless_ended = true;
  change.lease_token = services_.next_lease_token++;
  co_await tx.update_job(job, std::move(change));
  co_await tx.commit();
  const std::optional<job_row> row = services_.db.find_job(job);
  TWICE_CHECK(row.has_value());
  if (row->status != job_status::dead_lettered || row->last_error != "failed in the runtime, retries spent") co_return;
  if (services_.dead_letters != nullptr) services_.dead_letters->send(job);
  emit(ev::dead_letter{name_of(job), row->attempts, name_of(row->last_error)});
}

void worker::kafka_seek_back(const std::vector<kafka_fetched>& batch, std::size_t from) {
  for (std::size_t j = from; j < batch.size(); ++j) {
    std::int64_t& position = kafka_.position[batch[j].partition];
    position = std::min(position, batch[j].offset);
  }
}

void worker::kafka_heartbeats_stop() {
  if (services_.group == nullptr || kafka_.member.empty()) return;
  services_.group->heartbeats_stopped(kafka_.member);
  kafka_.member.clear();
}

}  // namespace twice
