#include "report/otlp_trace.hpp"

#include <fmt/core.h>
#include <xxhash.h>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace twice {

namespace {

using json = nlohmann::ordered_json;

// trace.proto's Span.SpanKind and Status.StatusCode, written as integers
// (OTLP JSON forbids the enum names).
enum class span_kind : int { internal = 1, client = 3, consumer = 5 };
constexpr int status_error = 2;

std::string nanos(sim::instant t) {
  return std::to_string(static_cast<std::uint64_t>(otlp_epoch_unix_ns) + static_cast<std::uint64_t>(t.us()) * 1000U);
}

// An all-zero id is invalid in OTLP (trace.proto: "all zeroes is considered
// invalid"); XXH3 gives one with odds of 2^-64, replaced all the same.
std::string trace_id(std::uint64_t seed, const std::string& job) {
  XXH128_hash_t h = XXH3_128bits_withSeed(job.data(), job.size(), seed);
  if (h.high64 == 0 && h.low64 == 0) h.low64 = 1;
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::string span_id(std::uint64_t seed, const std::string& what) {
  std::uint64_t h = XXH3_64bits_withSeed(what.data(), what.size(), seed);
  if (h == 0) h = 1;
  return fmt::format("{:016x}", h);
}

// common.proto's KeyValue with an AnyValue holding exactly one typed value.
json string_attr(std::string_view key, std::string_view value) {
  return {{"key", key}, {"value", {{"stringValue", value}}}};
}
json int_attr(std::string_view key, std::int64_t value) {
  return {{"key", key}, {"value", {{"intValue", std::to_string(value)}}}};
}
json bool_attr(std::string_view key, bool value) { return {{"key", key}, {"value", {{"boolValue", value}}}}; }
json int_array_attr(std::string_view key, const std::vector<std::int64_t>& values) {
  json items = json::array();
  for (const std::int64_t v : values) items.push_back({{"intValue", std::to_string(v)}});
  return {{"key", key}, {"value", {{"arrayValue", {{"values", std::move(items)}}}}}};
}

json span(const std::string& trace, const std::string& id, const std::optional<std::string>& parent, std::string name,
          span_kind kind, sim::instant start, sim::instant end, json attributes) {
  json s{{"traceId", trace}, {"spanId", id}};
  if (parent) s["parentSpanId"] = *parent;
  s["name"] = std::move(name);
  s["kind"] = static_cast<int>(kind);
  s["startTimeUnixNano"] = nanos(start);
  s["endTimeUnixNano"] = nanos(end);
  s["attributes"] = std::move(attributes);
  return s;
}

void fail(json& s, std::string message) { s["status"] = {{"code", status_error}, {"message", std::move(message)}}; }

// A tool call failed when it got no answer or an error status.
bool tool_failed(const tool_span& t) { return !t.finished || t.status == 0 || t.status >= 400 || !t.error.empty(); }

// A lease that ended otherwise than by an ack (or by the slice returning it)
// left its message to be delivered again, or dead.
bool lease_failed(const lease_span& l) {
  return l.ended_by != "ack" && l.ended_by != "returned" && l.ended_by != "open";
}

struct job_parts {
  std::vector<std::size_t> leases, tools, marks;  // indices into run_spans
  sim::instant start, end;
  bool seen = false;
  void cover(sim::instant from, sim::instant to) {
    if (!seen || from < start) start = from;
    if (!seen || end < to) end = to;
    seen = true;
  }
};

struct by_number {
  bool operator()(const std::string& a, const std::string& b) const { return actor_less(a, b); }
};

// The lease of the same job and worker that was open when the call started.
std::optional<std::size_t> holding_lease(const run_spans& spans, const job_parts& job, const tool_span& t) {
  for (const std::size_t i : job.leases) {
    const lease_span& l = spans.leases[i];
    if (l.worker == t.actor && !(t.start < l.start) && !(l.end < t.start)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::string otlp_trace(const run_summary& s, const run_spans& spans, std::string_view version) {
  const std::uint64_t seed = s.seed;
  std::map<std::string, job_parts, by_number> jobs;
  for (std::size_t i = 0; i < spans.leases.size(); ++i)
    if (const lease_span& l = spans.leases[i]; !l.job.empty()) {
      jobs[l.job].leases.push_back(i);
      jobs[l.job].cover(l.start, l.end);
    }
  for (std::size_t i = 0; i < spans.tools.size(); ++i)
    if (const tool_span& t = spans.tools[i]; !t.job.empty()) {
      jobs[t.job].tools.push_back(i);
      jobs[t.job].cover(t.start, t.end);
    }
  for (std::size_t i = 0; i < spans.marks.size(); ++i)
    if (const worker_mark& m = spans.marks[i]; !m.job.empty()) {
      jobs[m.job].marks.push_back(i);
      jobs[m.job].cover(m.at, m.at);
    }

  // Each span's JSON text as it is made, not a tree of every span's nodes
  // (a few hundred bytes of text per span, where the tree costs kilobytes).
  std::string out_spans;
  auto add = [&out_spans](const json& span) {
    if (!out_spans.empty()) out_spans += ',';
    out_spans += span.dump();
  };
  for (const auto& [job, parts] : jobs) {
    const std::string trace = trace_id(seed, job);
    const std::string root_id = span_id(seed, "job " + job);
    json root = span(trace, root_id, std::nullopt, "job " + job, span_kind::internal, parts.start, parts.end,
                     json::array({string_attr("twice.job_id", job)}));
    json events = json::array();
    for (const std::size_t i : parts.marks) {
      const worker_mark& m = spans.marks[i];
      events.push_back(
          {{"timeUnixNano", nanos(m.at)},
           {"name", m.kind},
           {"attributes", json::array({string_attr("twice.worker", m.actor), string_attr("twice.text", m.text)})}});
      if (m.kind == "job_failed" || m.kind == "dead_letter") fail(root, m.text);
    }
    if (!events.empty()) root["events"] = std::move(events);
    add(root);

    for (const std::size_t i : parts.leases) {
      const lease_span& l = spans.leases[i];
      json attrs = json::array({string_attr("twice.job_id", job), int_attr("twice.delivery", l.receive_count),
                                string_attr("messaging.message.id", std::to_string(l.message)),
                                string_attr("messaging.operation.type", "process"),
                                string_attr("twice.worker", l.worker), string_attr("twice.ended_by", l.ended_by)});
      if (!l.attempts.empty()) attrs.push_back(int_array_attr("twice.attempts", l.attempts));
      json lease =
          span(trace, span_id(seed, fmt::format("lease {}", i)), root_id, fmt::format("delivery {}", l.receive_count),
               span_kind::consumer, l.start, l.end, std::move(attrs));
      if (lease_failed(l)) fail(lease, "ended by " + l.ended_by);
      add(lease);
    }

    for (const std::size_t i : parts.tools) {
      const tool_span& t = spans.tools[i];
      const std::optional<std::size_t> lease = holding_lease(spans, parts, t);
      json attrs = json::array({string_attr("twice.job_id", job), int_attr("twice.attempt", t.attempt)});
      if (lease) attrs.push_back(int_attr("twice.delivery", spans.leases[*lease].receive_count));
      if (!t.key.empty()) attrs.push_back(string_attr("twice.idempotency_key", t.key));
      attrs.push_back(string_attr("twice.tool", t.tool));
      attrs.push_back(int_attr("twice.step", t.step));
      attrs.push_back(string_attr("twice.worker", t.actor));
      attrs.push_back(string_attr("twice.sha", t.sha));
      if (t.finished && t.status != 0) attrs.push_back(int_attr("http.response.status_code", t.status));
      attrs.push_back(string_attr("twice.result", tool_result_text(t)));
      if (!t.ref.empty()) attrs.push_back(string_attr("twice.ref", t.ref));
      attrs.push_back(bool_attr("twice.new_write", t.new_write));
      attrs.push_back(bool_attr("twice.replayed", t.replayed));
      json call = span(trace, span_id(seed, fmt::format("tool {}", i)),
                       lease ? span_id(seed, fmt::format("lease {}", *lease)) : root_id, t.tool, span_kind::client,
                       t.start, t.end, std::move(attrs));
      if (tool_failed(t)) fail(call, tool_result_text(t));
      add(call);
    }
  }

  const json resource{
      {"attributes", json::array({string_attr("service.name", "twice"), string_attr("service.version", version),
                                  string_attr("twice.scenario", s.scenario),
                                  // A uint64: its decimal text, as intValue (an int64) would not hold it all.
                                  string_attr("twice.seed", std::to_string(seed)),
                                  string_attr("twice.trace_digest", sim::format_digest(s.result.trace_digest))})}};
  const json doc{
      {"resourceSpans", json::array({{{"resource", resource},
                                      {"scopeSpans", json::array({{{"scope", {{"name", "twice"}, {"version", version}}},
                                                                   {"spans", json::array()}}})}}})}};
  // The spans go where the document's empty array is: its only `"spans":[]`
  // (inside a string a quote is escaped, `\"`).
  std::string text = doc.dump();
  const std::string empty = "\"spans\":[]";
  const std::size_t at = text.find(empty);
  text.replace(at + empty.size() - 1, 0, out_spans);
  return text + "\n";
}

}  // namespace twice
