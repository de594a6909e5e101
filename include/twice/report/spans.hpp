#pragma once
// A run's events read as intervals and marks, the shape timelines draw: a
// worker's leases (receive -> ack, expiry or crash), the tool calls inside
// them, the vendors' executions and refunds, the broker's samples, backoff
// delays, pods down during a deploy, redeliveries. The Perfetto trace and the
// HTML report both draw from this, so they pair records the same way.
//
// Built from the typed events (events/trace_events.hpp), dispatched on their
// payload types; text is made here, at the output edge, from the run's name
// table. Everything is built in event order and kept in vectors or ordered
// maps: the same events give the same spans, byte for byte.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/time.hpp>

namespace twice {

class name_table;
namespace ev {
struct event;
}

// One delivery of a message to a worker, as the worker held it: from the
// broker's receive to the first of ack, nack, lease expiry, the pod's crash
// or stop, or the end of the slice that ran it.
struct lease_span {
  std::string worker;
  std::string job;
  std::int64_t message = 0;
  std::int64_t receive_count = 0;  // 1 for the first delivery
  sim::instant start, end;
  // ack, nack, expired, crash, stop, dead_letter, returned (the slice ended
  // without any of these), open (the story ended first)
  std::string ended_by = "open";
  std::optional<sim::instant> expired_at;  // when the broker's lease ran out, if it did while shown
  std::vector<std::int64_t> attempts;      // attempt numbers started inside
};

// One tool call by a worker (or the outbox relay), from tool_start to
// tool_call. An interrupted call (crash, kill) ends where the slice ended.
struct tool_span {
  std::string actor;
  std::string job;
  std::int64_t attempt = 0;
  std::int64_t step = 0;
  std::string tool;
  std::string key;
  std::string sha;
  sim::instant start, end;
  bool finished = false;    // false: the pod died before the answer came back
  std::int64_t status = 0;  // 0: timeout or no answer
  std::string error;
  std::string ref;
  bool replayed = false;
  bool new_write = false;
};

// "200 re_1", "503 vendor_unavailable", "timeout", "interrupted", "200
// (replayed)": what a call came back with, as the trace writers label it.
std::string tool_result_text(const tool_span& t);

// A point in a worker's (or the relay's) life worth a marker: crash, stop,
// start, drain, ack, nack, dead_letter, lease_expired, fault_crash, fenced,
// lease_lost, abandoned, already_ended, job_done, job_failed.
struct worker_mark {
  sim::instant at;
  std::string actor;
  std::string kind;
  std::string job;
  std::string text;  // one readable line (the timeline's wording)
};

// One execution at a vendor ("execute" to its answer or commit).
struct vendor_execution {
  std::string vendor;
  std::int64_t req = 0;
  sim::instant start, end;
  std::string outcome = "open";  // committed, answered, error, response_lost, open
  std::string ref;
};

// A refund the vendor committed to its own ledger.
struct refund_mark {
  sim::instant at;
  std::string vendor;
  std::string ref;
  std::string invoice;
  std::string key;  // "" when the call carried none
  std::int64_t amount_cents = 0;
  std::int64_t nth_for_invoice = 1;  // 2 and above: the invoice was already refunded
};

// A vendor's answer that is not an execution: reject (503, 429, 400...),
// replay of a stored key, client timeout, lost response.
struct vendor_mark {
  sim::instant at;
  std::string vendor;
  std::string kind;
  std::string text;
};

struct queue_sample {
  sim::instant at;
  std::int64_t visible = 0, delayed = 0, in_flight = 0, dead_letters = 0, oldest_age_us = 0;
};

struct backoff_point {
  sim::instant at;
  std::string worker;
  std::string job;
  std::int64_t attempt = 0;
  std::int64_t delay_us = 0, envelope_us = 0, cap_us = 0, retry_after_us = 0;
  std::string mode;  // in_slice or nack
  std::string error;
  // cap_us is no cap but the bound Sidekiq's schedule sets by its last
  // retry (no retry.maximum_interval).
  bool schedule_bound = false;
};

// A pod starting (on the version it names).
struct pod_up {
  std::string worker;
  sim::instant at;
  std::string sha;
};

// A pod not running: from its stop or crash to its next start.
struct pod_down {
  std::string worker;
  sim::instant from, to;
  std::string why;      // "rolling kill", "drained", "crash", ...
  bool deploy = false;  // stopped by a deploy (rolling kill, drain, grace period)
};

// A message made visible again, by an expired lease or at the end of the
// backoff a nack asked for, and the delivery that took it next (an index
// into run_spans::leases), if any did.
struct redelivery {
  std::string job;
  sim::instant at;
  std::optional<std::size_t> from_lease, to_lease;
  bool after_backoff = false;  // the worker nacked from_lease; nothing was lost
};

// Requests a vendor received in one 100 ms of the run (bucket = time / 100 ms).
struct request_bucket {
  std::int64_t bucket = 0;
  std::int64_t requests = 0;
};

// How much of a long run a span_collector keeps. While the run has seen at
// most `all_jobs` jobs, every span: a small world's outputs are what they
// always were (the catalogue's largest world, brooker_retry_budget, has
// 10,000 jobs). Past that, as jobs end, the spans of the first `first_jobs`
// jobs seen, of up to `per_kind` jobs of each kind a reader looks for
// (retried, crashed, dead-lettered, paid twice: report/span_sample.hpp), the
// most attempted first, and of every job still open; the rest are dropped,
// their times kept in run_spans::omitted, so memory follows the open work.
struct span_bound {
  std::size_t all_jobs = 10'000;
  std::size_t first_jobs = 100;
  std::size_t per_kind = 50;
};

// What a bounded collector dropped (none when the bound never bit).
struct omitted_spans {
  // Jobs whose spans were dropped as they ended (a job's spans after its
  // end, dropped on their own, count again).
  std::size_t jobs = 0;
  std::size_t leases = 0, tools = 0, marks = 0, executions = 0, vendor_marks = 0, refunds = 0, redeliveries = 0;
  // When the dropped spans were under way, as disjoint [from, to] in
  // microseconds (at most `activity_max` stretches, report/busy_stretches.hpp).
  std::vector<std::pair<std::int64_t, std::int64_t>> activity;
  std::optional<sim::instant> last_refund;
  span_bound bound;
  static constexpr std::size_t activity_max = 1024;
};

struct run_spans {
  std::vector<std::string> lanes;    // workers in index order, then the relay if it called tools
  std::vector<std::string> vendors;  // vendor actors, sorted
  std::vector<lease_span> leases;    // in receive order
  std::vector<tool_span> tools;      // in start order
  std::vector<worker_mark> marks;
  std::vector<vendor_execution> executions;  // in start order
  std::vector<refund_mark> refunds;
  std::vector<vendor_mark> vendor_marks;
  std::vector<queue_sample> samples;
  std::vector<backoff_point> backoffs;
  std::vector<pod_down> pods_down;
  std::vector<pod_up> pod_starts;  // in time order
  std::vector<redelivery> redeliveries;
  // Per vendor actor, the 100 ms buckets that had a request, in time order.
  std::map<std::string, std::vector<request_bucket>> requests;
  sim::instant end;  // the last event's time
  omitted_spans omitted;
};

// `names`: the table the events' name ids are in (the run's event log's).
run_spans collect_spans(const std::vector<ev::event>& events, const name_table& names);

// The same spans built as the run goes, from each event as it is emitted:
// an output that draws spans (--perfetto, --otlp) needs the run's events
// kept no longer. What it holds is the spans themselves, counted against
// the world's memory budget.
//
// With a span_bound (the HTML report, which draws a lane for a few jobs and
// charts for the rest), what it holds stays bounded past the bound's jobs;
// without one (--perfetto, --otlp, which write every span), it is not.
class span_collector final : public event_observer {
 public:
  span_collector();
  explicit span_collector(span_bound bound);
  ~span_collector() override;
  span_collector(const span_collector&) = delete;
  span_collector& operator=(const span_collector&) = delete;
  void on_event(const ev::event& e, const name_table& names) override;
  std::uint64_t footprint() const override;
  // The spans of every event seen, closed at the last one (collect_spans).
  run_spans take();

 private:
  struct state;
  std::unique_ptr<state> state_;
  std::optional<span_bound> bound_;
};

// "worker/2" before "worker/10": actor names compared with their trailing
// number as a number.
bool actor_less(const std::string& a, const std::string& b);

}  // namespace twice
