// A Pub/Sub subscription and Google's streaming pull client against their
// own documentation and source (google/pubsub/v1 as
// googleapis/python-pubsub@63796ff3def3 documents it, and that client's
// lease management): one test case per row of tests/pubsub_conformance.md.
// P1..P6 test the broker (queue_config::pubsub) on its own; P7..P10 run
// whole worlds from scenario text.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"
#include "scenario_run.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

queue_config subscription(handle_semantics semantics = handle_semantics::sqs) {
  queue_config c;
  c.name = "sub";
  c.pubsub = true;
  c.visibility_timeout = sim::duration::from_s(10);
  c.retention = days(7);
  c.semantics = semantics;
  return c;
}

// Every delivery duplicated, every ack lost: what at-least-once allows.
struct every_fault : queue_faults {
  int asked = 0;
  bool duplicate_delivery(const received_message&) override {
    ++asked;
    return false;
  }
  bool lose_delete(message_id) override {
    ++asked;
    return false;
  }
};

// A world on the Pub/Sub flavour.
struct pubsub_run : test::scenario_run {
  explicit pubsub_run(const std::string& text) : scenario_run("[queue]\nflavour = \"pubsub\"\n" + text) {}
};

// One refund job whose model step takes `model`, on two workers, no key.
std::string slow_refund(std::string_view model) {
  return fmt::format("[workers]\ncount = 2\n[discipline]\nkey = \"none\"\n[vendor]\nlatency = {{ fixed = \"300ms\" }}\n"
                     "[tools.model]\nlatency = {{ fixed = \"{}\" }}\nclient_timeout = \"3h\"\n[budget]\ntime_limit = \"4h\"\n"
                     "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n",
                     model);
}

}  // namespace

TEST_CASE("P1 ack deadline: an unacked message is redelivered once its deadline passes", "[pubsub]") {
  queue_testing::world w(subscription());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.run_until(at(sim::duration::from_s(9)));
  CHECK(w.receive_now().empty());
  w.run_until(at(sim::duration::from_s(10)));
  const received_message again = w.receive_now().at(0);
  CHECK(again.id == first.id);
  CHECK(again.receive_count == 2);
}

TEST_CASE("P2 modifyAckDeadline: 0..600 s from the call, as often as asked, with no cap on the total", "[pubsub]") {
  queue_testing::world w(subscription());
  w.q.send("job_1");
  const received_message m = w.receive_now().at(0);
  CHECK(w.q.change_visibility(m.handle, sim::duration::from_s(601)) == queue_status::invalid_timeout);
  // Extended every 10 minutes for a day: past SQS's 12 h, still held.
  for (int i = 1; i <= 144; ++i) {
    REQUIRE(w.q.change_visibility(m.handle, sim::duration::from_s(600)) == queue_status::ok);
    w.run_until(at(sim::duration::from_s(590 * i)));
    REQUIRE(w.receive_now().empty());
  }
  CHECK(w.q.delete_message(m.handle) == queue_status::ok);
  CHECK(w.q.size() == 0);
}

TEST_CASE("P3 a nack is a modifyAckDeadline of 0: the message is delivered again at once", "[pubsub]") {
  queue_testing::world w(subscription());
  w.q.send("job_1");
  const received_message m = w.receive_now().at(0);
  CHECK(w.q.change_visibility(m.handle, sim::duration::zero()) == queue_status::ok);
  CHECK(w.receive_now().at(0).id == m.id);
}

