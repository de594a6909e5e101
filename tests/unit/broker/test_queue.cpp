// The SQS standard queue model: one test per documented behaviour, each
// driven by small coroutines on a kernel with a trace recorder.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

struct scripted_faults : queue_faults {
  int duplicates_left = 0;
  int lost_deletes_left = 0;
  bool duplicate_delivery(const received_message&) override {
    if (duplicates_left == 0) return false;
    --duplicates_left;
    return true;
  }
  bool lose_delete(message_id) override {
    if (lost_deletes_left == 0) return false;
    --lost_deletes_left;
    return true;
  }
};

}  // namespace

TEST_CASE("send, receive and delete a message", "[queue]") {
  world w;
  const message_id id = w.q.send("job-1");
  const auto got = w.receive_now();
  REQUIRE(got.size() == 1);
  CHECK(got[0].id == id);
  CHECK(got[0].body == "job-1");
  CHECK(got[0].receive_count == 1);
  CHECK(got[0].sent_at == at(0_s));
  CHECK(w.q.delete_message(got[0].handle) == queue_status::ok);
  CHECK_FALSE(w.q.contains(id));
  CHECK(w.receive_now().empty());

  const auto receives = w.records("receive");
  REQUIRE(receives.size() == 1);
  CHECK(receives[0]->actor == "queue/jobs");
  CHECK(receives[0]->get_string("body") == "job-1");
  CHECK(receives[0]->get_int("visible_until_us") == (30_s).us());
  REQUIRE(w.records("delete").size() == 1);
  CHECK(w.records("delete")[0]->get_bool("applied") == true);
}

TEST_CASE("every delivery has a fresh handle, the same id and a higher receive count", "[queue]") {
  world w(config_with(10_s));
  const message_id id = w.q.send("job-1");
  std::vector<received_message> deliveries;
  for (int i = 0; i < 3; ++i) {
    w.run_until(at(10_s * i));
    const auto got = w.receive_now();
    REQUIRE(got.size() == 1);
    deliveries.push_back(got[0]);
  }
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    CHECK(deliveries[i].id == id);
    CHECK(deliveries[i].receive_count == i + 1);
    CHECK(deliveries[i].sent_at == at(0_s));
  }
  CHECK(deliveries[0].handle != deliveries[1].handle);
  CHECK(deliveries[1].handle != deliveries[2].handle);
  CHECK(deliveries[0].handle != deliveries[2].handle);
}

TEST_CASE("a lease that expires makes the message receivable again, not before", "[queue]") {
  world w(config_with(30_s));
  w.q.send("job-1");
  REQUIRE(w.receive_now().size() == 1);
  w.run_until(at(30_s - 1_us));
  CHECK(w.receive_now().empty());
  w.run_until(at(30_s));
  const auto again = w.receive_now();
  REQUIRE(again.size() == 1);
  CHECK(again[0].receive_count == 2);
  const auto expired = w.records("lease_expired");
  REQUIRE(expired.size() == 1);
  CHECK(expired[0]->time == at(30_s));
  CHECK(expired[0]->get_int("receive_count") == 1);
}

TEST_CASE("a visibility timeout given on a receive applies to that receive only", "[queue]") {
  world w(config_with(30_s));
  w.q.send("job-1");
  REQUIRE(w.receive_now(leased_for(5_s)).size() == 1);
  w.run_until(at(5_s));
  REQUIRE(w.receive_now().size() == 1);  // the queue's 30 s again
  w.run_until(at(35_s - 1_us));
  CHECK(w.receive_now().empty());
  w.run_until(at(35_s));
  CHECK(w.receive_now().size() == 1);
}

