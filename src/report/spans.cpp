#include <twice/report/spans.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include <fmt/core.h>

#include <twice/events/event_log.hpp>
#include <twice/events/trace_events.hpp>
#include <twice/report/timeline.hpp>
#include <twice/sim/footprint.hpp>
#include "report/busy_stretches.hpp"
#include "report/span_sample.hpp"
#include "sim/duration_text.hpp"

namespace twice {

namespace {

// The number at the end of an actor name, and where it starts.
std::pair<std::string_view, std::optional<std::int64_t>> split_number(std::string_view name) {
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || name.size() - i > 18) return {name, std::nullopt};
  std::int64_t n = 0;
  for (std::size_t j = i; j < name.size(); ++j) n = n * 10 + (name[j] - '0');
  return {name.substr(0, i), n};
}

// Whose event it is, by the actor's name: the same payload kind is drawn on
// a worker's lane or a vendor's row depending on who emitted it.
bool is_lane_actor(std::string_view actor) { return actor.starts_with("worker/") || actor == "relay"; }

// Every reason but the story's own shutdown belongs to a deploy.
bool is_deploy_stop(ev::stop_reason why) { return why != ev::stop_reason::shutdown; }

template <class P, class... Ps>
constexpr bool one_of = (std::is_same_v<P, Ps> || ...);

// The points in a lane's life worth a marker (worker_mark).
template <class P>
constexpr bool is_marked = one_of<P, ev::pod_start, ev::crash, ev::relay_crash, ev::stop, ev::drain, ev::ack, ev::nack,
                                  ev::dead_letter, ev::fault_crash, ev::fenced, ev::lease_lost, ev::abandoned,
                                  ev::already_ended, ev::job_done, ev::job_failed, ev::runtime_error>;

// The job a payload names, if it names one.
ev::name_id job_of(const ev::payload& body) {
  return std::visit(
      [](const auto& p) -> ev::name_id {
        if constexpr (requires { p.job; })
          return p.job;
        else
          return 0;
      },
      body);
}

// The vendor request a payload answers, if any.
std::int64_t req_of(const ev::payload& body) {
  return std::visit(
      [](const auto& p) -> std::int64_t {
        if constexpr (requires { p.req; })
          return static_cast<std::int64_t>(p.req);
        else
          return 0;
      },
      body);
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

// A tool call's fields, worker's or relay's (the relay's has no attempt or sha).
struct call_fields {
  std::string job;
  std::int64_t attempt = 0;
  std::int64_t step = 0;
  std::string tool, key, sha;
};

class span_builder {
 public:
  span_builder(const name_table& names, std::optional<span_bound> bound) : names_(names), bound_(bound) {
    if (bound_) out_.omitted.bound = *bound_;
  }

  void add(const ev::event& e) {
    // Between two events, never inside one: nothing is half built.
    if (bound_ && jobs_seen_ > bound_->all_jobs && jobs_.size() >= next_compaction_) compact();
    out_.end = e.at;
    if (const auto* q = std::get_if<ev::queue_sample>(&e.body)) return sample(e.at, *q);
    const std::string_view actor = names_.text(e.actor);
    if (actor.starts_with("queue/")) return broker(e);
    if (actor.starts_with("vendor/")) return vendor(e, std::string(actor));
    if (is_lane_actor(actor)) return lane(e, std::string(actor));
  }

  // Bytes held: the spans so far (each element with ~48 bytes of text
  // outside its strings' own room) and the open state beside them.
  std::uint64_t footprint() const {
    using sim::footprint_of;
    const std::uint64_t elements = out_.leases.size() + out_.tools.size() + out_.marks.size() + out_.executions.size() +
                                   out_.refunds.size() + out_.vendor_marks.size() + out_.backoffs.size() +
                                   out_.pods_down.size() + out_.pod_starts.size() + out_.redeliveries.size();
    std::uint64_t buckets = 0;
    for (const auto& [vendor, b] : out_.requests) buckets += footprint_of(b);
    return footprint_of(out_.leases) + footprint_of(out_.tools) + footprint_of(out_.marks) +
           footprint_of(out_.executions) + footprint_of(out_.refunds) + footprint_of(out_.vendor_marks) +
           footprint_of(out_.samples) + footprint_of(out_.backoffs) + footprint_of(out_.pods_down) +
           footprint_of(out_.pod_starts) + footprint_of(out_.redeliveries) + buckets + elements * 48 +
           footprint_of(pending_) + sim::tree_footprint(lanes_) + sim::tree_footprint(by_delivery_) +
           sim::tree_footprint(waiting_redelivery_) + sim::tree_footprint(executions_) +
           sim::tree_footprint(refunds_per_invoice_) + sim::tree_footprint(jobs_) + footprint_of(out_.omitted.activity);
  }

  run_spans finish() && {
    // Once bounded, the ended jobs chosen among all of them, not only those
    // before the last compaction: the same run keeps the same jobs however
    // its compactions fell.
    if (bound_ && jobs_seen_ > bound_->all_jobs) compact();
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
  // A job with spans held, while bounded: when it was first seen, and what
  // the spans themselves do not say (a backoff's retry).
  struct job_entry {
    std::uint64_t order = 0;
    unsigned kind = 0;
  };

  job_entry* note_job(const std::string& job) {
    if (!bound_ || job.empty()) return nullptr;
    auto it = jobs_.find(job);
    if (it == jobs_.end()) it = jobs_.emplace(job, job_entry{jobs_seen_++, 0}).first;
    return &it->second;
  }

  void fold(std::int64_t from_us, std::int64_t to_us) {
    add_busy(out_.omitted.activity, from_us, to_us, omitted_spans::activity_max);
  }
  void fold(sim::instant at) { fold(at.us(), at.us()); }

  // Drops the spans of the jobs that have ended and are not chosen
  // (span_sample), and the vendors' closed executions and marks (a bounded
  // page draws no vendor lane); what they covered stays in out_.omitted.
  // Every index into the vectors is renumbered.
  void compact();

  std::string text(ev::name_id id) const { return std::string(names_.text(id)); }

  // The line the text timeline gives this event (its wording for marks).
  std::optional<timeline_line> line_of(const ev::event& e) const { return timeline_entry(as_record(e, names_)); }

  void sample(sim::instant at, const ev::queue_sample& q) {
    out_.samples.push_back(queue_sample{at, q.visible, q.delayed, q.in_flight, q.dead_letters, q.oldest_age.us()});
  }

  void broker(const ev::event& e) {
    if (const auto* r = std::get_if<ev::receive>(&e.body)) {
      pending_.push_back(pending_receive{e.at, static_cast<std::int64_t>(r->id), r->receive_count, text(r->body)});
    } else if (const auto* x = std::get_if<ev::lease_expired>(&e.body)) {
      const auto id = static_cast<std::int64_t>(x->id);
      const std::int64_t count = x->receive_count;
      std::erase_if(pending_, [&](const pending_receive& p) { return p.message == id && p.receive_count == count; });
      redelivery rd{text(x->body), e.at, std::nullopt, std::nullopt};
      if (const auto it = by_delivery_.find({id, count}); it != by_delivery_.end()) {
        lease_span& l = out_.leases[it->second];
        rd.from_lease = it->second;
        // After a nack the broker "expires" the lease when the backoff is
        // over: the message coming back was asked for, no lease was lost.
        rd.after_backoff = l.ended_by == "nack";
        if (!rd.after_backoff) {
          l.expired_at = e.at;
          lane_state& st = lanes_[l.worker];
          if (st.lease == it->second) close_lease(st, e.at, "expired");
          out_.marks.push_back(worker_mark{e.at, l.worker, "lease_expired", l.job, line_of(e)->text});
        }
      }
      note_job(rd.job);
      waiting_redelivery_[rd.job] = out_.redeliveries.size();
      out_.redeliveries.push_back(std::move(rd));
    } else if (const auto* c = std::get_if<ev::change_visibility>(&e.body); c && c->applied && c->timeout.us() == 0) {
      // A draining pod gives back what its last poll leased, before any event of its own.
      const auto id = static_cast<std::int64_t>(c->id);
      std::erase_if(pending_, [&](const pending_receive& p) { return p.message == id; });
    }
  }

  void vendor(const ev::event& e, const std::string& actor) {
    vendors_.insert(actor);
    const std::pair<std::string, std::int64_t> req{actor, req_of(e.body)};
    if (std::holds_alternative<ev::vendor_request>(e.body)) {
      std::vector<request_bucket>& buckets = out_.requests[actor];
      const std::int64_t bucket = e.at.us() / 100'000;
      if (buckets.empty() || buckets.back().bucket != bucket) buckets.push_back({bucket, 0});
      ++buckets.back().requests;
      return;
    }
    if (const auto* x = std::get_if<ev::vendor_execute>(&e.body)) {
      vendor_execution v;
      v.vendor = actor;
      v.req = req.second;
      v.start = e.at;
      v.end = e.at + x->latency;  // until its answer says otherwise
      executions_[req] = out_.executions.size();
      out_.executions.push_back(std::move(v));
      return;
    }
    vendor_execution* v = nullptr;
    if (const auto it = executions_.find(req); it != executions_.end()) v = &out_.executions[it->second];
    auto finish = [&](std::string outcome, std::string ref) {
      if (v == nullptr) return;
      v->end = e.at;
      v->outcome = std::move(outcome);
      v->ref = std::move(ref);
    };
    auto note = [&](std::string kind, std::string what) {
      out_.vendor_marks.push_back({e.at, actor, std::move(kind), std::move(what)});
    };
    if (const auto* c = std::get_if<ev::vendor_commit>(&e.body)) {
      finish("committed", text(c->ref));
      refund_mark m{e.at, actor, text(c->ref), text(c->target), text(c->key), c->amount, 0};
      m.nth_for_invoice = ++refunds_per_invoice_[m.invoice];
      out_.refunds.push_back(std::move(m));
    } else if (std::holds_alternative<ev::vendor_execution_error>(e.body)) {
      finish("error", {});
    } else if (std::holds_alternative<ev::vendor_answered>(e.body)) {
      finish("answered", {});
    } else if (const auto* s = std::get_if<ev::effect_done>(&e.body)) {
      finish("answered", text(s->ref));
    } else if (const auto* r = std::get_if<ev::vendor_reject>(&e.body)) {
      note("reject", std::to_string(r->status) + " " + text(r->error_code));
    } else if (const auto* p = std::get_if<ev::vendor_replay>(&e.body)) {
      note("replay", "replays " + text(p->ref) + " for key " + text(p->key));
    } else if (const auto* d = std::get_if<ev::vendor_dropped>(&e.body)) {
      note("dropped", fmt::format("dropped unserved after waiting {}", sim::format_duration(d->waited)));
    } else if (std::holds_alternative<ev::vendor_client_timeout>(e.body)) {
      note("client_timeout", "the caller gave up waiting");
    } else if (const auto* l = std::get_if<ev::vendor_response_lost>(&e.body)) {
      note("response_lost", "the answer to " + text(l->ref) + " is lost");
    }
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

  // The delivery this event shows the worker took: by message id when the
  // event names it, else by job. Only events that begin a slice claim one.
  void claim(const ev::event& e, const std::string& actor, lane_state& st, std::optional<std::int64_t> message) {
    if (st.lease) return;
    const std::string job = text(job_of(e.body));
    const auto it = std::find_if(pending_.begin(), pending_.end(), [&](const pending_receive& p) {
      return message ? p.message == *message : p.job == job;
    });
    if (it == pending_.end()) return;
    lease_span l;
    l.worker = actor;
    l.job = it->job;
    l.message = it->message;
    l.receive_count = it->receive_count;
    l.start = it->at;
    l.end = e.at;
    note_job(l.job);
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

  // The pod died (crash) or was stopped: what it held ends here, and it is
  // down until its next start.
  void pod_ends(const ev::event& e, const std::string& actor, lane_state& st, bool in_flight, std::string how,
                std::string why, bool deploy) {
    if (in_flight && !st.in_slice) claim(e, actor, st, std::nullopt);
    close_tools(st, e.at);
    close_lease(st, e.at, std::move(how));
    st.in_slice = false;
    if (!st.down) {
      st.down = out_.pods_down.size();
      out_.pods_down.push_back(pod_down{actor, e.at, e.at, std::move(why), deploy});
    }
  }

  // A slice shows itself running: it holds the delivery it was given.
  void in_slice(const ev::event& e, const std::string& actor, lane_state& st, std::optional<std::int64_t> message) {
    if (!st.in_slice) claim(e, actor, st, message);
    st.in_slice = true;
  }

  void tool_started(const std::string& actor, lane_state& st, sim::instant at, call_fields f) {
    tool_span t;
    t.actor = actor;
    t.job = std::move(f.job);
    t.attempt = f.attempt;
    t.step = f.step;
    t.tool = std::move(f.tool);
    t.key = std::move(f.key);
    t.sha = std::move(f.sha);
    t.start = t.end = at;
    note_job(t.job);
    st.tools.push_back(out_.tools.size());
    out_.tools.push_back(std::move(t));
  }

  template <class Call>
  void tool_answered(const std::string& actor, lane_state& st, sim::instant at, call_fields f, const Call& c) {
    const auto it = std::find_if(st.tools.begin(), st.tools.end(), [&](std::size_t i) {
      const tool_span& t = out_.tools[i];
      return t.job == f.job && t.attempt == f.attempt && t.step == f.step;
    });
    std::size_t index = 0;
    if (it != st.tools.end()) {
      index = *it;
      st.tools.erase(it);
    } else {
      // No tool_start seen (a story cut short at the front): the call says when it began.
      tool_started(actor, st, c.started, std::move(f));
      index = st.tools.back();
      st.tools.pop_back();
    }
    tool_span& t = out_.tools[index];
    t.end = at;
    t.finished = true;
    t.status = c.status;
    t.error = text(c.error);
    t.ref = text(c.ref);
    t.replayed = c.replayed;
    t.new_write = c.new_write;
  }

  void lane(const ev::event& e, const std::string& actor) {
    lane_state& st = lanes_[actor];
    const ev::payload& body = e.body;
    if (std::holds_alternative<ev::pod_start>(body)) {
      if (st.down) {
        out_.pods_down[*st.down].to = e.at;
        st.down.reset();
      }
      out_.pod_starts.push_back(pod_up{actor, e.at, text(std::get<ev::pod_start>(body).sha)});
    } else if (const auto* c = std::get_if<ev::crash>(&body)) {
      pod_ends(e, actor, st, c->in_flight, "crash", "crash: " + text(c->why), false);
    } else if (const auto* rc = std::get_if<ev::relay_crash>(&body)) {
      pod_ends(e, actor, st, false, "crash", "crash: " + text(rc->why), false);
    } else if (const auto* s = std::get_if<ev::stop>(&body)) {
      pod_ends(e, actor, st, s->in_flight, "stop", std::string(ev::to_string(s->why)), is_deploy_stop(s->why));
    } else if (const auto* a = std::get_if<ev::attempt_start>(&body)) {
      in_slice(e, actor, st, static_cast<std::int64_t>(a->message));
      if (st.lease) out_.leases[*st.lease].attempts.push_back(a->attempt);
    } else if (std::holds_alternative<ev::already_ended>(body)) {
      in_slice(e, actor, st, std::nullopt);
    } else if (std::holds_alternative<ev::dead_letter>(body)) {
      in_slice(e, actor, st, std::nullopt);
      st.dead_lettered = true;
    } else if (const auto* k = std::get_if<ev::ack>(&body)) {
      in_slice(e, actor, st, static_cast<std::int64_t>(k->message));
      close_lease(st, e.at, st.dead_lettered ? "dead_letter" : "ack");
    } else if (const auto* ignored = std::get_if<ev::ack_ignored>(&body)) {
      // The lease had run out: the message is the broker's again.
      in_slice(e, actor, st, static_cast<std::int64_t>(ignored->message));
      close_lease(st, e.at, "expired");
    } else if (std::holds_alternative<ev::nack>(body)) {
      close_lease(st, e.at, "nack");
    } else if (std::holds_alternative<ev::slice_end>(body)) {
      close_tools(st, e.at);
      close_lease(st, e.at, "returned");
      st.in_slice = false;
    } else if (const auto* t = std::get_if<ev::tool_start>(&body)) {
      tool_started(actor, st, e.at, {text(t->job), t->attempt, t->step, text(t->tool), text(t->key), text(t->sha)});
    } else if (const auto* rt = std::get_if<ev::relay_tool_start>(&body)) {
      relay_calls_tools_ = true;
      tool_started(actor, st, e.at, {text(rt->job), 0, rt->step, text(rt->tool), text(rt->key), {}});
    } else if (const auto* tc = std::get_if<ev::tool_call>(&body)) {
      tool_answered(actor, st, e.at,
                    {text(tc->job), tc->attempt, tc->step, text(tc->tool), text(tc->key), text(tc->sha)}, *tc);
    } else if (const auto* rc2 = std::get_if<ev::relay_tool_call>(&body)) {
      relay_calls_tools_ = true;
      tool_answered(actor, st, e.at, {text(rc2->job), 0, rc2->step, text(rc2->tool), text(rc2->key), {}}, *rc2);
    } else if (const auto* b = std::get_if<ev::backoff>(&body)) {
      if (job_entry* j = note_job(text(b->job))) j->kind |= span_sample::retried;
      out_.backoffs.push_back(backoff_point{e.at, actor, text(b->job), b->attempt, b->delay.us(), b->envelope.us(),
                                            b->cap.us(), b->retry_after.us(), std::string(to_string(b->mode)),
                                            text(b->error), b->schedule_bound});
    }
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (is_marked<P>) {
            const std::string job = text(job_of(body));
            note_job(job);
            const std::optional<timeline_line> line = line_of(e);
            out_.marks.push_back(worker_mark{e.at, actor, std::string(P::kind), job,
                                             line ? line->text : std::string(P::kind) + " " + job});
          }
        },
        body);
  }

  const name_table& names_;
  run_spans out_;
  std::vector<pending_receive> pending_;  // receives no worker has shown it took yet, in order
  std::map<std::string, lane_state, std::less<>> lanes_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> by_delivery_;  // (message, receive count) -> lease
  std::map<std::string, std::size_t, std::less<>> waiting_redelivery_;        // job -> redelivery with no taker yet
  std::map<std::pair<std::string, std::int64_t>, std::size_t> executions_;    // (vendor, req) -> execution
  std::map<std::string, std::int64_t, std::less<>> refunds_per_invoice_;
  std::set<std::string, std::less<>> vendors_;
  bool relay_calls_tools_ = false;
  std::optional<span_bound> bound_;
  std::map<std::string, job_entry, std::less<>> jobs_;  // jobs with spans held (bounded only)
  std::uint64_t jobs_seen_ = 0;
  std::size_t next_compaction_ = 0;  // jobs_ this large, next compaction
};

// Keeps the elements of `v` whose flag is set, in order; the new index of
// each old one (npos for the dropped).
template <class T>
std::vector<std::size_t> keep_only(std::vector<T>& v, const std::vector<bool>& keep) {
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::vector<std::size_t> moved(v.size(), npos);
  std::size_t n = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!keep[i]) continue;
    if (n != i) v[n] = std::move(v[i]);
    moved[i] = n++;
  }
  v.resize(n);
  return moved;
}

bool is_crash_mark(std::string_view kind) {
  return kind == "crash" || kind == "fault_crash" || kind == "fenced" || kind == "lease_lost" || kind == "abandoned" ||
         kind == "runtime_error" || kind == "job_failed";
}

void span_builder::compact() {
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  // Jobs that are open: a delivery or call under way, a message on its way back, a receive not yet taken.
  std::set<std::string, std::less<>> open;
  for (const auto& [name, st] : lanes_) {
    if (st.lease) open.insert(out_.leases[*st.lease].job);
    for (std::size_t t : st.tools) open.insert(out_.tools[t].job);
  }
  for (const auto& [job, rd] : waiting_redelivery_) open.insert(job);
  for (const pending_receive& p : pending_) open.insert(p.job);

  // What the spans held say of each job.
  struct facts {
    std::int64_t attempts = 0;
    std::size_t leases = 0;
    unsigned kind = 0;
    std::string_view last_end;  // how its last delivery ended
  };
  std::map<std::string_view, facts, std::less<>> of;
  for (const auto& [job, entry] : jobs_) of[job].kind = entry.kind;
  for (const lease_span& l : out_.leases) {
    facts& f = of[l.job];
    f.attempts += static_cast<std::int64_t>(std::max<std::size_t>(l.attempts.size(), 1));
    if (++f.leases > 1 || l.receive_count > 1 || l.attempts.size() > 1) f.kind |= span_sample::retried;
    if (l.ended_by == "crash" || l.ended_by == "stop" || l.ended_by == "expired" || l.ended_by == "returned")
      f.kind |= span_sample::crashed;
    if (l.ended_by == "dead_letter") f.kind |= span_sample::dead_lettered;
    f.last_end = l.ended_by;
  }
  std::set<std::string_view, std::less<>> refunded_again;
  for (const refund_mark& r : out_.refunds)
    if (r.nth_for_invoice > 1) refunded_again.insert(r.ref);
  for (const tool_span& t : out_.tools) {
    if (t.job.empty()) continue;
    facts& f = of[t.job];
    if (t.finished && refunded_again.contains(t.ref)) f.kind |= span_sample::duplicated;
    if (!t.finished && !open.contains(t.job)) f.kind |= span_sample::crashed;
  }
  for (const worker_mark& m : out_.marks) {
    if (m.job.empty()) continue;
    if (is_crash_mark(m.kind)) of[m.job].kind |= span_sample::crashed;
    if (m.kind == "dead_letter") of[m.job].kind |= span_sample::dead_lettered;
  }

  // Ended: nothing open, and its last delivery (if it had one) acked or dead-lettered.
  std::vector<std::string_view> names;
  std::vector<span_sample::job_facts> candidates;
  for (const auto& [job, entry] : jobs_) {
    if (open.contains(job)) continue;
    const facts& f = of[job];
    if (f.leases > 0 && f.last_end != "ack" && f.last_end != "dead_letter") continue;
    names.push_back(job);
    candidates.push_back({entry.order, f.attempts, f.kind});
  }
  const std::vector<bool> chosen = span_sample::choose_kept(candidates, bound_->first_jobs, bound_->per_kind);
  std::set<std::string, std::less<>> dropped;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!chosen[i]) dropped.emplace(names[i]);
  auto keeps = [&](const std::string& job) { return job.empty() || !dropped.contains(job); };

