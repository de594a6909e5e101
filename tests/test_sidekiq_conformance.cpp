// Sidekiq's BasicFetch and its retries against Sidekiq's own source
// (sidekiq/sidekiq v8.1.7, commit 1bb4aa06e5aa): one test case per row of
// tests/sidekiq_conformance.md. The queue side (queue_config::hold_until_ack)
// is tested here; the runtime's side (the schedule, the shutdown timeout) in
// test_retry_policy.cpp and by the catalogue pair sidekiq_term_timeout.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

queue_config basic_fetch() {
  queue_config c;
  c.name = "default";
  c.hold_until_ack = true;
  return c;
}

}  // namespace

TEST_CASE("K1 fetch.rb BRPOP: jobs come out oldest first, and a fetched job has no lease", "[sidekiq]") {
  world w(basic_fetch());
  w.q.send("job_1");
  w.q.send("job_2");
  const received_message first = w.receive_now().at(0);
  CHECK(first.body == "job_1");
  w.run_until(at(days(2)));
  CHECK(w.receive_now().at(0).body == "job_2");  // job_1 is still with its process
  CHECK(w.receive_now().empty());
  CHECK(w.records("lease_expired").empty());
  CHECK(w.q.delete_message(first.handle) == queue_status::ok);  // the ack: done
  CHECK(w.q.size() == 1);
}

TEST_CASE("K2 Reliability wiki: a process that dies loses the job it fetched", "[sidekiq]") {
  world w(basic_fetch());
  w.q.send("job_1");
  const receipt_handle h = w.receive_now().at(0).handle;
  CHECK(w.q.drop_held(h) == queue_status::ok);
  CHECK(w.q.size() == 0);
  CHECK(w.q.stats().lost_with_process == 1);
  CHECK(w.records("lost_with_process").size() == 1);
  CHECK(w.receive_now().empty());
  CHECK(w.q.drop_held(h) == queue_status::invalid_handle);  // nothing held any more
}

TEST_CASE("K3 fetch.rb bulk_requeue (RPUSH): a job pushed back at a hard shutdown runs next", "[sidekiq]") {
  world w(basic_fetch());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  w.q.send("job_3");
  CHECK(w.q.requeue_held(first.handle) == queue_status::ok);
  const received_message again = w.receive_now().at(0);
  CHECK(again.body == "job_1");
  CHECK(again.receive_count == 2);
  CHECK(w.records("pushed_back").size() == 1);
  CHECK(w.q.requeue_held(first.handle) == queue_status::invalid_handle);  // a superseded fetch holds nothing
}

TEST_CASE("K4 job_retry.rb + scheduled.rb: a retry waits in the retry set, then goes to the back of the queue",
          "[sidekiq]") {
  world w(basic_fetch());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  // 25th retry's delay: longer than any SQS lease may be.
  CHECK(w.q.change_visibility(first.handle, days(4)) == queue_status::ok);
  CHECK(w.q.drop_held(first.handle) == queue_status::invalid_handle);  // waits in Redis, not with the process
  w.run_until(at(days(4)));
  w.q.send("job_3");
  const auto got = w.receive_now(at_most(3));
  REQUIRE(got.size() == 3);
  // job_2 waited in the queue; the retry was LPUSHed behind it, and before job_3.
  CHECK(got[0].body == "job_2");
  CHECK(got[1].body == "job_1");
  CHECK(got[2].body == "job_3");
}