TEST_CASE("a heartbeat counts from the call and keeps the message hidden past the queue timeout", "[queue]") {
  world w(config_with(10_s));
  w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  w.run_until(at(8_s));
  CHECK(w.q.change_visibility(h, 10_s) == queue_status::ok);  // until 18 s
  w.run_until(at(16_s));
  CHECK(w.q.change_visibility(h, 10_s) == queue_status::ok);  // until 26 s
  w.run_until(at(26_s - 1_us));
  CHECK(w.receive_now().empty());
  CHECK(w.records("lease_expired").empty());
  w.run_until(at(26_s));
  CHECK(w.receive_now().size() == 1);
  const auto changes = w.records("change_visibility");
  REQUIRE(changes.size() == 2);
  CHECK(changes[1]->get_int("visible_until_us") == (26_s).us());
  CHECK(changes[1]->get_bool("applied") == true);
}

TEST_CASE("change_visibility to zero makes the message visible at once", "[queue]") {
  world w(config_with(30_s));
  w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  w.run_until(at(1_s));
  CHECK(w.q.change_visibility(h, sim::duration::zero()) == queue_status::ok);
  CHECK(w.q.stats().visible == 1);
  const auto again = w.receive_now();
  REQUIRE(again.size() == 1);
  CHECK(again[0].receive_count == 2);
}

TEST_CASE("extending after the lease expired answers OK and changes nothing", "[queue]") {
  world w(config_with(10_s));
  w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  w.run_until(at(15_s));
  CHECK(w.q.change_visibility(h, 60_s) == queue_status::ok);
  CHECK(w.q.stats().visible == 1);
  CHECK(w.receive_now().size() == 1);  // still visible: the extension did nothing
  const auto changes = w.records("change_visibility");
  REQUIRE(changes.size() == 1);
  CHECK(changes[0]->get_bool("applied") == false);
}

TEST_CASE("an old handle extends the copy in flight on SQS, and is stale under strict semantics", "[queue]") {
  const handle_semantics semantics = GENERATE(handle_semantics::sqs, handle_semantics::strict);
  world w(config_with(10_s, semantics));
  w.q.send("job-1");
  const receipt_handle first = w.receive_now().at(0).handle;
  w.run_until(at(10_s));
  const receipt_handle second = w.receive_now().at(0).handle;  // leased until 20 s
  CHECK(first != second);
  w.run_until(at(15_s));
  const queue_status status = w.q.change_visibility(first, 60_s);
  w.run_until(at(20_s));
  if (semantics == handle_semantics::sqs) {
    CHECK(status == queue_status::ok);  // the worker cannot learn it lost its lease
    CHECK(w.receive_now().empty());     // hidden until 75 s
    w.run_until(at(75_s));
    CHECK(w.receive_now().size() == 1);
  } else {
    CHECK(status == queue_status::stale_handle);
    CHECK(w.receive_now().size() == 1);  // the second lease ended at 20 s as it was
  }
}

TEST_CASE("a lease may not end more than 12 hours after its receive", "[queue]") {
  world w(config_with(30_s));
  w.q.send("job-1");
  const receipt_handle h = w.receive_now(leased_for(hours(11) + 30_s)).at(0).handle;
  CHECK(w.q.change_visibility(h, hours(12) + 1_us) == queue_status::invalid_timeout);
  CHECK(w.q.change_visibility(h, sim::duration::from_us(-1)) == queue_status::invalid_timeout);
  w.run_until(at(hours(11)));
  CHECK(w.q.change_visibility(h, hours(1) + 1_us) == queue_status::invalid_timeout);
  CHECK(w.q.change_visibility(h, hours(1)) == queue_status::ok);  // exactly 12 h in total
  w.run_until(at(hours(12) - 1_s));
  // Rejected, not trimmed to the time left.
  CHECK(w.q.change_visibility(h, 2_s) == queue_status::invalid_timeout);
  CHECK(w.q.change_visibility(h, 1_s) == queue_status::ok);
  w.run_until(at(hours(12) - 1_us));
  CHECK(w.receive_now().empty());
  w.run_until(at(hours(12)));
  const auto again = w.receive_now(leased_for(hours(2)));
  REQUIRE(again.size() == 1);
  // A new receive starts a new 12 h budget.
  w.run_until(at(hours(13)));
  CHECK(w.q.change_visibility(again[0].handle, hours(11) + 1_us) == queue_status::invalid_timeout);
  CHECK(w.q.change_visibility(again[0].handle, hours(11)) == queue_status::ok);
  const auto changes = w.records("change_visibility");
  REQUIRE(changes.size() == 8);
  CHECK(changes[7]->get_bool("applied") == true);
  CHECK(changes[7]->get_int("visible_until_us") == hours(24).us());
}

