// A Pub/Sub subscription and Google's streaming pull client against their
// own documentation and source (google/pubsub/v1 as
// googleapis/python-pubsub@63796ff3def3 documents it, and that client's
// lease management): one test case per row of tests/conformance/pubsub_conformance.md.
// P1..P6 test the broker (queue_config::pubsub) on its own, as do the first
// half of P10 and P11 (the client's deadline); the rest run
// whole worlds from scenario text.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"
#include "runtime/pubsub_ack_deadline.hpp"
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
  return fmt::format(
      "[workers]\ncount = 2\n[discipline]\nkey = \"none\"\n[vendor]\nlatency = {{ fixed = \"300ms\" }}\n"
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

TEST_CASE("P10 a nack redelivers at once without a RetryPolicy, and after its exponential backoff with one",
          "[pubsub]") {
  // The broker: Message.nack() is a modifyAckDeadline of 0.
  queue_config c = subscription();
  c.retry_policy = pubsub_retry_policy{sim::duration::from_s(10), sim::duration::from_s(30)};
  queue_testing::world w(c);
  w.q.send("job_1");
  sim::duration t = sim::duration::zero();
  // After deliveries 1, 2, 3, 4: 10 s, 20 s, then capped at 30 s, 30 s.
  for (const std::int64_t wait : {10, 20, 30, 30}) {
    const received_message m = w.receive_now().at(0);
    REQUIRE(w.q.change_visibility(m.handle, sim::duration::zero()) == queue_status::ok);
    w.run_until(at(t + sim::duration::from_s(wait) - sim::duration::from_us(1)));
    CHECK(w.receive_now().empty());
    t += sim::duration::from_s(wait);
    w.run_until(at(t));
  }
  CHECK(w.receive_now().at(0).receive_count == 5);
  CHECK(pubsub_retry_delay({}, 1) == sim::duration::from_s(10));   // the defaults: 10 s ..
  CHECK(pubsub_retry_delay({}, 7) == sim::duration::from_s(600));  // .. 640 s capped at 600 s
  CHECK(pubsub_retry_delay({sim::duration::zero(), sim::duration::from_s(600)}, 9) == sim::duration::zero());

  // A world: the vendor is down for the first 2 s.
  const std::string outage = slow_refund("1s") + "[[vendor.outage]]\nstart = \"0s\"\nend = \"2s\"\n";
  const pubsub_run none(outage);
  REQUIRE(none.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> at_once = none.records("backoff");
  const std::vector<const sim::trace_record*> nacks = none.records("nack");
  const std::vector<const sim::trace_record*> receives = none.records("receive");
  REQUIRE(!at_once.empty());
  REQUIRE((nacks.size() == at_once.size() && receives.size() == nacks.size() + 1));
  for (std::size_t i = 0; i < nacks.size(); ++i) {
    CHECK(at_once[i]->get_int("delay_us") == 0);
    CHECK(at_once[i]->get_int("cap_us") == 0);
    CHECK(receives[i + 1]->time == nacks[i]->time);  // redelivered the moment it was nacked
  }
  // So the five attempts are spent inside the 2 s outage: no refund.
  CHECK(nacks.size() == 4);
  CHECK(none.refunds() == 0);

  const pubsub_run policy(outage + "[pubsub]\nminimum_backoff = \"10s\"\nmaximum_backoff = \"10m\"\n");
  REQUIRE(policy.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> backoffs = policy.records("backoff");
  REQUIRE(backoffs.size() == 1);
  CHECK(backoffs[0]->get_int("delay_us") == sim::duration::from_s(10).us());  // not below minimum_backoff
  CHECK(backoffs[0]->get_int("cap_us") == sim::duration::from_s(600).us());
  const std::vector<const sim::trace_record*> waited = policy.records("receive");
  REQUIRE(waited.size() == 2);
  CHECK(waited[1]->time == policy.records("nack").at(0)->time + sim::duration::from_s(10));
  CHECK(policy.refunds() == 1);
}

TEST_CASE("P13 an expired ack deadline waits out the RetryPolicy's backoff before the message goes out again",
          "[pubsub]") {
  // The RetryPolicy is "triggered on NACKs or acknowledgment deadline
  // exceeded events". Before, an expired deadline made the message
  // deliverable at once whatever the policy said.
  queue_config c = subscription();
  c.retry_policy = pubsub_retry_policy{sim::duration::from_s(10), sim::duration::from_s(30)};
  queue_testing::world w(c);
  w.q.send("job_1");
  sim::duration t = sim::duration::zero();
  // Each delivery is never acked: its 10 s deadline runs out, then it waits
  // 10 s, 20 s, 30 s (capped) before the next.
  for (const std::int64_t wait : {10, 20, 30}) {
    const std::vector<received_message> got = w.receive_now();
    REQUIRE(got.size() == 1);
    t += sim::duration::from_s(10);  // the subscription's ack deadline
    w.run_until(at(t + sim::duration::from_s(wait) - sim::duration::from_us(1)));
    CHECK(w.receive_now().empty());
    // Neither a modack nor an ack reaches it while it backs off.
    CHECK(w.q.change_visibility(got[0].handle, sim::duration::from_s(60)) == queue_status::ok);
    CHECK(w.receive_now().empty());
    t += sim::duration::from_s(wait);
    w.run_until(at(t));
  }
  CHECK(w.records("lease_expired").size() == 3);
  CHECK(w.records("delay_ended").size() == 3);
  CHECK(w.receive_now().at(0).receive_count == 4);

  // Without a RetryPolicy the message goes out again as the deadline passes.
  queue_testing::world none(subscription());
  none.q.send("job_1");
  REQUIRE(none.receive_now().size() == 1);
  none.run_until(at(sim::duration::from_s(10)));
  CHECK(none.receive_now().size() == 1);
}

TEST_CASE("P11 the streaming client's own ack deadline: 10 s, then the p99 of its ack times; 60 s with exactly-once",
          "[pubsub]") {
  pubsub_ack_deadline d(false);
  CHECK(d.current() == sim::duration::from_s(10));
  CHECK(d.update() == sim::duration::from_s(10));                        // no ack yet
  d.record_ack(sim::duration::from_ms(24'200));                          // math.ceil: 25 s
  CHECK(d.current() == sim::duration::from_s(10));                       // a receipt modack does not update it
  CHECK(d.update() == sim::duration::from_s(25));                        // the leaser's loop does
  for (int i = 0; i < 100; ++i) d.record_ack(sim::duration::from_s(3));  // clamped up to 10 s
  CHECK(d.update() == sim::duration::from_s(10));                        // 101 acks: the p99 is no longer the slow one
  d.record_ack(sim::duration::from_s(5000));                             // clamped down to 600 s
  d.record_ack(sim::duration::from_s(5000));
  CHECK(d.update() == sim::duration::from_s(10));  // 103 acks: not past min(2 x 101, 101 + 100), kept
  pubsub_ack_deadline exactly_once(true);
  CHECK(exactly_once.current() == sim::duration::from_s(60));
  exactly_once.record_ack(sim::duration::from_s(25));
  CHECK(exactly_once.update() == sim::duration::from_s(60));
  exactly_once.record_ack(sim::duration::from_s(90));
  exactly_once.record_ack(sim::duration::from_s(90));
  CHECK(exactly_once.update() == sim::duration::from_s(90));
}

namespace {
// How long after its first delivery a message whose worker dies at `crash`
// is delivered again.
sim::duration redelivered_after_crash(const std::string& pubsub_keys, std::string_view crash) {
  const pubsub_run run(slow_refund("25s") +
                       fmt::format("[[crash]]\nat = \"{}\"\nworker = 0\nrestart = false\n", crash) + "[pubsub]\n" +
                       pubsub_keys);
  REQUIRE(run.result.all_jobs_ended);
  CHECK(run.refunds() == 1);
  const std::vector<const sim::trace_record*> receives = run.records("receive");
  REQUIRE(receives.size() == 2);
  return receives[1]->time - receives[0]->time;
}
}  // namespace

TEST_CASE("P12 a dead client's message returns at the client's deadline, not the subscription's ack deadline",
          "[pubsub][world]") {
  // A 600 s subscription: the receipt modack sets 10 s at once, and each
  // extension 10 s again (every 5 s here), so a message whose worker died
  // returns within 10 s of its last modack, not 600 s.
  CHECK(redelivered_after_crash("ack_deadline = \"600s\"\n", "3s") == sim::duration::from_s(10));
  const sim::duration after_extensions = redelivered_after_crash("ack_deadline = \"600s\"\n", "12s");
  CHECK(after_extensions > sim::duration::from_s(12));
  CHECK(after_extensions <= sim::duration::from_s(22));
  // Exactly-once: the client's deadline is at least 60 s, also under a 10 s subscription.
  CHECK(redelivered_after_crash("exactly_once_delivery = true\n", "3s") == sim::duration::from_s(60));
  // A plain pull loop has no deadline of its own: the subscription's holds.
  CHECK(redelivered_after_crash("ack_deadline = \"600s\"\nlease_management = false\n", "3s") ==
        sim::duration::from_s(600));
}
