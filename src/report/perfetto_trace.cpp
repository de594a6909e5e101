#include "report/perfetto_trace.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include <twice/report/spans.hpp>

namespace twice {

namespace {

using json = nlohmann::ordered_json;

constexpr int workers_pid = 1;
constexpr int vendors_pid = 2;
constexpr int broker_pid = 3;

struct span_event {
  std::int64_t start = 0, end = 0;
  json event;  // name, cat, args: pid, tid, ts and dur are added when placed
};

struct instant_event {
  std::int64_t at = 0;
  json event;
};

// One actor's events before they are given thread ids.
struct actor_track {
  std::string name;
  std::vector<span_event> spans;
  std::vector<instant_event> instants;
};

// Spans into threads on which each nests in the one before: the first
// thread it fits, else a new one. Sorted so parents come first.
std::vector<std::vector<span_event>> pack(std::vector<span_event> spans) {
  std::stable_sort(spans.begin(), spans.end(), [](const span_event& a, const span_event& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.end > b.end;
  });
  std::vector<std::vector<span_event>> threads;
  std::vector<std::vector<std::int64_t>> open_ends;  // per thread: ends of the spans enclosing the next one
  for (span_event& s : spans) {
    std::size_t i = 0;
    for (; i < threads.size(); ++i) {
      std::vector<std::int64_t>& open = open_ends[i];
      while (!open.empty() && open.back() <= s.start) open.pop_back();
      if (open.empty() || open.back() >= s.end) break;
    }
    if (i == threads.size()) {
      threads.emplace_back();
      open_ends.emplace_back();
    }
    open_ends[i].push_back(s.end);
    threads[i].push_back(std::move(s));
  }
  if (threads.empty()) threads.emplace_back();
  return threads;
}

json metadata(std::string_view what, int pid, std::optional<int> tid, json args) {
  json e{{"name", what}, {"ph", "M"}, {"ts", 0}, {"pid", pid}};
  if (tid) e["tid"] = *tid;
  e["args"] = std::move(args);
  return e;
}

class trace_writer {
 public:
  // `extra`: how an extra thread of one actor is named, from its index (1, 2, ...).
  void add_process(int pid, std::string_view name, std::vector<actor_track> tracks,
                   std::string (*extra)(const std::string& actor, std::size_t index)) {
    meta_.push_back(metadata("process_name", pid, std::nullopt, {{"name", name}}));
    meta_.push_back(metadata("process_sort_index", pid, std::nullopt, {{"sort_index", pid}}));
    int tid = 1;
    for (actor_track& track : tracks) {
      std::vector<std::vector<span_event>> threads = pack(std::move(track.spans));
      for (std::size_t i = 0; i < threads.size(); ++i, ++tid) {
        const std::string thread_name = i == 0 ? track.name : extra(track.name, i);
        meta_.push_back(metadata("thread_name", pid, tid, {{"name", thread_name}}));
        meta_.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
        for (span_event& s : threads[i]) place(std::move(s.event), pid, tid, s.start, s.end - s.start);
        if (i == 0)
          for (instant_event& m : track.instants) place_instant(std::move(m.event), pid, tid, m.at);
      }
    }
  }

  void add_counter(int pid, int tid, std::int64_t at, std::string name, json args) {
    events_.push_back(
        {pid, tid, at, 0,
         json{{"name", std::move(name)}, {"ph", "C"}, {"ts", at}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}}
             .dump()});
  }

  void add_thread_name(int pid, int tid, std::string_view name) {
    meta_.push_back(metadata("thread_name", pid, tid, {{"name", name}}));
  }

  // One event per line: small diffs, and a file a person can grep.
  std::string finish(const run_summary& s) && {
    std::stable_sort(events_.begin(), events_.end(), [](const placed& a, const placed& b) {
      if (a.pid != b.pid) return a.pid < b.pid;
      if (a.tid != b.tid) return a.tid < b.tid;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.dur > b.dur;
    });
    const json other{{"generator", "twice run --perfetto"},
                     {"scenario", s.scenario},
                     {"path", s.path},
                     {"seed", s.seed},
                     {"trace_digest", sim::format_digest(s.result.trace_digest)}};
    std::string out = "{\"displayTimeUnit\": \"ms\",\n\"otherData\": " + other.dump() + ",\n\"traceEvents\": [\n";
    bool first = true;
    auto add = [&](const json& e) {
      if (!first) out += ",\n";
      first = false;
      out += e.dump();
    };
    for (const json& m : meta_) add(m);
    for (const placed& p : events_) {
      if (!first) out += ",\n";
      first = false;
      out += p.text;
    }
    out += "\n]}\n";
    return out;
  }

 private:
  // An event's line, written when it is placed: a million-job trace holds
  // a few hundred bytes of text per event instead of a tree of JSON nodes.
  struct placed {
    int pid = 0, tid = 0;
    std::int64_t ts = 0, dur = 0;
    std::string text;
  };