TEST_CASE("deleting twice with one handle answers OK both times", "[queue]") {
  queue_config config;
  config.retention = 60_s;
  world w(config);
  const message_id id = w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  CHECK(w.q.delete_message(h) == queue_status::ok);
  w.run_until(at(59_s));
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK_FALSE(w.q.contains(id));
  CHECK(w.q.stats().deleted == 1);
  // Known until its retention would have ended or 12 h after the delete,
  // whichever is later; then forgotten, so memory stays bounded.
  w.run_until(at(60_s));
  CHECK(w.q.delete_message(h) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(12 * 3600) - 1_s));
  CHECK(w.q.delete_message(h) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(12 * 3600)));
  CHECK(w.q.delete_message(h) == queue_status::invalid_handle);
  CHECK(w.q.delete_message(999'999) == queue_status::invalid_handle);
}

TEST_CASE("an expired handle still deletes a message nobody received again", "[queue]") {
  world w(config_with(10_s));
  const message_id id = w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  w.run_until(at(20_s));
  REQUIRE(w.q.stats().visible == 1);
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK_FALSE(w.q.contains(id));
  CHECK(w.receive_now().empty());
}

TEST_CASE("a stale handle does not delete: OK on SQS, stale_handle under strict", "[queue]") {
  const handle_semantics semantics = GENERATE(handle_semantics::sqs, handle_semantics::strict);
  world w(config_with(10_s, semantics));
  const message_id id = w.q.send("job-1");
  const receipt_handle first = w.receive_now().at(0).handle;
  w.run_until(at(10_s));
  const receipt_handle second = w.receive_now().at(0).handle;
  const queue_status status = w.q.delete_message(first);
  CHECK(status == (semantics == handle_semantics::sqs ? queue_status::ok : queue_status::stale_handle));
  CHECK(w.q.contains(id));
  // Nobody deleted it: it comes back when the second lease ends.
  w.run_until(at(20_s));
  const auto third = w.receive_now();
  REQUIRE(third.size() == 1);
  CHECK(third[0].receive_count == 3);
  CHECK(w.q.delete_message(second) == status);
  CHECK(w.q.delete_message(third[0].handle) == queue_status::ok);
  CHECK_FALSE(w.q.contains(id));
}

TEST_CASE("a long poll returns as soon as a message arrives, or empty when the wait ends", "[queue]") {
  world w;
  poll_result early, late, idle;
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), early), "early");
  w.k.spawn(poll(w.k, w.q, at(1_s), long_poll(20_s), late), "late");
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(5_s), idle), "idle");
  w.run_until(at(5_s));
  REQUIRE(idle.done);
  CHECK(idle.messages.empty());
  CHECK(idle.returned_at == at(5_s));
  w.run_until(at(7_s));
  w.q.send("job-1");
  w.run_until(at(7_s));
  REQUIRE(early.done);  // the longest-waiting poller gets it, at once
  CHECK(early.returned_at == at(7_s));
  REQUIRE(early.messages.size() == 1);
  CHECK_FALSE(late.done);  // still waiting
  w.run_until(at(9_s));
  w.q.send("job-2");
  w.run_until(at(9_s));
  REQUIRE(late.done);
  CHECK(late.returned_at == at(9_s));
  REQUIRE(late.messages.size() == 1);
  CHECK(late.messages[0].body == "job-2");
  const auto empties = w.records("receive_empty");
  REQUIRE(empties.size() == 1);
  CHECK(empties[0]->get_int("waited_us") == (5_s).us());
}

