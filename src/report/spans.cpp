#include "report/spans.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "events/trace_events.hpp"
#include "report/timeline.hpp"

namespace twice {

namespace {

std::string str(const sim::trace_record& r, std::string_view name) { return std::string(r.get_string(name).value_or("")); }
std::int64_t num(const sim::trace_record& r, std::string_view name) { return r.get_int(name).value_or(0); }

// The number at the end of an actor name, and where it starts.
std::pair<std::string_view, std::optional<std::int64_t>> split_number(std::string_view name) {
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || name.size() - i > 18) return {name, std::nullopt};
  std::int64_t n = 0;
  for (std::size_t j = i; j < name.size(); ++j) n = n * 10 + (name[j] - '0');
  return {name.substr(0, i), n};
}

bool is_lane_actor(std::string_view actor) { return actor.starts_with("worker/") || actor == "relay"; }

// A stop's reason, read back from its record: every reason but the story's
// own shutdown belongs to a deploy. Compared with the reasons' own text
// (ev::to_string), not with literals copied here.
bool is_deploy_stop(std::string_view why) {
  for (const ev::stop_reason reason :
       {ev::stop_reason::rolling_kill, ev::stop_reason::drained, ev::stop_reason::grace_period_expired})
    if (why == ev::to_string(reason)) return true;
  return false;
}

struct pending_receive {
  sim::instant at;
  std::int64_t message = 0;
  std::int64_t receive_count = 0;
  std::string job;
};

struct lane_state {
  std::optional<std::size_t> lease;  // the open lease
  bool in_slice = false;             // a slice this reader has seen begin and not yet end
  bool dead_lettered = false;        // the open lease's slice dead-lettered its job
  std::optional<std::size_t> down;   // the open pod_down
  std::vector<std::size_t> tools;    // open tool spans
};

class span_builder {
 public:
  void add(const sim::trace_record& r) {
    out_.end = r.time;
    if (r.actor == "sampler" && r.kind == "queue_sample") return sample(r);
    if (r.actor.starts_with("queue/")) return broker(r);
    if (r.actor.starts_with("vendor/")) return vendor(r);
    if (is_lane_actor(r.actor)) return lane(r);
  }

  run_spans finish() && {
    for (auto& [name, st] : lanes_) {
      if (st.lease) out_.leases[*st.lease].end = out_.end;
      for (std::size_t t : st.tools) out_.tools[t].end = out_.end;
      if (st.down) {
        pod_down& d = out_.pods_down[*st.down];
        d.to = out_.end;
      }
    }
    // A pod stopped as the story ends was never down for anyone to see.
    std::erase_if(out_.pods_down, [](const pod_down& d) { return d.to <= d.from; });
    for (const auto& [name, st] : lanes_)
      if (name != "relay") out_.lanes.push_back(name);
    std::sort(out_.lanes.begin(), out_.lanes.end(), actor_less);
    if (relay_calls_tools_) out_.lanes.push_back("relay");
    out_.vendors.assign(vendors_.begin(), vendors_.end());
    return std::move(out_);
  }

 private:
  void sample(const sim::trace_record& r) {
    out_.samples.push_back(queue_sample{r.time, num(r, "visible"), num(r, "delayed"), num(r, "in_flight"),
                                        num(r, "dead_letters"), num(r, "oldest_age_us")});
  }

  void broker(const sim::trace_record& r) {
    if (r.kind == "receive") {
      pending_.push_back(pending_receive{r.time, num(r, "id"), num(r, "receive_count"), str(r, "body")});
    } else if (r.kind == "lease_expired") {
      const std::int64_t id = num(r, "id");
      const std::int64_t count = num(r, "receive_count");
      std::erase_if(pending_, [&](const pending_receive& p) { return p.message == id && p.receive_count == count; });
      redelivery rd{str(r, "body"), r.time, std::nullopt, std::nullopt};
      if (const auto it = by_delivery_.find({id, count}); it != by_delivery_.end()) {
        lease_span& l = out_.leases[it->second];
        rd.from_lease = it->second;
        // After a nack the broker "expires" the lease when the backoff is
        // over: the message coming back was asked for, no lease was lost.
        rd.after_backoff = l.ended_by == "nack";
        if (!rd.after_backoff) {
          l.expired_at = r.time;
          lane_state& st = lanes_[l.worker];
          if (st.lease == it->second) close_lease(st, r.time, "expired");
          mark(r.time, l.worker, "lease_expired", l.job, *timeline_entry(r));
        }
      }
      waiting_redelivery_[rd.job] = out_.redeliveries.size();
      out_.redeliveries.push_back(std::move(rd));
    } else if (r.kind == "change_visibility" && r.get_bool("applied") == true && num(r, "timeout_us") == 0) {
      // A draining pod gives back what its last poll leased, before any record of its own.
      const std::int64_t id = num(r, "id");
      std::erase_if(pending_, [&](const pending_receive& p) { return p.message == id; });
    }
  }

