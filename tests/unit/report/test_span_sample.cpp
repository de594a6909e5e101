// What a bounded span collector keeps of a long run (report/spans.hpp,
// span_bound): the jobs it chooses (report/span_sample.hpp), the times of
// what it drops (report/busy_stretches.hpp), and the two together on events
// fed as a world emits them.

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <twice/events/trace_events.hpp>
#include <twice/report/spans.hpp>

#include "report/busy_stretches.hpp"
#include "report/span_sample.hpp"

using namespace twice;

namespace {

std::vector<std::size_t> kept_of(const std::vector<span_sample::job_facts>& jobs, std::size_t first,
                                 std::size_t per_kind) {
  const std::vector<bool> kept = span_sample::choose_kept(jobs, first, per_kind);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i]) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("span sample: the first jobs seen, whatever they did", "[report][span_sample]") {
  const std::vector<span_sample::job_facts> jobs = {{5, 1, 0}, {0, 1, 0}, {1, 1, 0}, {7, 1, 0}};
  CHECK(kept_of(jobs, 2, 3) == std::vector<std::size_t>{1, 2});
  CHECK(kept_of(jobs, 0, 3).empty());
}

TEST_CASE("span sample: of each kind the most attempted, the earliest seen of equal attempts",
          "[report][span_sample]") {
  using namespace span_sample;
  const std::vector<job_facts> jobs = {
      {10, 2, retried},               //
      {11, 4, retried},               // the most attempted retry
      {12, 2, retried},               // as many as the first, seen later
      {13, 1, crashed},               //
      {14, 3, dead_lettered},         //
      {15, 5, retried | duplicated},  // the most attempted of two kinds
      {16, 1, duplicated},            // second of its kind
      {17, 1, 0},                     // nothing to see
  };
  CHECK(kept_of(jobs, 0, 1) == std::vector<std::size_t>{3, 4, 5});
  CHECK(kept_of(jobs, 0, 2) == std::vector<std::size_t>{1, 3, 4, 5, 6});
  CHECK(kept_of(jobs, 0, 3) == std::vector<std::size_t>{0, 1, 3, 4, 5, 6});
  // The first jobs besides, and nothing dull past them.
  CHECK(kept_of(jobs, 12, 1) == std::vector<std::size_t>{0, 1, 3, 4, 5});
}

TEST_CASE("busy stretches: merged where they overlap or touch, apart where time was idle", "[report][span_sample]") {
  std::vector<busy_stretch> s;
  add_busy(s, 10, 20, 8);
  add_busy(s, 40, 40, 8);
  add_busy(s, 20, 25, 8);  // touches the first
  add_busy(s, 0, 2, 8);    // before everything
  add_busy(s, 30, 35, 8);  // between two
  CHECK(s == std::vector<busy_stretch>{{0, 2}, {10, 25}, {30, 35}, {40, 40}});
  add_busy(s, 24, 41, 8);  // over three
  CHECK(s == std::vector<busy_stretch>{{0, 2}, {10, 41}});
  add_busy(s, 7, 5, 8);  // an end before its start is a point
  CHECK(s == std::vector<busy_stretch>{{0, 2}, {7, 7}, {10, 41}});
}

TEST_CASE("busy stretches: past the most, the shortest gap closes first, the earliest of equal ones",
          "[report][span_sample]") {
  std::vector<busy_stretch> s;
  for (std::int64_t t : {0, 10, 13, 23, 26, 100}) add_busy(s, t, t, 6);
  REQUIRE(s.size() == 6);
  add_busy(s, 200, 200, 6);  // gaps 10, 3, 10, 3, 74, 100: the first 3 closes
  CHECK(s == std::vector<busy_stretch>{{0, 0}, {10, 13}, {23, 23}, {26, 26}, {100, 100}, {200, 200}});
  add_busy(s, 400, 400, 6);  // then the other 3
  CHECK(s == std::vector<busy_stretch>{{0, 0}, {10, 13}, {23, 26}, {100, 100}, {200, 200}, {400, 400}});
  // The long idle stretches, the ones an axis compresses, stay.
  CHECK(s.back().first - s[s.size() - 2].second == 200);
}

namespace {

// Hand-made deliveries, as the broker and a worker emit them, into one collector.
struct feed {
  name_table names;
  span_collector spans;
  std::int64_t now_us = 0;
  std::uint64_t next_message = 0;
  explicit feed(span_bound bound) : spans(bound) {}