TEST_CASE("a poller woken for a message another consumer took waits on", "[queue]") {
  world w;
  poll_result waiting, quick;
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), waiting), "waiting");
  w.run_until(at(3_s));
  // The send notifies the waiting poller; a short poll at the same instant,
  // already scheduled, takes the message before the poller resumes.
  w.k.spawn(poll(w.k, w.q, at(3_s), {}, quick), "quick");
  w.q.send("job-1");
  w.run_until(at(3_s));
  REQUIRE(quick.done);
  CHECK(quick.messages.size() == 1);
  CHECK_FALSE(waiting.done);
  w.run_until(at(20_s));
  REQUIRE(waiting.done);
  CHECK(waiting.messages.empty());
}

TEST_CASE("a killed long poller does not swallow a message", "[queue]") {
  world w;
  poll_result victim, survivor;
  const sim::process_id v = w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), victim), "victim");
  w.k.spawn(poll(w.k, w.q, at(1_s), long_poll(20_s), survivor), "survivor");
  w.run_until(at(2_s));
  CHECK(w.k.kill(v));
  w.q.send("job-1");
  w.run_until(at(2_s));
  REQUIRE(survivor.done);
  CHECK(survivor.messages.size() == 1);
}

TEST_CASE("a receive takes up to max_messages, oldest first, and may return fewer", "[queue]") {
  world w;
  std::vector<message_id> ids;
  for (int i = 0; i < 12; ++i) {
    w.run_until(at(sim::duration::from_ms(i)));
    ids.push_back(w.q.send("job-" + std::to_string(i)));
  }
  const auto first = w.receive_now(at_most(10));
  REQUIRE(first.size() == 10);
  for (std::size_t i = 0; i < first.size(); ++i) CHECK(first[i].id == ids[i]);
  const auto second = w.receive_now(at_most(10));
  REQUIRE(second.size() == 2);
  CHECK(second[0].id == ids[10]);
  CHECK(second[1].id == ids[11]);
  CHECK(w.receive_now(at_most(10)).empty());
  CHECK(w.receive_now().empty());
}

TEST_CASE("messages visible at the same instant go lower id first", "[queue]") {
  world w;
  const message_id a = w.q.send("a", 5_s);
  const message_id b = w.q.send("b");
  w.run_until(at(5_s));
  const message_id c = w.q.send("c");
  // b has been visible since 0 s; a and c since 5 s, a has the lower id.
  const auto got = w.receive_now(at_most(3));
  REQUIRE(got.size() == 3);
  CHECK(got[0].id == b);
  CHECK(got[1].id == a);
  CHECK(got[2].id == c);
}

TEST_CASE("a delay hides a message from receives until it passes", "[queue]") {
  world w;
  const message_id id = w.q.send("job-1", 60_s);
  CHECK(w.q.stats().delayed == 1);
  CHECK(w.q.stats().visible == 0);
  poll_result poller;
  w.k.spawn(poll(w.k, w.q, at(50_s), long_poll(20_s), poller), "poller");
  w.run_until(at(60_s - 1_us));
  CHECK_FALSE(poller.done);
  w.run_until(at(60_s));
  REQUIRE(poller.done);
  CHECK(poller.returned_at == at(60_s));
  REQUIRE(poller.messages.size() == 1);
  CHECK(poller.messages[0].id == id);
  CHECK(poller.messages[0].receive_count == 1);
  CHECK(w.records("delay_ended").size() == 1);
}

TEST_CASE("redrive moves the message at the receive that would be delivery N+1", "[queue]") {
  queue_config config = config_with(10_s);
  config.max_receive_count = 3;
  world w(config);
  queue& dlq = w.add_dead_letter("jobs-dlq", days(14));

  const message_id poison = w.q.send("job-poison");
  for (int i = 0; i < 3; ++i) {
    w.run_until(at(10_s * i));
    const auto got = w.receive_now();
    REQUIRE(got.size() == 1);
    CHECK(got[0].receive_count == static_cast<std::uint32_t>(i + 1));
  }
  w.run_until(at(35_s));
  const message_id next = w.q.send("job-next");
  w.run_until(at(40_s));
  // The poison message (visible since 30 s) is moved; the receive goes on and
  // returns the next one.
  const auto got = w.receive_now();
  REQUIRE(got.size() == 1);
  CHECK(got[0].id == next);
  CHECK_FALSE(w.q.contains(poison));
  CHECK(dlq.contains(poison));

  const auto dead = w.receive_now(dlq);
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].id == poison);
  CHECK(dead[0].body == "job-poison");
  CHECK(dead[0].receive_count == 4);  // the count carries on
  CHECK(dead[0].sent_at == at(0_s));

  const auto redrives = w.records("redrive");
  REQUIRE(redrives.size() == 1);
  CHECK(redrives[0]->get_int("receive_count") == 3);
  CHECK(redrives[0]->get_string("to") == "jobs-dlq");
  CHECK(w.records("redrive_in").at(0)->actor == "queue/jobs-dlq");
  CHECK(w.q.stats().redriven == 1);
}