  void place(json body, int pid, int tid, std::int64_t ts, std::int64_t dur) {
    json e{{"name", body["name"]}, {"cat", body["cat"]}, {"ph", "X"}, {"ts", ts},
           {"dur", dur},           {"pid", pid},         {"tid", tid}};
    e["args"] = std::move(body["args"]);
    events_.push_back({pid, tid, ts, dur, e.dump()});
  }

  void place_instant(json body, int pid, int tid, std::int64_t ts) {
    json e{{"name", body["name"]}, {"cat", body["cat"]}, {"ph", "i"}, {"s", "t"}, {"ts", ts},
           {"pid", pid},           {"tid", tid}};
    e["args"] = std::move(body["args"]);
    events_.push_back({pid, tid, ts, 0, e.dump()});
  }

  std::vector<json> meta_;
  std::vector<placed> events_;
};

std::vector<actor_track> worker_tracks(const run_spans& spans) {
  std::map<std::string, actor_track, std::less<>> by_actor;
  for (const std::string& lane : spans.lanes) by_actor[lane].name = lane;
  for (const lease_span& l : spans.leases) {
    json args{{"job_id", l.job},
              {"message", l.message},
              {"delivery", l.receive_count},
              {"ended_by", l.ended_by},
              {"attempts", l.attempts}};
    if (l.expired_at) args["lease_expired_us"] = l.expired_at->us();
    by_actor[l.worker].spans.push_back(
        {l.start.us(), l.end.us(), json{{"name", "lease " + l.job}, {"cat", "lease"}, {"args", std::move(args)}}});
  }
  for (const tool_span& t : spans.tools) {
    json args{{"job_id", t.job}, {"attempt", t.attempt},          {"step", t.step},
              {"key", t.key},    {"result", tool_result_text(t)}, {"new_write", t.new_write},
              {"sha", t.sha}};
    by_actor[t.actor].spans.push_back(
        {t.start.us(), t.end.us(), json{{"name", t.tool}, {"cat", "tool"}, {"args", std::move(args)}}});
  }
  for (const worker_mark& m : spans.marks)
    by_actor[m.actor].instants.push_back(
        {m.at.us(), json{{"name", m.kind}, {"cat", "worker"}, {"args", {{"job_id", m.job}, {"what", m.text}}}}});
  std::vector<actor_track> out;
  for (const std::string& lane : spans.lanes) out.push_back(std::move(by_actor[lane]));
  return out;
}

std::vector<actor_track> vendor_tracks(const run_spans& spans) {
  std::map<std::string, actor_track, std::less<>> by_actor;
  for (const std::string& v : spans.vendors) by_actor[v].name = v;
  for (const vendor_execution& e : spans.executions) {
    const std::string name = e.outcome == "committed" ? "refund " + e.ref : "execute";
    by_actor[e.vendor].spans.push_back(
        {e.start.us(), e.end.us(),
         json{{"name", name}, {"cat", "vendor"}, {"args", {{"req", e.req}, {"outcome", e.outcome}, {"ref", e.ref}}}}});
  }
  for (const refund_mark& r : spans.refunds) {
    const std::string name = (r.nth_for_invoice > 1 ? "DUPLICATE refund " : "refund ") + r.ref;
    by_actor[r.vendor].instants.push_back({r.at.us(), json{{"name", name},
                                                           {"cat", "refund"},
                                                           {"args",
                                                            {{"invoice", r.invoice},
                                                             {"amount_cents", r.amount_cents},
                                                             {"key", r.key},
                                                             {"nth_for_invoice", r.nth_for_invoice}}}}});
  }
  for (const vendor_mark& m : spans.vendor_marks)
    by_actor[m.vendor].instants.push_back(
        {m.at.us(), json{{"name", m.kind}, {"cat", "vendor"}, {"args", {{"what", m.text}}}}});
  std::vector<actor_track> out;
  for (const std::string& v : spans.vendors) out.push_back(std::move(by_actor[v]));
  return out;
}

}  // namespace

std::string perfetto_trace(const run_summary& s, const run_spans& spans) {
  trace_writer w;
  // A worker's spans overlap when a call outlives its lease; a vendor's, when it serves callers at once.
  w.add_process(workers_pid, "workers", worker_tracks(spans),
                [](const std::string& actor, std::size_t i) { return fmt::format("{} (overlap {})", actor, i); });
  w.add_process(vendors_pid, "vendors", vendor_tracks(spans),
                [](const std::string& actor, std::size_t i) { return fmt::format("{} #{}", actor, i + 1); });
  w.add_process(broker_pid, "broker", {}, nullptr);
  if (!spans.samples.empty()) w.add_thread_name(broker_pid, 1, "queue/jobs");
  for (const queue_sample& q : spans.samples) {
    w.add_counter(broker_pid, 1, q.at.us(), "queue/jobs",
                  {{"visible", q.visible}, {"delayed", q.delayed}, {"in_flight", q.in_flight}});
    w.add_counter(broker_pid, 1, q.at.us(), "dead letters", {{"depth", q.dead_letters}});
  }
  return std::move(w).finish(s);
}

}  // namespace twice
