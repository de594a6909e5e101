#pragma once
// The run in the Chrome trace event format (`twice run --perfetto FILE.json`),
// so it opens in ui.perfetto.dev or chrome://tracing.
//
//   process 1 "workers": a thread per worker (and the outbox relay): lease
//     spans ("X", receive -> ack, nack, expiry, crash or stop), the tool
//     calls nested inside them (args job_id, attempt, step, key, result,
//     new_write, sha), instants ("i") for crashes, stops, starts, acks,
//     nacks, dead letters and expired leases;
//   process 2 "vendors": a thread per vendor: executions as spans, each
//     committed refund as an instant (a second refund of an invoice is named
//     "DUPLICATE refund"), rejections, replays and timeouts as instants;
//   process 3 "broker": the sampled counters ("C"): queue/jobs {visible,
//     delayed, in_flight} and dead letters {depth}.
//
// Times are the simulation's microseconds, which is the format's own unit.
// Spans on one thread always nest: a span that would overlap its neighbour
// without nesting goes to an extra thread of the same actor: "worker/0
// (overlap 1)" for a tool call that outlives its lease, "vendor/model #2"
// for a vendor serving two callers at once. Names come from "M" metadata
// events.
// The output is deterministic: events are sorted by (pid, tid, ts, longer
// first) and every map is ordered.

#include <string>
#include <vector>

#include <twice/report/run_summary.hpp>
#include <twice/report/spans.hpp>

namespace twice {

std::string perfetto_trace(const run_summary& s, const run_spans& spans);

}  // namespace twice