TEST_CASE("a dead letter expires counted from its original enqueue", "[queue]") {
  // Main queue keeps messages 4 days; it is redriven after 2 days.
  const std::int64_t dlq_retention_days = GENERATE(1, 3);
  queue_config config = config_with(30_s);
  config.max_receive_count = 1;
  world w(config);
  queue& dlq = w.add_dead_letter("dlq", days(dlq_retention_days));

  const message_id id = w.q.send("job-1");
  REQUIRE(w.receive_now().size() == 1);
  w.run_until(at(days(2)));
  CHECK(w.receive_now().empty());  // delivery 2 would pass maxReceiveCount 1: redriven
  CHECK_FALSE(w.q.contains(id));

  if (dlq_retention_days == 1) {
    // One day of DLQ retention had passed a day before the redrive: gone at once.
    CHECK_FALSE(dlq.contains(id));
    CHECK(dlq.stats().expired == 1);
    const auto expired = w.records("retention_expired");
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->time == at(days(2)));
    CHECK(expired[0]->actor == "queue/dlq");
  } else {
    // Three days from the original send, not three days from the redrive.
    CHECK(dlq.contains(id));
    w.run_until(at(days(2) + hours(1)));
    CHECK(dlq.stats().oldest_age == hours(1));  // age in the DLQ, as CloudWatch shows it
    w.run_until(at(days(3) - 1_us));
    CHECK(dlq.contains(id));
    w.run_until(at(days(3)));
    CHECK_FALSE(dlq.contains(id));
    const auto expired = w.records("retention_expired");
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->time == at(days(3)));
    CHECK(expired[0]->get_int("age_us") == days(3).us());
    CHECK(expired[0]->get_string("body") == "job-1");
  }
}

TEST_CASE("dead letters expire in order of their original enqueue, whatever order they arrived in", "[queue]") {
  queue_config config = config_with(30_s);
  config.max_receive_count = 1;
  world w(config);
  queue& dlq = w.add_dead_letter("dlq", days(3));

  const message_id a = w.q.send("job-a");  // sent first, leased long: redriven last
  REQUIRE(w.receive_now(leased_for(hours(12))).size() == 1);
  w.run_until(at(hours(1)));
  const message_id b = w.q.send("job-b");
  REQUIRE(w.receive_now().size() == 1);
  w.run_until(at(hours(2)));
  CHECK(w.receive_now().empty());  // b's second delivery: redriven
  w.run_until(at(hours(13)));
  CHECK(w.receive_now().empty());  // a's second delivery: redriven
  REQUIRE(dlq.contains(a));
  REQUIRE(dlq.contains(b));

  w.run_until(at(days(4)));
  const auto expired = w.records("retention_expired");
  REQUIRE(expired.size() == 2);
  CHECK(expired[0]->get_string("body") == "job-a");
  CHECK(expired[0]->time == at(days(3)));
  CHECK(expired[1]->get_string("body") == "job-b");
  CHECK(expired[1]->time == at(days(3) + hours(1)));
}

