// The SQS standard queue against what AWS answered, as recorded by
// LocalStack's AWS-validated tests (localstack/localstack@8b9a79f05846,
// tests/aws/services/sqs/test_sqs.py, marked aws.validated, and the real
// answers in test_sqs.snapshot.json). One test case per row of
// tests/conformance/sqs_conformance.md, named after the LocalStack test it restates;
// that table holds the verdict of each.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "broker/queue_batch.hpp"
#include "queue_world.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

receive_options waiting(sim::duration wait, std::uint32_t max_messages = 1) { return long_poll(wait, max_messages); }

}  // namespace

// ---- 1. requeue and visibility -------------------------------------------

TEST_CASE("1a test_inflight_message_requeue: an expired lease is served before a later send", "[sqs-conformance]") {
  world w;
  w.q.send("test1");
  REQUIRE(w.receive_now(leased_for(3_s)).size() == 1);
  w.run_until(at(1500_ms));
  w.q.send("test2");
  w.run_until(at(4500_ms));
  const auto got = w.receive_now();
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == "test1");
  CHECK(got[0].receive_count == 2);
}

TEST_CASE("1b test_change_message_visibility_not_permanent", "[sqs-conformance]") {
  world w;
  const message_id id = w.q.send("m");
  const receipt_handle h = w.receive_now().at(0).handle;
  CHECK(w.q.change_visibility(h, 0_s) == queue_status::ok);
  const auto again = w.receive_now();
  REQUIRE(again.size() == 1);
  CHECK(again[0].id == id);
  CHECK(w.receive_now().empty());  // the queue's 30 s applies again
}

TEST_CASE("1c test_receive_terminate_visibility_timeout", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const received_message first = w.receive_now(leased_for(0_s)).at(0);
  const auto second = w.receive_now();
  REQUIRE(second.size() == 1);
  CHECK(second[0].id == first.id);
  CHECK(second[0].handle != first.handle);
  CHECK(w.receive_now().empty());
}

TEST_CASE("1d test_terminate_visibility_timeout_after_receive: an old handle still controls the message",
          "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h1 = w.receive_now(leased_for(0_s)).at(0).handle;
  REQUIRE(w.receive_now(leased_for(3_s)).size() == 1);
  CHECK(w.q.change_visibility(h1, 0_s) == queue_status::ok);
  CHECK(w.receive_now().size() == 1);
}

// ---- 2. delete -------------------------------------------------------------

TEST_CASE("2a test_delete_message_with_deleted_receipt_handle", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h = w.receive_now().at(0).handle;
  for (int i = 0; i < 3; ++i) CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK(w.q.stats().deleted == 1);
}

TEST_CASE("2b test_delete_after_visibility_timeout", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h = w.receive_now(leased_for(1_s)).at(0).handle;
  w.run_until(at(2_s));
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK(w.receive_now().empty());
  CHECK(w.q.stats().visible == 0);
}

