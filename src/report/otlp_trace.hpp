#pragma once
// The run as OpenTelemetry traces (`twice run --otlp FILE.json`): one
// ExportTraceServiceRequest in OTLP's JSON Protobuf Encoding, on one line, so
// the file is both a JSON document and a line of the OTLP file exporter's JSON
// Lines; the OpenTelemetry Collector's otlpjsonfile receiver forwards it to
// Jaeger or Grafana Tempo.
//
// One trace per job: a root span "job <id>" (kind INTERNAL) from the job's
// first receive to its last record, a child span "delivery <n>" per lease
// (kind CONSUMER), and the tool calls (kind CLIENT) under the lease they ran
// in (under the root when none held them, the outbox relay's). A worker's
// marks about the job (crash, ack, job_done...) are events on the root span.
// Vendors' executions and the broker's samples are left out: they belong to
// no job.
//
// Encoding (opentelemetry-proto docs/specification.md, "JSON Protobuf
// Encoding"; the messages are opentelemetry/proto/trace/v1/trace.proto):
// proto3's JSON mapping with lowerCamelCase keys, except that traceId and
// spanId are hex (32 and 16 lowercase digits), not base64, and enums
// (Span.kind, Status.code) are integers. 64-bit integers (times, intValue)
// are decimal strings, as proto3 JSON writes int64 and fixed64.
//
// Deterministic: the same run writes the same bytes. Times are the
// simulation's microseconds after a fixed epoch, 2026-01-01T00:00:00Z (a date
// a trace UI's time picker reaches; 1970 would hide the spans), times 1000
// for nanoseconds. A job's traceId is XXH3-128 of its id with the run's seed;
// a span's spanId is XXH3-64 of what it is (root, the n-th lease or tool call
// of the run) with the seed. Attribute names: docs/reports.md.

#include <cstdint>
#include <string>
#include <string_view>

#include <twice/report/run_summary.hpp>
#include <twice/report/spans.hpp>

namespace twice {

// Simulated time zero as Unix nanoseconds: 2026-01-01T00:00:00Z.
inline constexpr std::int64_t otlp_epoch_unix_ns = 1'767'225'600'000'000'000;

// `version`: the scope's version (twice's own).
std::string otlp_trace(const run_summary& s, const run_spans& spans, std::string_view version);

}  // namespace twice