  omitted_spans& gone = out_.omitted;
  gone.jobs += dropped.size();
  std::vector<bool> keep(out_.leases.size());
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const lease_span& l = out_.leases[i];
    keep[i] = keeps(l.job);
    if (keep[i]) continue;
    ++gone.leases;
    fold(l.start);
    fold(l.end);
    if (l.expired_at) fold(*l.expired_at);
  }
  const std::vector<std::size_t> lease_at = keep_only(out_.leases, keep);

  std::set<std::string, std::less<>> dropped_refs;
  keep.assign(out_.tools.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const tool_span& t = out_.tools[i];
    keep[i] = keeps(t.job);
    if (keep[i]) continue;
    ++gone.tools;
    fold(t.start.us(), t.end.us());
    if (!t.ref.empty()) dropped_refs.insert(t.ref);
  }
  const std::vector<std::size_t> tool_at = keep_only(out_.tools, keep);

  keep.assign(out_.marks.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    keep[i] = keeps(out_.marks[i].job);
    if (keep[i]) continue;
    ++gone.marks;
    fold(out_.marks[i].at);
  }
  keep_only(out_.marks, keep);

  keep.assign(out_.redeliveries.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    keep[i] = keeps(out_.redeliveries[i].job);
    if (keep[i]) continue;
    ++gone.redeliveries;
    fold(out_.redeliveries[i].at);
  }
  const std::vector<std::size_t> redelivery_at = keep_only(out_.redeliveries, keep);
  auto renumber = [&](std::optional<std::size_t>& lease) {
    if (lease) lease = lease_at[*lease] == npos ? std::nullopt : std::optional(lease_at[*lease]);
  };
  for (redelivery& rd : out_.redeliveries) {
    renumber(rd.from_lease);
    renumber(rd.to_lease);
  }

  keep.assign(out_.refunds.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const refund_mark& r = out_.refunds[i];
    keep[i] = !dropped_refs.contains(r.ref);
    if (keep[i]) continue;
    ++gone.refunds;
    fold(r.at);
    if (!gone.last_refund || *gone.last_refund < r.at) gone.last_refund = r.at;
  }
  keep_only(out_.refunds, keep);

  keep.assign(out_.executions.size(), false);
  for (std::size_t i = 0; i < keep.size(); ++i) {
    const vendor_execution& x = out_.executions[i];
    keep[i] = x.outcome == "open";
    if (keep[i]) continue;
    ++gone.executions;
    fold(x.start.us(), x.end.us());
  }
  const std::vector<std::size_t> execution_at = keep_only(out_.executions, keep);
  for (const vendor_mark& m : out_.vendor_marks) fold(m.at);
  gone.vendor_marks += out_.vendor_marks.size();
  out_.vendor_marks.clear();

  // Every index into what moved.
  for (auto& [name, st] : lanes_) {
    if (st.lease) st.lease = lease_at[*st.lease];
    for (std::size_t& t : st.tools) t = tool_at[t];
  }
  std::erase_if(by_delivery_, [&](const auto& kv) { return lease_at[kv.second] == npos; });
  for (auto& [delivery, index] : by_delivery_) index = lease_at[index];
  std::erase_if(waiting_redelivery_, [&](const auto& kv) { return redelivery_at[kv.second] == npos; });
  for (auto& [job, index] : waiting_redelivery_) index = redelivery_at[index];
  std::erase_if(executions_, [&](const auto& kv) { return execution_at[kv.second] == npos; });
  for (auto& [req, index] : executions_) index = execution_at[index];
  for (const std::string& job : dropped) jobs_.erase(job);
  next_compaction_ = jobs_.size() + std::max<std::size_t>(jobs_.size(), 2048);
}

}  // namespace

