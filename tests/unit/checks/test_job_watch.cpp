// job_watch_table: a fixed-size watch per job, and the open work (slices,
// attempts' places) apart, only while a slice of the job is open; a job that
// runs again after its slices closed (a duplicate copy, a lost ack) gets
// open work again, and what its watch counted stays.
#include <catch2/catch.hpp>

#include "checks/job_watch.hpp"

using namespace twice;

namespace {
struct fixture {
  name_table names;
  job_watch_table jobs{false};
  void see(std::int64_t at_us, std::string_view actor, ev::payload body) {
    jobs.on_event(ev::event{sim::instant::from_us(at_us), names.intern(actor), std::move(body)}, names);
  }
  ev::name_id id(std::string_view text) { return names.intern(text); }
};
}  // namespace

TEST_CASE("job_watch_table keeps slices only while one is open, and the counts for good", "[job_watch]") {
  fixture f;
  const ev::name_id a = f.id("job_a"), b = f.id("job_b");
  f.see(10, "worker/0", ev::attempt_start{a, 1, 0, 1, 1});
  f.see(20, "worker/1", ev::attempt_start{b, 1, 0, 2, 1});
  f.see(30, "worker/2", ev::attempt_start{a, 2, 0, 1, 2});  // a second copy of job_a, overlapping
  const job_watch_table::job_watch& ja = f.jobs[f.jobs.job_id(a)];
  const job_watch_table::job_watch& jb = f.jobs[f.jobs.job_id(b)];
  REQUIRE(f.jobs.slices(ja).size() == 2);
  CHECK(f.jobs.slices(jb).size() == 1);
  CHECK(f.jobs.start_index(ja).size() == 2);
  CHECK(f.jobs.open_slice(ja, f.id("worker/2"))->attempt == 2);
  CHECK(f.jobs.open_slice(ja, f.id("worker/1")) == nullptr);

  f.see(40, "worker/0", ev::slice_end{a, 1, 0});
  CHECK(f.jobs.slices(ja).size() == 2);  // worker/2's is still open
  f.see(50, "worker/2", ev::job_done{a, 2, 0});
  f.see(60, "worker/2", ev::slice_end{a, 2, 0});
  CHECK(f.jobs.slices(ja).empty());
  CHECK(f.jobs.start_index(ja).empty());
  CHECK(ja.attempts_started == 2);
  CHECK(ja.last_attempt == 2);
  CHECK(ja.ended);
  CHECK(ja.done_at() == sim::instant::from_us(50));
  CHECK(f.jobs.slices(jb).size() == 1);  // job_b's open work is its own

  // job_a runs again after it ended: open work again (job_a's row reused),
  // counts and the first done kept.
  f.see(70, "worker/3", ev::attempt_start{a, 3, 0, 1, 3});
  CHECK(f.jobs.slices(ja).size() == 1);
  CHECK(f.jobs.slices(ja).front().start == sim::instant::from_us(70));
  CHECK(f.jobs.slices(jb).front().start == sim::instant::from_us(20));
  CHECK(ja.attempts_started == 3);
  f.see(80, "worker/3", ev::job_done{a, 3, 0});
  CHECK(ja.done_at() == sim::instant::from_us(50));
  CHECK_FALSE(jb.done_at().has_value());
}