  void send(std::string_view actor, ev::payload body) {
    now_us += 1000;
    spans.on_event(
        ev::event{sim::instant::epoch() + sim::duration::from_us(now_us), names.intern(actor), std::move(body)}, names);
  }
  // One delivery of `job`'s message that starts an attempt; acked or not.
  void deliver(std::string_view job, std::uint64_t message, std::int64_t count, bool ack) {
    ev::receive r;
    r.id = message;
    r.body = names.intern(job);
    r.receive_count = count;
    send("queue/jobs", r);
    ev::attempt_start a;
    a.job = names.intern(job);
    a.attempt = static_cast<std::uint32_t>(count - 1);
    a.message = message;
    a.receive_count = count;
    send("worker/0", a);
    if (ack) {
      ev::ack k;
      k.job = names.intern(job);
      k.message = message;
      send("worker/0", k);
    } else {
      ev::nack n;
      n.job = names.intern(job);
      send("worker/0", n);
    }
    ev::slice_end e;
    e.job = names.intern(job);
    send("worker/0", e);
    if (!ack) {  // the backoff over, the message visible again
      ev::lease_expired x;
      x.id = message;
      x.body = names.intern(job);
      x.receive_count = count;
      send("queue/jobs", x);
    }
  }
  // A job delivered `times` times, acked the last.
  void job(std::string_view name, std::int64_t times) {
    const std::uint64_t message = ++next_message;
    for (std::int64_t c = 1; c <= times; ++c) deliver(name, message, c, c == times);
  }
};

std::set<std::string> jobs_with_leases(const run_spans& s) {
  std::set<std::string> out;
  for (const lease_span& l : s.leases) out.insert(l.job);
  return out;
}

}  // namespace

TEST_CASE("span collector: within its bound it keeps every span", "[report][span_sample]") {
  feed f(span_bound{.all_jobs = 10, .first_jobs = 1, .per_kind = 1});
  for (int i = 0; i < 10; ++i) f.job("job_" + std::to_string(i), 1);
  const run_spans s = f.spans.take();
  CHECK(s.leases.size() == 10);
  CHECK(s.omitted.jobs == 0);
  CHECK(s.omitted.activity.empty());
}

TEST_CASE("span collector: past its bound, the first jobs, the most retried, the open ones", "[report][span_sample]") {
  feed f(span_bound{.all_jobs = 4, .first_jobs = 2, .per_kind = 1});
  f.job("job_0", 1);
  f.job("job_1", 1);
  f.job("job_2", 1);
  f.job("job_3", 1);
  f.job("job_4", 1);
  f.job("job_5", 2);  // retried, then outdone by job_7
  f.job("job_6", 1);
  f.job("job_7", 3);
  f.job("job_8", 1);
  f.deliver("job_9", 99, 1, false);  // its lease ran out: the message is coming back
  const std::int64_t end_us = f.now_us;
  const run_spans s = f.spans.take();
  CHECK(jobs_with_leases(s) == std::set<std::string>{"job_0", "job_1", "job_7", "job_9"});
  CHECK(s.omitted.jobs == 6);
  CHECK(s.omitted.leases == 7);  // job_5's two deliveries and one each of the other five
  // The marks of the jobs dropped go with them (an ack each); the kept keep theirs.
  for (const worker_mark& m : s.marks) CHECK(jobs_with_leases(s).contains(m.job));
  // Their deliveries' times stay, in order, apart from the kept job_7's
  // (which falls between job_6 and job_8) and before job_9's.
  REQUIRE(!s.omitted.activity.empty());
  std::int64_t job_7_from = end_us, job_7_to = 0;
  for (const lease_span& l : s.leases)
    if (l.job == "job_7") {
      job_7_from = std::min(job_7_from, l.start.us());
      job_7_to = std::max(job_7_to, l.end.us());
    }
  for (std::size_t i = 0; i < s.omitted.activity.size(); ++i) {
    const auto [from, to] = s.omitted.activity[i];
    CHECK(from <= to);
    if (i > 0) CHECK(s.omitted.activity[i - 1].second < from);
    CHECK((to < job_7_from || from > job_7_to));
    CHECK(to < end_us - 4000);
  }
  // Every redelivery still points at its own job's deliveries.
  for (const redelivery& rd : s.redeliveries) {
    REQUIRE(rd.from_lease.has_value());
    CHECK(s.leases[*rd.from_lease].job == rd.job);
    if (rd.to_lease) CHECK(s.leases[*rd.to_lease].job == rd.job);
  }
}