TEST_CASE("retention deletes a message even while it is in flight", "[queue]") {
  queue_config config;
  config.retention = 60_s;
  world w(config);
  const message_id id = w.q.send("job-1");
  const receipt_handle h = w.receive_now(leased_for(120_s)).at(0).handle;
  w.run_until(at(60_s));
  CHECK_FALSE(w.q.contains(id));
  const auto expired = w.records("retention_expired");
  REQUIRE(expired.size() == 1);
  CHECK(expired[0]->get_string("state") == "in_flight");
  // As AWS answers (test_message_retention_with_inflight): the delete is
  // fine, a change of visibility finds no message.
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK(w.q.change_visibility(h, 10_s) == queue_status::message_not_available);
  CHECK(w.q.stats().expired == 1);
}

TEST_CASE("a duplicate delivery fault gives two consumers the same message", "[queue]") {
  world w;
  scripted_faults faults;
  faults.duplicates_left = 1;
  w.q.set_faults(&faults);
  const message_id id = w.q.send("job-1");
  poll_result a, b;
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), a), "a");
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), b), "b");
  w.run_until(at(0_s));
  REQUIRE(a.done);
  REQUIRE(b.done);
  REQUIRE(a.messages.size() == 1);
  REQUIRE(b.messages.size() == 1);
  CHECK(a.messages[0].id == id);
  CHECK(b.messages[0].id == id);
  CHECK(a.messages[0].handle != b.messages[0].handle);
  CHECK(a.messages[0].receive_count == 1);
  CHECK(b.messages[0].receive_count == 2);
  CHECK(w.records("duplicate_delivery").size() == 1);
  CHECK(w.q.stats().in_flight == 1);
}

TEST_CASE("a lost delete answers OK and the message reappears", "[queue]") {
  world w(config_with(10_s));
  scripted_faults faults;
  faults.lost_deletes_left = 1;
  w.q.set_faults(&faults);
  const message_id id = w.q.send("job-1");
  const receipt_handle h = w.receive_now().at(0).handle;
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK(w.q.contains(id));
  CHECK(w.records("delete_lost").size() == 1);
  w.run_until(at(10_s));
  const auto again = w.receive_now();
  REQUIRE(again.size() == 1);
  CHECK(again[0].id == id);
  CHECK(again[0].receive_count == 2);
  CHECK(w.q.delete_message(again[0].handle) == queue_status::ok);
  CHECK_FALSE(w.q.contains(id));
}

TEST_CASE("stats count states, events and receive counts at the end", "[queue]") {
  queue_config config = config_with(10_s);
  config.max_receive_count = 2;
  config.retention = 120_s;
  world w(config);
  queue& dlq = w.add_dead_letter("dlq");

  w.q.send("deleted");   // deleted after 1 receive
  w.q.send("redriven");  // redriven after 2 receives
  const auto first = w.receive_now(at_most(2));
  REQUIRE(first.size() == 2);
  CHECK(w.q.delete_message(first[0].handle) == queue_status::ok);
  w.run_until(at(10_s));
  REQUIRE(w.receive_now().size() == 1);  // "redriven", 2nd delivery
  w.run_until(at(20_s));
  w.q.send("expires", 900_s);      // still delayed when retention ends at 140 s
  CHECK(w.receive_now().empty());  // redrives "redriven"
  w.run_until(at(100_s));
  w.q.send("in-flight");
  w.q.send("visible");
  w.q.send("delayed", 60_s);
  REQUIRE(w.receive_now().size() == 1);  // "in-flight"
  w.run_until(at(140_s));

  const queue_stats s = w.q.stats();
  CHECK(s.visible == 2);  // "visible", and "in-flight" whose 10 s lease ended at 110 s
  CHECK(s.delayed == 1);  // "delayed", until 160 s
  CHECK(s.in_flight == 0);
  CHECK(s.sent == 6);
  CHECK(s.received == 4);
  CHECK(s.deleted == 1);
  CHECK(s.redriven == 1);
  CHECK(s.expired == 1);
  CHECK(s.oldest_age == 40_s);
  CHECK(s.receive_count_histogram == std::map<std::uint32_t, std::uint64_t>{{0, 1}, {1, 1}, {2, 1}});
  CHECK(dlq.stats().visible == 1);
  CHECK(dlq.stats().oldest_age == 120_s);
  CHECK(dlq.stats().sent == 0);
}

