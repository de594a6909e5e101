#pragma once
// The run's vocabulary: every observable step a model takes is one typed
// event, a payload struct below. Models emit them (events/event_log.hpp);
// observers (the world's own bookkeeping, the invariant checkers, the
// attempt collector) receive them through a typed callback and never learn
// what happened by matching a string. Text exists only at the output edge.
//
// Names (job ids, keys, invoices, shas, free text such as an error) are
// name_ids interned in the world's name_table (events/name_table.hpp): a
// payload is a few integers. Enumerations are the models' own.
//
// Each payload lists its fields once, in `fields(v)`, in the order they are
// written: that list is the event's text form at the output edge (today also
// the trace record the digest is computed from, sim/trace.hpp) and nothing
// else may be written. A visitor `v` has
//   v.name(field, name_id)                    a name, written as its text
//   v.integer(field, std::int64_t)
//   v.boolean(field, bool)
//   v.word(field, std::uint8_t value, text)   an enumeration: its value and its word
// Field names are string literals (static storage).

//
// The payloads live by actor in worker_events.hpp, relay_events.hpp,
// broker_events.hpp, vendor_events.hpp and store_events.hpp; the world's
// own, the variant of every kind and the event itself are here.

#include <cstdint>
#include <string_view>
#include <variant>

#include <twice/events/broker_events.hpp>
#include <twice/events/kafka_events.hpp>
#include <twice/events/event_basics.hpp>
#include <twice/events/relay_events.hpp>
#include <twice/events/store_events.hpp>
#include <twice/events/vendor_events.hpp>
#include <twice/events/worker_events.hpp>
#include <twice/sim/time.hpp>

namespace twice::ev {

// ---- world ---------------------------------------------------------------------------

// The queues' counters, sampled (actor sampler).
struct queue_sample {
  static constexpr std::string_view kind = "queue_sample";
  std::int64_t visible = 0, delayed = 0, in_flight = 0, dead_letters = 0;
  sim::duration oldest_age;
  template <class V>
  void fields(V& v) const {
    v.integer("visible", visible);
    v.integer("delayed", delayed);
    v.integer("in_flight", in_flight);
    v.integer("dead_letters", dead_letters);
    v.integer("oldest_age_us", oldest_age.us());
  }
};

struct all_jobs_ended {
  static constexpr std::string_view kind = "all_jobs_ended";
  std::int64_t jobs = 0;
  template <class V>
  void fields(V& v) const {
    v.integer("jobs", jobs);
  }
};

// Every kind, in a fixed order (the variant index is part of the digest's
// binary encoding once it is specified: append new kinds at the end).
using payload = std::variant<
    tool_start, tool_call, fault_crash, fault_error, checkpoint, fenced, pod_start, crash, drain, stop, slice_end,
    runtime_error, already_ended, attempt_start, abandoned, nack, backoff, job_done, job_failed, ack, dead_letter,
    hand_off, resume, heartbeat, lease_lost, relay_crash, relay_tool_start, relay_tool_call, relayed, relay_gave_up,
    send, receive_empty, receive, duplicate_delivery, change_visibility, delay_ended, lease_expired, message_delete,
    delete_lost, redrive, redrive_in, retention_expired, vendor_request, vendor_replay, vendor_execute,
    vendor_response_lost, vendor_commit, vendor_execution_error, vendor_reject, vendor_client_timeout, vendor_answered,
    effect_done, key_pruned, pool_wait, pool_wait_abandoned, constraint_violation, store_fenced, store_commit,
    store_rollback, queue_sample, all_jobs_ended, vendor_dropped, moved_out, dead_letter_alarm, probe_failed,
    circuit_changed, orphan_rescued, long_transaction, tenant_over_limit, purge, send_deduplicated, lost_with_process,
    pushed_back, worker_lost, eta_held, lease_dropped, orphaned, orphan_recovered, produced, fetched, offset_commit,
    rebalance_start, member_removed, partitions_assigned, send_timeout, resent, claim_skipped, ack_ignored,
    execution_timeout, alarm_state, page, page_resolved, page_unanswered, renotify>;

// One event: when, who (an interned actor name such as "worker/0"), what.
struct event {
  sim::instant at;
  name_id actor = 0;
  payload body;
};

}  // namespace twice::ev