TEST_CASE("2d test_delete_message_with_illegal_receipt_handle", "[sqs-conformance]") {
  world w;
  const queue_status status = w.q.delete_message(999'999);
  CHECK(status == queue_status::invalid_handle);
  CHECK(aws_error_code(status) == "ReceiptHandleIsInvalid");
}

TEST_CASE("2e test_message_retention_with_inflight: a delete after the retention ended is OK", "[sqs-conformance]") {
  queue_config config;
  config.retention = 60_s;
  world w(config);
  w.q.send("m");
  const receipt_handle h = w.receive_now(leased_for(120_s)).at(0).handle;
  w.run_until(at(65_s));
  CHECK(w.q.size() == 0);
  CHECK(w.receive_now().empty());
  CHECK(w.q.delete_message(h) == queue_status::ok);
}

// ---- 3. change visibility --------------------------------------------------

TEST_CASE("3a test_change_visibility_on_deleted_message_raises_invalid_parameter_value", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h = w.receive_now().at(0).handle;
  REQUIRE(w.q.delete_message(h) == queue_status::ok);
  const queue_status status = w.q.change_visibility(h, 10_s);
  CHECK(status == queue_status::message_not_available);
  CHECK(aws_error_code(status) == "InvalidParameterValue");
}

TEST_CASE("3b test_change_message_visibility_after_visibility_timeout_expiration", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h = w.receive_now(leased_for(1_s)).at(0).handle;
  w.run_until(at(2_s));
  CHECK(w.q.change_visibility(h, 10_s) == queue_status::ok);
}

TEST_CASE("3c test_extend_message_visibility_timeout_set_in_queue", "[sqs-conformance]") {
  world w(config_with(2_s));
  w.q.send("m");
  const receipt_handle h = w.receive_now().at(0).handle;
  for (int s = 1; s <= 4; ++s) {
    w.run_until(at(sim::duration::from_s(s)));
    CHECK(w.q.change_visibility(h, 2_s) == queue_status::ok);
    CHECK(w.receive_now().empty());
  }
  w.run_until(at(6_s));  // the last extension ends 2 s after 4 s
  CHECK(w.receive_now().size() == 1);
}

TEST_CASE("3d test_invalid_receipt_handle_should_return_error_message", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const queue_status status = w.q.change_visibility(999'999, 10_s);
  CHECK(status == queue_status::invalid_handle);
  CHECK(aws_error_code(status) == "ReceiptHandleIsInvalid");
}

// ---- 4. receive parameters -------------------------------------------------

TEST_CASE("4a test_send_receive_wait_time_seconds: a wait outside 0..20 s", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  for (const sim::duration wait : {21_s, sim::duration::from_s(-1)}) {
    const poll_result r = w.poll_now(w.q, waiting(wait));
    CHECK(r.status == queue_status::invalid_parameter);
    CHECK(aws_error_code(r.status) == "InvalidParameterValue");
    CHECK(r.messages.empty());
  }
  CHECK(w.q.stats().visible == 1);  // nothing was taken
}

TEST_CASE("4b test_send_receive_max_number_of_messages: more than 10", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  for (const std::uint32_t n : {11u, 0u}) {
    const poll_result r = w.poll_now(w.q, at_most(n));
    CHECK(r.status == queue_status::invalid_parameter);
    CHECK(r.messages.empty());
  }
  CHECK(w.poll_now(w.q, at_most(10)).messages.size() == 1);
}

// ---- 5. batches ------------------------------------------------------------

TEST_CASE("5a, 5b test_delete_message_batch_with_too_large_batch, ..._change_message_visibility_...",
          "[sqs-conformance]") {
  world w;
  std::vector<delete_entry> deletes;
  std::vector<visibility_entry> changes;
  for (int i = 0; i < 20; ++i) {
    deletes.push_back({"e" + std::to_string(i), 1});
    changes.push_back({"e" + std::to_string(i), 1, 5_s});
  }
  const batch_result d = delete_message_batch(w.q, deletes);
  CHECK(d.status == queue_status::too_many_entries);
  CHECK(aws_error_code(d.status) == "AWS.SimpleQueueService.TooManyEntriesInBatchRequest");
  CHECK(d.entries.empty());
  CHECK(change_visibility_batch(w.q, changes).status == queue_status::too_many_entries);
}

TEST_CASE("5c test_delete_message_batch_invalid_msg_id: the whole request fails", "[sqs-conformance]") {
  world w;
  w.q.send("m");
  const receipt_handle h = w.receive_now().at(0).handle;
  for (const std::string& bad : {std::string(), std::string(81, 'a'), std::string("invalid:id")}) {
    INFO(bad);
    const std::vector<delete_entry> entries = {{"good", h}, {bad, h}};
    const batch_result r = delete_message_batch(w.q, entries);
    CHECK(r.status == queue_status::invalid_batch_entry_id);
    CHECK(aws_error_code(r.status) == "AWS.SimpleQueueService.InvalidBatchEntryId");
    CHECK(r.entries.empty());
  }
  CHECK(w.q.stats().deleted == 0);  // not even the good entry ran
  const std::vector<delete_entry> longest = {{std::string(80, 'a'), h}};
  CHECK(delete_message_batch(w.q, longest).status == queue_status::ok);
}

TEST_CASE("5d, 5e an empty batch, and one id twice (API reference)", "[sqs-conformance]") {
  world w;
  CHECK(delete_message_batch(w.q, std::vector<delete_entry>{}).status == queue_status::empty_batch);
  const std::vector<visibility_entry> twice_one_id = {{"a", 1, 1_s}, {"a", 2, 1_s}};
  CHECK(change_visibility_batch(w.q, twice_one_id).status == queue_status::batch_entry_ids_not_distinct);
}

TEST_CASE("5f every entry of a batch gets its own answer", "[sqs-conformance]") {
  world w;
  w.q.send("m1");
  w.q.send("m2");
  const auto got = w.receive_now(at_most(2));
  REQUIRE(got.size() == 2);
  const std::vector<visibility_entry> changes = {{"first", got[0].handle, 0_s}, {"bogus", 999'999, 0_s}};
  const batch_result c = change_visibility_batch(w.q, changes);
  CHECK(c.status == queue_status::ok);
  REQUIRE(c.entries.size() == 2);
  CHECK(c.entries[0].id == "first");
  CHECK(c.entries[0].status == queue_status::ok);
  CHECK(c.entries[1].id == "bogus");
  CHECK(c.entries[1].status == queue_status::invalid_handle);
  CHECK(w.q.stats().visible == 1);

  const std::vector<delete_entry> deletes = {{"a", got[1].handle}, {"b", 999'999}};
  const batch_result d = delete_message_batch(w.q, deletes);
  REQUIRE(d.entries.size() == 2);
  CHECK(d.entries[0].status == queue_status::ok);
  CHECK(d.entries[1].status == queue_status::invalid_handle);
  CHECK(w.q.stats().deleted == 1);
}

// ---- 6. purge --------------------------------------------------------------

TEST_CASE("6a test_purge_queue, ..._deletes_inflight_messages, ..._deletes_delayed_messages", "[sqs-conformance]") {
  world w;
  w.q.send("in-flight");
  const receipt_handle h = w.receive_now(leased_for(3_s)).at(0).handle;
  w.q.send("visible");
  w.q.send("delayed", 2_s);
  CHECK(w.q.purge() == queue_status::ok);
  CHECK(w.q.size() == 0);
  CHECK(w.q.stats().purged == 3);
  w.run_until(at(5_s));  // past the lease and the delay
  CHECK(w.receive_now().empty());
  CHECK(w.q.delete_message(h) == queue_status::ok);  // a worker's late ack is harmless
  for (int i = 0; i < 3; ++i) w.q.send("after-" + std::to_string(i));
  CHECK(w.receive_now(at_most(10)).size() == 3);
}

TEST_CASE("6b test_successive_purge_calls_fail", "[sqs-conformance]") {
  world w;
  CHECK(w.q.purge() == queue_status::ok);
  w.run_until(at(59_s));
  const queue_status again = w.q.purge();
  CHECK(again == queue_status::purge_in_progress);
  CHECK(aws_error_code(again) == "AWS.SimpleQueueService.PurgeQueueInProgress");
  w.run_until(at(60_s));
  CHECK(w.q.purge() == queue_status::ok);
}

// ---- 7. waits and delays ---------------------------------------------------

TEST_CASE("7a test_wait_time_seconds_queue_attribute_waits_correctly", "[sqs-conformance]") {
  queue_config config;
  config.receive_wait = 10_s;
  world w(config);
  poll_result r;
  w.start_poll(w.q, receive_options{}, r);
  w.run_until(at(1_s));
  CHECK_FALSE(r.done);
  w.q.send("m");
  w.run_until(at(1_s));
  REQUIRE(r.done);
  CHECK(r.messages.size() == 1);
  CHECK(r.returned_at == at(1_s));
}

TEST_CASE("7b test_send_receive_wait_time_seconds: a wait of 0 is a short poll", "[sqs-conformance]") {
  queue_config config;
  config.receive_wait = 10_s;
  world w(config);
  const poll_result empty = w.poll_now(w.q, waiting(0_s));  // given: overrides the queue's 10 s
  CHECK(empty.messages.empty());
  CHECK(empty.returned_at == at(0_s));
  w.q.send("m");
  CHECK(w.poll_now(w.q, waiting(0_s)).messages.size() == 1);
}

TEST_CASE("7c test_receive_message_wait_time_seconds_and_max_number_of_messages_does_not_block", "[sqs-conformance]") {
  world w;
  w.q.send("m1");
  w.q.send("m2");
  const poll_result r = w.poll_now(w.q, waiting(5_s, 3));
  CHECK(r.messages.size() == 2);
  CHECK(r.returned_at == at(0_s));
}

TEST_CASE("7d test_send_delay_and_wait_time: a long poll wakes when a delay ends", "[sqs-conformance]") {
  world w;
  w.q.send("m", 1_s);
  CHECK(w.receive_now().empty());
  poll_result r;
  w.start_poll(w.q, waiting(2_s), r);
  w.run_until(at(1_s));
  REQUIRE(r.done);
  CHECK(r.messages.size() == 1);
  CHECK(r.returned_at == at(1_s));
}

TEST_CASE("7e the queue's DelaySeconds, and a message's own delay over it (standard queue)", "[sqs-conformance]") {
  queue_config config;
  config.delay = 2_s;
  world w(config);
  w.q.send("queue-delay");
  w.q.send("own-delay", 0_s);
  const auto now = w.receive_now(at_most(10));
  REQUIRE(now.size() == 1);
  CHECK(now[0].body == "own-delay");
  w.run_until(at(2_s));
  CHECK(w.receive_now().at(0).body == "queue-delay");
}

TEST_CASE("7g test_set_queue_attributes_default_values", "[sqs-conformance]") {
  const queue_config c;
  CHECK(c.visibility_timeout == 30_s);
  CHECK(c.retention == sim::duration::from_s(345'600));
  CHECK(c.delay == 0_s);
  CHECK(c.receive_wait == 0_s);
  CHECK(c.max_receive_count == 0);  // no redrive policy
}

// ---- 9. dead-letter queue --------------------------------------------------

TEST_CASE("9a, 9b test_dead_letter_queue_message_attributes", "[sqs-conformance]") {
  queue_config config;
  config.max_receive_count = 1;
  world w(config);
  queue& dlq = w.add_dead_letter("jobs-dlq");
  const message_id a = w.q.send("a");
  const message_id b = w.q.send("b");
  std::vector<received_message> deliveries;
  for (int i = 0; i < 4; ++i) {
    for (const received_message& m : w.receive_now(leased_for(0_s))) deliveries.push_back(m);
    w.run_until(w.k.now());  // the zero leases end
  }
  REQUIRE(deliveries.size() == 2);
  for (const received_message& m : deliveries) CHECK(m.receive_count == 1);
  const auto dead = w.receive_now(dlq, at_most(10));
  REQUIRE(dead.size() == 2);
  CHECK(dead[0].id == a);
  CHECK(dead[1].id == b);
  CHECK(dead[0].body == "a");
  CHECK(dead[0].receive_count == 2);  // the count carries over
}

TEST_CASE("9c test_dead_letter_queue_max_receive_count", "[sqs-conformance]") {
  queue_config config;
  config.max_receive_count = 1;
  world w(config);
  queue& dlq = w.add_dead_letter("jobs-dlq");
  const message_id id = w.q.send("m");
  int received = 0;
  for (int i = 0; i < 2; ++i) {
    received += static_cast<int>(w.receive_now(leased_for(0_s)).size());
    w.run_until(w.k.now());
  }
  CHECK(received == 1);
  CHECK(w.receive_now(dlq).at(0).id == id);
}

// ---- 10. retention ---------------------------------------------------------

TEST_CASE("10 test_message_retention: gone after the retention period", "[sqs-conformance]") {
  queue_config config;
  config.retention = 60_s;
  world w(config);
  w.q.send("m");
  w.run_until(at(65_s));
  CHECK(w.receive_now().empty());
  CHECK(w.q.stats().expired == 1);
}