namespace {
// A scripted run with leases, heartbeats, a lost delete, a duplicate, a
// redrive and a long poll; returns the canonical trace.
std::string scripted_run(std::uint64_t& digest) {
  queue_config config = config_with(10_s);
  config.max_receive_count = 2;
  world w(config);
  w.add_dead_letter("dlq");
  scripted_faults faults;
  faults.duplicates_left = 1;
  faults.lost_deletes_left = 1;
  w.q.set_faults(&faults);

  poll_result p1, p2, p3;
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s, 2), p1), "p1");
  w.k.spawn(poll(w.k, w.q, at(0_s), long_poll(20_s), p2), "p2");
  w.run_until(at(1_s));
  w.q.send("job-a");
  w.q.send("job-b", 3_s);
  w.run_until(at(5_s));
  for (const auto* r : {&p1, &p2})
    for (const received_message& m : r->messages) w.q.change_visibility(m.handle, 20_s);
  w.run_until(at(30_s));
  for (const received_message& m : w.receive_now(at_most(10))) w.q.delete_message(m.handle);
  w.k.spawn(poll(w.k, w.q, at(30_s), long_poll(20_s, 10), p3), "p3");
  w.run_until(at(60_s));
  for (const received_message& m : p3.messages) w.q.delete_message(m.handle);
  w.run_until(at(days(5)));
  digest = w.events.digest();
  return w.events.canonical();
}
}  // namespace

TEST_CASE("the same scripted run gives the same trace digest", "[queue]") {
  std::uint64_t first = 0, second = 0;
  const std::string a = scripted_run(first);
  const std::string b = scripted_run(second);
  CHECK(first == second);
  CHECK(a == b);
  CHECK(a.find("duplicate_delivery") != std::string::npos);
  CHECK(a.find("delete_lost") != std::string::npos);
  CHECK(a.find("retention_expired") != std::string::npos);
}

TEST_CASE("a move task sends the dead letters back as new messages, oldest first, and their retention starts again",
          "[queue][redrive]") {
  queue_config config = config_with(30_s);
  config.max_receive_count = 1;
  world w(config);
  queue& dlq = w.add_dead_letter("dlq", days(4));

  w.q.send("job-1");
  w.run_until(at(hours(1)));
  w.q.send("job-2");
  w.run_until(at(hours(2)));
  // job-2 reaches the dead-letter queue first: moved first.
  REQUIRE(w.receive_now().size() == 1);  // job-1, delivery 1
  REQUIRE(w.receive_now().size() == 1);  // job-2, delivery 1
  w.run_until(at(hours(3)));
  CHECK(w.receive_now().empty());  // both redriven at their second delivery
  REQUIRE(dlq.size() == 2);

  // A third dead letter, leased by someone reading the DLQ: in flight, it stays.
  w.run_until(at(days(3)));
  const message_id third = dlq.send("job-3");
  REQUIRE(w.receive_now(dlq, at_most(10)).size() == 3);           // every one leased for 30 s
  w.run_until(at(days(3) + 31_s));                                // job-1 and job-2 visible again...
  REQUIRE(w.receive_now(dlq, leased_for(hours(1))).size() == 1);  // ...and the oldest one leased again

  const std::size_t moved = dlq.move_visible_to(w.q, [](std::string_view body) { return body != "job-3"; });
  CHECK(moved == 1);  // job-3 is refused by the filter; the leased one is in flight
  const auto outs = w.records("moved_out");
  REQUIRE(outs.size() == 1);
  CHECK(outs[0]->get_string("to") == "jobs");
  CHECK(outs[0]->get_int("receive_count") == 2);
  const auto new_id = static_cast<message_id>(outs[0]->get_int("new_id").value());
  CHECK(new_id > third);
  CHECK(w.q.contains(new_id));
  CHECK_FALSE(dlq.contains(static_cast<message_id>(outs[0]->get_int("id").value())));
  CHECK(dlq.contains(third));
  CHECK(dlq.stats().moved_out == 1);

  // A new message on the source queue: a first delivery, and four days of
  // retention from the move, where the original would have expired at day 4.
  const std::vector<received_message> again = w.receive_now(w.q);
  REQUIRE(again.size() == 1);
  CHECK(again[0].id == new_id);
  CHECK(again[0].receive_count == 1);
  CHECK(again[0].sent_at == at(days(3) + 31_s));
  CHECK((again[0].body == "job-1" || again[0].body == "job-2"));
  CHECK(w.q.change_visibility(again[0].handle, hours(12)) == queue_status::ok);
  w.run_until(at(days(4) + hours(3)));
  CHECK(w.q.contains(new_id));
}