TEST_CASE("P4 exactly-once delivery: only the latest ack id acks, and nothing is resent early", "[pubsub]") {
  queue_testing::world exactly(subscription(handle_semantics::strict));
  every_fault faults;
  exactly.q.set_faults(&faults);
  exactly.q.send("job_1");
  const received_message first = exactly.receive_now().at(0);
  exactly.run_until(at(sim::duration::from_s(10)));
  const received_message second = exactly.receive_now().at(0);
  CHECK(exactly.q.delete_message(first.handle) == queue_status::stale_handle);  // the expired ack id fails
  CHECK(exactly.q.change_visibility(first.handle, sim::duration::from_s(60)) == queue_status::stale_handle);
  CHECK(exactly.q.delete_message(second.handle) == queue_status::ok);
  CHECK(faults.asked == 0);  // no duplicate delivery, no lost ack
  // At-least-once: both may happen, as on SQS.
  queue_testing::world at_least(subscription());
  every_fault asked;
  at_least.q.set_faults(&asked);
  at_least.q.send("job_1");
  const received_message m = at_least.receive_now().at(0);
  CHECK(at_least.q.delete_message(m.handle) == queue_status::ok);
  CHECK(asked.asked == 2);
}

TEST_CASE("P5 a dead-letter policy forwards a message after max_delivery_attempts deliveries", "[pubsub]") {
  queue_config c = subscription();
  c.max_receive_count = 5;
  queue_testing::world w(c);
  queue& dead = w.add_dead_letter("sub-dead");
  w.q.send("job_1");
  for (int delivery = 1; delivery <= 5; ++delivery) {
    const received_message m = w.receive_now().at(0);
    CHECK(m.receive_count == static_cast<std::uint32_t>(delivery));
    w.q.change_visibility(m.handle, sim::duration::zero());
  }
  CHECK(w.receive_now().empty());  // the sixth delivery attempt forwards it
  CHECK(dead.size() == 1);
}

TEST_CASE("P6 message_retention_duration: an unacked message is dropped 7 days after its publish", "[pubsub]") {
  queue_testing::world w(subscription());
  w.q.send("job_1");
  w.run_until(at(days(7) - sim::duration::from_s(1)));
  CHECK(w.q.size() == 1);
  w.run_until(at(days(7)));
  CHECK(w.q.size() == 0);
  CHECK(w.records("retention_expired").size() == 1);
}

TEST_CASE("P7 lease management keeps a 25 s job's message with its worker under a 10 s deadline", "[pubsub][world]") {
  const pubsub_run run(slow_refund("25s"));
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.records("lease_expired").empty());
  CHECK(run.records("heartbeat").size() == 5);  // every 5 s, each for the 10 s deadline
  CHECK(run.refunds() == 1);
}

TEST_CASE("P8 max_lease_duration: past it the client stops extending, and the message comes back while the job runs",
          "[pubsub][world]") {
  const pubsub_run run(slow_refund("40s") + "[pubsub]\nmax_lease_duration = \"20s\"\n");
  REQUIRE(run.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> dropped = run.records("lease_dropped");
  REQUIRE(dropped.size() == 2);  // one per slice: the second runs as long
  CHECK(dropped[0]->get_int("held_us") == sim::duration::from_s(20).us());
  CHECK(run.refunds() == 2);
  const pubsub_run longer(slow_refund("40s") + "[pubsub]\nmax_lease_duration = \"1h\"\n");
  CHECK(longer.records("lease_dropped").empty());
  CHECK(longer.refunds() == 1);
}

TEST_CASE("P9 without lease management a job longer than the deadline runs twice", "[pubsub][world]") {
  const pubsub_run run(slow_refund("25s") + "[pubsub]\nlease_management = false\n");
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.records("heartbeat").empty());
  CHECK(run.records("lease_expired").size() >= 1);
  CHECK(run.refunds() == 2);
}

TEST_CASE("P10 a retry waits out a modifyAckDeadline between the RetryPolicy's bounds (10 s .. 600 s)",
          "[pubsub][world]") {
  const pubsub_run run(slow_refund("1s") + "[[vendor.outage]]\nstart = \"0s\"\nend = \"5s\"\n");
  REQUIRE(run.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> backoffs = run.records("backoff");
  REQUIRE(backoffs.size() == 1);
  CHECK(backoffs[0]->get_int("delay_us") <= sim::duration::from_s(10).us());  // full jitter under the first step
  CHECK(backoffs[0]->get_int("cap_us") == sim::duration::from_s(600).us());
  CHECK(run.refunds() == 1);
}