  void vendor(const sim::trace_record& r) {
    vendors_.insert(r.actor);
    const std::pair<std::string, std::int64_t> req{r.actor, num(r, "req")};
    if (r.kind == "execute") {
      vendor_execution e;
      e.vendor = r.actor;
      e.req = req.second;
      e.start = r.time;
      e.end = r.time + sim::duration::from_us(num(r, "latency_us"));  // until its answer says otherwise
      executions_[req] = out_.executions.size();
      out_.executions.push_back(std::move(e));
      return;
    }
    vendor_execution* e = nullptr;
    if (const auto it = executions_.find(req); it != executions_.end()) e = &out_.executions[it->second];
    auto finish = [&](std::string outcome, std::string ref) {
      if (e == nullptr) return;
      e->end = r.time;
      e->outcome = std::move(outcome);
      e->ref = std::move(ref);
    };
    if (r.kind == "commit") {
      finish("committed", str(r, "ref"));
      refund_mark m{r.time, r.actor, str(r, "ref"), str(r, "target"), str(r, "key"), num(r, "amount"), 0};
      m.nth_for_invoice = ++refunds_per_invoice_[m.invoice];
      out_.refunds.push_back(std::move(m));
    } else if (r.kind == "execution_error") {
      finish("error", {});
    } else if (r.kind == "answered" || r.kind == "sent") {
      finish("answered", str(r, "ref"));
    } else if (r.kind == "reject") {
      out_.vendor_marks.push_back(
          {r.time, r.actor, "reject", std::to_string(num(r, "status")) + " " + str(r, "error_code")});
    } else if (r.kind == "replay") {
      out_.vendor_marks.push_back({r.time, r.actor, "replay", "replays " + str(r, "ref") + " for key " + str(r, "key")});
    } else if (r.kind == "client_timeout") {
      out_.vendor_marks.push_back({r.time, r.actor, "client_timeout", "the caller gave up waiting"});
    } else if (r.kind == "response_lost") {
      out_.vendor_marks.push_back({r.time, r.actor, "response_lost", "the answer to " + str(r, "ref") + " is lost"});
    }
  }

  void mark(sim::instant at, const std::string& actor, std::string kind, std::string job, const timeline_line& line) {
    out_.marks.push_back(worker_mark{at, actor, std::move(kind), std::move(job), line.text});
  }

  void close_lease(lane_state& st, sim::instant at, std::string how) {
    if (!st.lease) return;
    lease_span& l = out_.leases[*st.lease];
    l.end = at;
    l.ended_by = std::move(how);
    st.lease.reset();
  }

  void close_tools(lane_state& st, sim::instant at) {
    for (std::size_t t : st.tools) out_.tools[t].end = at;
    st.tools.clear();
  }