// ---- fair queues -------------------------------------------------------------

TEST_CASE("a fair queue serves quiet tenants first while one group is a noisy neighbour", "[queue]") {
  world w(config_with(hours(1)));
  for (int i = 0; i < 50; ++i) w.q.send("a" + std::to_string(i), 0_s, "acme");
  w.run_until(at(1_s));
  w.q.send("b0", 0_s, "beta");
  w.q.send("b1", 0_s, "beta");
  w.q.send("solo", 0_s);  // no group: a tenant of its own
  w.run_until(at(2_s));
  // Oldest first while nobody is noisy: 30 of acme's.
  for (int i = 0; i < 3; ++i) {
    const std::vector<received_message> got = w.receive_now(at_most(10));
    REQUIRE(got.size() == 10);
    for (const received_message& m : got) CHECK(m.body.front() == 'a');
  }
  // acme has 30 in flight, all of them: noisy. beta and the lone message go first,
  // then acme again, since nothing quiet is left.
  const std::vector<received_message> got = w.receive_now(at_most(5));
  REQUIRE(got.size() == 5);
  CHECK(got[0].body == "b0");
  CHECK(got[1].body == "b1");
  CHECK(got[2].body == "solo");
  CHECK(got[3].body == "a30");
  CHECK(got[4].body == "a31");
}

TEST_CASE("a group below 30 in flight is never noisy; a delete makes a noisy group quiet", "[queue]") {
  world w(config_with(hours(1)));
  for (int i = 0; i < 40; ++i) w.q.send("a" + std::to_string(i), 0_s, "acme");
  w.run_until(at(1_s));
  w.q.send("b0", 0_s, "beta");
  w.run_until(at(2_s));
  std::vector<received_message> leased;
  for (int i = 0; i < 3; ++i)
    for (received_message& m : w.receive_now(at_most(10))) leased.push_back(std::move(m));
  REQUIRE(leased.size() == 30);
  REQUIRE(w.q.delete_message(leased[0].handle) == queue_status::ok);  // 29 in flight: quiet again
  const std::vector<received_message> got = w.receive_now(at_most(1));
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == "a30");  // plain oldest-first
}

TEST_CASE("a redriven message keeps its group; a move task carries it to the new message", "[queue]") {
  queue_config c = config_with(hours(1));
  c.max_receive_count = 1;
  world w(c);
  queue& dlq = w.add_dead_letter("jobs-dlq");
  w.q.send("x", 0_s, "acme");
  w.run_until(at(1_s));
  const std::vector<received_message> first = w.receive_now();
  REQUIRE(first.size() == 1);
  REQUIRE(w.q.change_visibility(first[0].handle, 0_s) == queue_status::ok);
  w.run_until(at(2_s));
  CHECK(w.receive_now().empty());  // the second delivery redrives it
  REQUIRE(dlq.stats().visible == 1);
  CHECK(dlq.move_visible_to(w.q) == 1);
  w.run_until(at(3_s));
  // 31 more of acme's, all leased: acme is noisy in the source queue, and
  // the moved message (still acme's) waits behind a quiet tenant's.
  for (int i = 0; i < 31; ++i) w.q.send("a" + std::to_string(i), 0_s, "acme");
  w.q.send("b0", 0_s, "beta");
  w.run_until(at(4_s));
  for (int i = 0; i < 3; ++i) REQUIRE(w.receive_now(at_most(10)).size() == 10);
  const std::vector<received_message> got = w.receive_now(at_most(1));
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == "b0");
}
