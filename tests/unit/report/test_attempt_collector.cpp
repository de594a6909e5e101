// Which attempts a run summarises (report/attempts.hpp): all of the first
// few, then what a reader looks for, with every attempt counted.

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include <twice/events/trace_events.hpp>
#include <twice/report/attempts.hpp>

using namespace twice;

namespace {

// Feeds hand-made events, as a world would emit them, to one collector.
struct feed {
  name_table names;
  attempt_collector attempts;
  std::int64_t now_us = 0;
  explicit feed(attempt_detail detail) : attempts(detail) {}
  void send(std::string_view worker, ev::payload body) {
    attempts.on_event(
        ev::event{sim::instant::epoch() + sim::duration::from_us(++now_us), names.intern(worker), std::move(body)},
        names);
  }
  void start(std::string_view job, std::string_view worker, std::uint32_t attempt) {
    ev::attempt_start s;
    s.job = names.intern(job);
    s.attempt = attempt;
    send(worker, s);
  }
  void done(std::string_view job, std::string_view worker) {
    ev::job_done d;
    d.job = names.intern(job);
    send(worker, d);
  }
  void backoff(std::string_view job, std::string_view worker) {
    ev::backoff b;
    b.job = names.intern(job);
    b.delay = sim::duration::from_ms(100);
    send(worker, b);
  }
};

std::vector<std::string> listed(std::vector<attempt_summary> attempts) {
  std::vector<std::string> out;
  for (const attempt_summary& a : attempts) out.push_back(a.job_id + "#" + std::to_string(a.attempt) + " " + a.outcome);
  return out;
}

}  // namespace

TEST_CASE("attempts past the first few: a first attempt done is counted, anything else is listed", "[attempts]") {
  feed f(attempt_detail{.every_first = 2, .listed_max = 100});
  for (const char* job : {"job_a", "job_b", "job_c"}) {
    f.start(job, "worker/1", 0);
    f.done(job, "worker/1");
  }
  // A retry: both attempts kept, the first listed with its outcome.
  f.start("job_d", "worker/1", 0);
  f.backoff("job_d", "worker/1");
  f.start("job_d", "worker/2", 1);
  f.done("job_d", "worker/2");
  // A duplicate delivery: the first attempt done, but another ran beside it.
  f.start("job_e", "worker/1", 0);
  f.start("job_e", "worker/2", 1);
  f.done("job_e", "worker/1");
  f.done("job_e", "worker/2");
  // Still running when the run ended.
  f.start("job_f", "worker/3", 0);
  CHECK(f.attempts.started() == 8);
  CHECK(f.attempts.omitted() == 1);  // job_c's only attempt
  CHECK(listed(f.attempts.take_attempts()) == std::vector<std::string>{"job_a#0 done", "job_b#0 done", "job_d#0 retry",
                                                                       "job_d#1 done", "job_e#0 done", "job_e#1 done",
                                                                       "job_f#0 running"});
}

TEST_CASE("attempts held at once are capped, and those past the cap only counted", "[attempts]") {
  feed f(attempt_detail{.every_first = 0, .listed_max = 2});
  for (const char* job : {"job_a", "job_b", "job_c"}) {
    f.start(job, "worker/1", 0);
    f.backoff(job, "worker/1");
  }
  CHECK(f.attempts.started() == 3);
  CHECK(f.attempts.omitted() == 1);
  CHECK(listed(f.attempts.take_attempts()) == std::vector<std::string>{"job_a#0 retry", "job_b#0 retry"});
}

TEST_CASE("attempts counted per job are every attempt, listed or not", "[attempts]") {
  feed f(attempt_detail{.every_first = 0, .listed_max = 1, .per_job = true});
  for (const char* job : {"job_a", "job_b", "job_c"}) {
    f.start(job, "worker/1", 0);
    f.done(job, "worker/1");
  }
  f.start("job_d", "worker/1", 0);
  f.backoff("job_d", "worker/1");
  f.start("job_d", "worker/1", 1);
  f.done("job_d", "worker/1");
  CHECK(f.attempts.omitted() == 4);  // job_d#0 alone is held: the first attempts let go, job_d#1 past the cap
  CHECK(f.attempts.jobs_by_attempts() == std::map<std::int64_t, std::int64_t>{{1, 3}, {2, 1}});
}

TEST_CASE("an unbounded collector lists every attempt, as before", "[attempts]") {
  feed f(attempt_detail{});
  for (const char* job : {"job_a", "job_b"}) {
    f.start(job, "worker/1", 0);
    f.done(job, "worker/1");
  }
  CHECK(f.attempts.omitted() == 0);
  CHECK(listed(f.attempts.take_attempts()) == std::vector<std::string>{"job_a#0 done", "job_b#0 done"});
}