  // The delivery this record shows the worker took: by message id when the
  // record names it, else by job. Only records that begin a slice claim one.
  void claim(const sim::trace_record& r, lane_state& st) {
    if (st.lease) return;
    const std::optional<std::int64_t> message = r.get_int("message");
    const std::string job = str(r, "job");
    const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const pending_receive& p) {
      return message ? p.message == *message : p.job == job;
    });
    if (it == pending_.end()) return;
    lease_span l;
    l.worker = r.actor;
    l.job = it->job;
    l.message = it->message;
    l.receive_count = it->receive_count;
    l.start = it->at;
    l.end = r.time;
    st.lease = out_.leases.size();
    st.dead_lettered = false;
    by_delivery_[{l.message, l.receive_count}] = out_.leases.size();
    if (const auto w = waiting_redelivery_.find(l.job); w != waiting_redelivery_.end()) {
      out_.redeliveries[w->second].to_lease = out_.leases.size();
      waiting_redelivery_.erase(w);
    }
    out_.leases.push_back(std::move(l));
    pending_.erase(it);
  }

  void lane(const sim::trace_record& r) {
    lane_state& st = lanes_[r.actor];
    const std::string_view kind = r.kind;
    const std::optional<timeline_line> line = timeline_entry(r);
    if (kind == "start") {
      if (st.down) {
        out_.pods_down[*st.down].to = r.time;
        st.down.reset();
      }
    } else if (kind == "crash" || kind == "stop") {
      if (r.get_bool("in_flight") == true && !st.in_slice) claim(r, st);
      close_tools(st, r.time);
      close_lease(st, r.time, std::string(kind));
      st.in_slice = false;
      if (!st.down) {
        const std::string why = str(r, "why");
        st.down = out_.pods_down.size();
        out_.pods_down.push_back(pod_down{r.actor, r.time, r.time, kind == "crash" ? "crash: " + why : why,
                                          kind == "stop" && is_deploy_stop(why)});
      }
    } else if (kind == "attempt_start" || kind == "already_ended" || kind == "dead_letter" || kind == "ack") {
      if (!st.in_slice) claim(r, st);
      st.in_slice = true;
      if (kind == "attempt_start" && st.lease) out_.leases[*st.lease].attempts.push_back(num(r, "attempt"));
      if (kind == "dead_letter") st.dead_lettered = true;
      if (kind == "ack") close_lease(st, r.time, st.dead_lettered ? "dead_letter" : "ack");
    } else if (kind == "nack") {
      close_lease(st, r.time, "nack");
    } else if (kind == "slice_end") {
      close_tools(st, r.time);
      close_lease(st, r.time, "returned");
      st.in_slice = false;
    } else if (kind == "tool_start") {
      if (r.actor == "relay") relay_calls_tools_ = true;
      tool_span t;
      t.actor = r.actor;
      t.job = str(r, "job");
      t.attempt = num(r, "attempt");
      t.step = num(r, "step");
      t.tool = str(r, "tool");
      t.key = str(r, "key");
      t.sha = str(r, "sha");
      t.start = t.end = r.time;
      st.tools.push_back(out_.tools.size());
      out_.tools.push_back(std::move(t));
    } else if (kind == "tool_call") {
      tool_call_done(r, st);
    } else if (kind == "backoff") {
      out_.backoffs.push_back(backoff_point{r.time, r.actor, str(r, "job"), num(r, "attempt"), num(r, "delay_us"),
                                            num(r, "envelope_us"), num(r, "cap_us"), num(r, "retry_after_us"),
                                            str(r, "mode"), str(r, "error")});
    }
    static const std::set<std::string_view> marked{"crash",     "stop",        "start",       "drain",
                                                    "ack",       "nack",        "dead_letter", "fault_crash",
                                                    "fenced",    "lease_lost",  "abandoned",   "already_ended",
                                                    "job_done",  "job_failed",  "runtime_error"};
    if (marked.contains(kind))
      out_.marks.push_back(worker_mark{r.time, r.actor, std::string(kind), str(r, "job"),
                                       line ? line->text : std::string(kind) + " " + str(r, "job")});
  }

  void tool_call_done(const sim::trace_record& r, lane_state& st) {
    const std::string job = str(r, "job");
    const std::int64_t attempt = num(r, "attempt");
    const std::int64_t step = num(r, "step");
    const auto it = std::find_if(st.tools.begin(), st.tools.end(), [&](std::size_t i) {
      const tool_span& t = out_.tools[i];
      return t.job == job && t.attempt == attempt && t.step == step;
    });
    std::size_t index = 0;
    if (it != st.tools.end()) {
      index = *it;
      st.tools.erase(it);
    } else {
      // No tool_start seen (a trace cut short at the front): the call says when it began.
      if (r.actor == "relay") relay_calls_tools_ = true;
      tool_span t;
      t.actor = r.actor;
      t.job = job;
      t.attempt = attempt;
      t.step = step;
      t.tool = str(r, "tool");
      t.key = str(r, "key");
      t.sha = str(r, "sha");
      t.start = sim::instant::from_us(num(r, "started_us"));
      index = out_.tools.size();
      out_.tools.push_back(std::move(t));
    }
    tool_span& t = out_.tools[index];
    t.end = r.time;
    t.finished = true;
    t.status = num(r, "status");
    t.error = str(r, "error");
    t.ref = str(r, "ref");
    t.replayed = r.get_bool("replayed").value_or(false);
    t.new_write = r.get_bool("new_write").value_or(false);
  }

  run_spans out_;
  std::vector<pending_receive> pending_;  // receives no worker has shown it took yet, in order
  std::map<std::string, lane_state, std::less<>> lanes_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> by_delivery_;  // (message, receive count) -> lease
  std::map<std::string, std::size_t, std::less<>> waiting_redelivery_;      // job -> redelivery with no taker yet
  std::map<std::pair<std::string, std::int64_t>, std::size_t> executions_;   // (vendor, req) -> execution
  std::map<std::string, std::int64_t, std::less<>> refunds_per_invoice_;
  std::set<std::string, std::less<>> vendors_;
  bool relay_calls_tools_ = false;
};

}  // namespace

bool actor_less(const std::string& a, const std::string& b) {
  const auto [pa, na] = split_number(a);
  const auto [pb, nb] = split_number(b);
  if (pa != pb || !na || !nb || *na == *nb) return a < b;
  return *na < *nb;
}

run_spans collect_spans(const std::vector<sim::trace_record>& records) {
  span_builder b;
  for (const sim::trace_record& r : records) b.add(r);
  return std::move(b).finish();
}

}  // namespace twice