bool actor_less(const std::string& a, const std::string& b) {
  const auto [pa, na] = split_number(a);
  const auto [pb, nb] = split_number(b);
  if (pa != pb || !na || !nb || *na == *nb) return a < b;
  return *na < *nb;
}

run_spans collect_spans(const std::vector<ev::event>& events, const name_table& names) {
  span_builder b(names, std::nullopt);
  for (const ev::event& e : events) b.add(e);
  return std::move(b).finish();
}

// The builder lives behind a pointer: its state is this file's own.
struct span_collector::state {
  state(const name_table& names, std::optional<span_bound> bound) : builder(names, bound) {}
  span_builder builder;
};

span_collector::span_collector() = default;
span_collector::span_collector(span_bound bound) : bound_(bound) {}
span_collector::~span_collector() = default;

// The table is the world's, the same for every event of the run.
void span_collector::on_event(const ev::event& e, const name_table& names) {
  if (!state_) state_ = std::make_unique<state>(names, bound_);
  state_->builder.add(e);
}

std::uint64_t span_collector::footprint() const { return state_ ? state_->builder.footprint() : 0; }

run_spans span_collector::take() {
  if (!state_) return {};
  run_spans out = std::move(state_->builder).finish();
  state_.reset();
  return out;
}

std::string tool_result_text(const tool_span& t) {
  if (!t.finished) return "interrupted";
  std::string out = t.status == 0 ? std::string("timeout") : std::to_string(t.status);
  if (!t.error.empty()) out += " " + t.error;
  if (!t.ref.empty()) out += " " + t.ref;
  if (t.replayed) out += " (replayed)";
  return out;
}

}  // namespace twice
