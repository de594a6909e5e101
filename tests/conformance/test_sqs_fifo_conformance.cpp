// The SQS FIFO queue against what AWS answered, as recorded by LocalStack's
// AWS-validated tests (localstack/localstack@8b9a79f05846,
// tests/aws/services/sqs/test_sqs.py and its snapshots). One test case per
// row of tests/conformance/sqs_fifo_conformance.md, named after the LocalStack test it
// restates; that table holds the verdict of each.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

queue_config fifo_config(sim::duration visibility_timeout = 30_s, bool content_based = true) {
  queue_config c;
  c.name = "jobs-fifo";
  c.fifo = true;
  c.content_based_deduplication = content_based;
  c.visibility_timeout = visibility_timeout;
  return c;
}

// A send by content (the queue deduplicates on the body).
send_result send_in(queue& q, std::string body, std::string group) {
  send_request r;
  r.body = std::move(body);
  r.group = std::move(group);
  return q.send_message(std::move(r));
}

send_result send_with_id(queue& q, std::string body, std::string group, std::string deduplication_id) {
  send_request r;
  r.body = std::move(body);
  r.group = std::move(group);
  r.deduplication_id = std::move(deduplication_id);
  return q.send_message(std::move(r));
}

std::vector<std::string> bodies(const std::vector<received_message>& got) {
  std::vector<std::string> out;
  for (const received_message& m : got) out.push_back(m.body);
  return out;
}

receive_options up_to(std::uint32_t max_messages, std::optional<sim::duration> visibility_timeout = std::nullopt) {
  receive_options o = at_most(max_messages);
  o.visibility_timeout = visibility_timeout;
  return o;
}

using names = std::vector<std::string>;

}  // namespace

// ---- F1. message groups ------------------------------------------------------

TEST_CASE("F1a test_fifo_message_group_visibility: a message in flight blocks its group until deleted",
          "[sqs-conformance][fifo]") {
  world w(fifo_config(60_s));
  send_in(w.q, "message-1", "1");
  const received_message first = w.receive_now().at(0);
  send_in(w.q, "message-2", "1");
  CHECK(w.receive_now().empty());
  w.run_until(at(2_s));
  CHECK(w.receive_now().empty());
  REQUIRE(w.q.delete_message(first.handle) == queue_status::ok);
  CHECK(bodies(w.receive_now()) == names{"message-2"});
}

TEST_CASE("F1b test_fifo_receive_message_group_id_ordering: one receive takes a whole group first",
          "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  send_in(w.q, "g1-m2", "group-1");
  send_in(w.q, "g1-m3", "group-1");
  CHECK(bodies(w.receive_now(up_to(10))) == names{"g1-m1", "g1-m2", "g1-m3", "g2-m1"});
}

TEST_CASE("F1c test_fifo_receive_message_visibility_timeout_shared_in_group: groups that came back go last",
          "[sqs-conformance][fifo]") {
  world w(fifo_config(1_s));
  for (const char* b : {"g1-m1", "g1-m2", "g1-m3", "g1-m4"}) send_in(w.q, b, "group-1");
  send_in(w.q, "g2-m1", "group-2");
  send_in(w.q, "g3-m1", "group-3");
  CHECK(bodies(w.receive_now(up_to(2))) == names{"g1-m1", "g1-m2"});
  CHECK(bodies(w.receive_now(up_to(1))) == names{"g2-m1"});
  w.run_until(at(2_s));
  // AWS's recorded order (LocalStack also allows g2 before g1).
  CHECK(bodies(w.receive_now(up_to(10, 0_s))) == names{"g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"});
}

TEST_CASE("F1d test_fifo_receive_message_with_zero_visibility_timeout", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  send_in(w.q, "g2-m2", "group-2");
  send_in(w.q, "g3-m1", "group-3");
  send_in(w.q, "g1-m2", "group-1");
  CHECK(bodies(w.receive_now(up_to(3, 0_s))) == names{"g1-m1", "g1-m2", "g2-m1"});
  CHECK(bodies(w.receive_now(up_to(10, 0_s))) == names{"g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"});
}

TEST_CASE("F1e test_fifo_message_group_visibility_after_terminate_visibility_timeout", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g1-m2", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  const auto got = w.receive_now(up_to(2));
  REQUIRE(bodies(got) == names{"g1-m1", "g1-m2"});
  REQUIRE(w.q.change_visibility(got[0].handle, 0_s) == queue_status::ok);
  CHECK(bodies(w.poll_now(w.q, long_poll(2_s, 3)).messages) == names{"g2-m1", "g1-m1"});
}

TEST_CASE("F1f test_fifo_message_group_visibility_after_change_message_visibility", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g1-m2", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  const auto got = w.receive_now(up_to(2));
  REQUIRE(w.q.change_visibility(got[0].handle, 1_s) == queue_status::ok);
  w.run_until(at(2_s));
  CHECK(bodies(w.receive_now(up_to(3))) == names{"g2-m1", "g1-m1"});
}

TEST_CASE(
    "F1g test_fifo_group_visibility_extends_with_change_message_visibility: a message in flight hides "
    "the rest of its group",
    "[sqs-conformance][fifo]") {
  // The parameter: which of the three messages gets the longer lease; AWS
  // returns the ones before it.
  const std::size_t position = GENERATE(0u, 1u, 2u);
  world w(fifo_config(1_s, false));
  send_with_id(w.q, "foo", "1", "foo");
  send_with_id(w.q, "bar", "1", "bar");
  send_with_id(w.q, "baz", "1", "baz");
  const auto got = w.receive_now(up_to(5));
  REQUIRE(bodies(got) == names{"foo", "bar", "baz"});
  REQUIRE(w.q.change_visibility(got[position].handle, 4_s) == queue_status::ok);
  w.run_until(at(2500_ms));
  const names all{"foo", "bar", "baz"};
  CHECK(bodies(w.receive_now(up_to(5))) == names(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(position)));
}

TEST_CASE("F1h test_fifo_message_group_visibility_after_delete: a delete moves no group", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  send_in(w.q, "g1-m2", "group-1");
  send_in(w.q, "g2-m2", "group-2");
  send_in(w.q, "g1-m2", "group-1");  // as in LocalStack's test: the same body, deduplicated
  send_in(w.q, "g1-m3", "group-1");
  send_in(w.q, "g1-m4", "group-1");
  send_in(w.q, "g3-m1", "group-3");
  const auto got = w.receive_now(up_to(2));
  REQUIRE(bodies(got) == names{"g1-m1", "g1-m2"});
  REQUIRE(w.q.delete_message(got[0].handle) == queue_status::ok);
  REQUIRE(w.q.delete_message(got[1].handle) == queue_status::ok);
  // AWS's recorded order: the group that was in flight is served by the place
  // its next message was sent at, before group-3.
  CHECK(bodies(w.receive_now(up_to(10))) == names{"g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1"});
}

TEST_CASE("F1i test_fifo_message_group_visibility_after_partial_delete", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_in(w.q, "g1-m1", "group-1");
  send_in(w.q, "g2-m1", "group-2");
  send_in(w.q, "g1-m2", "group-1");
  send_in(w.q, "g2-m2", "group-2");
  send_in(w.q, "g1-m2", "group-1");  // as in LocalStack's test: the same body, deduplicated
  send_in(w.q, "g1-m3", "group-1");
  send_in(w.q, "g1-m4", "group-1");
  send_in(w.q, "g3-m1", "group-3");
  const auto got = w.receive_now(up_to(2));
  REQUIRE(bodies(got) == names{"g1-m1", "g1-m2"});
  REQUIRE(w.q.delete_message(got[0].handle) == queue_status::ok);
  CHECK(bodies(w.receive_now(up_to(10))) == names{"g2-m1", "g2-m2", "g3-m1"});
}

TEST_CASE("F1j test_fifo_messages_in_order_after_timeout", "[sqs-conformance][fifo]") {
  world w(fifo_config(1_s, false));
  for (int i = 0; i < 3; ++i) send_with_id(w.q, "message-" + std::to_string(i), "1", std::to_string(i));
  const names expected{"message-0", "message-1", "message-2"};
  CHECK(bodies(w.receive_now(up_to(10))) == expected);
  w.run_until(at(2_s));
  CHECK(bodies(w.receive_now(up_to(10))) == expected);
}

TEST_CASE("F1k test_fifo_empty_message_groups_added_back_to_queue", "[sqs-conformance][fifo]") {
  world w(fifo_config(30_s, false));
  send_with_id(w.q, "Message 1", "g1", "1");
  REQUIRE(w.q.delete_message(w.receive_now().at(0).handle) == queue_status::ok);
  CHECK(w.receive_now().empty());
  send_with_id(w.q, "Message 2", "g1", "2");
  CHECK(bodies(w.receive_now()) == names{"Message 2"});
}

// ---- F2. receipt handles -------------------------------------------------------

TEST_CASE("F2a test_fifo_delete_after_visibility_timeout: an expired handle cannot delete", "[sqs-conformance][fifo]") {
  world w(fifo_config(1_s));
  send_in(w.q, "foobar", "1");
  const receipt_handle h = w.receive_now().at(0).handle;
  w.run_until(at(1_s));
  const queue_status status = w.q.delete_message(h);
  CHECK(status == queue_status::receipt_handle_expired);
  CHECK(aws_error_code(status) == "InvalidParameterValue");
  CHECK(w.q.size() == 1);
}

TEST_CASE("F2b test_fifo_delete_after_visibility_timeout_extended", "[sqs-conformance][fifo]") {
  world w(fifo_config(1_s));
  send_in(w.q, "foobar", "1");
  const receipt_handle h = w.receive_now().at(0).handle;
  REQUIRE(w.q.change_visibility(h, 5_s) == queue_status::ok);
  w.run_until(at(1500_ms));
  CHECK(w.q.delete_message(h) == queue_status::ok);
  CHECK(w.q.size() == 0);
}

TEST_CASE("F2c a handle superseded by a later receive cannot delete or extend", "[sqs-conformance][fifo]") {
  world w(fifo_config(1_s));
  send_in(w.q, "m", "1");
  const receipt_handle old_handle = w.receive_now().at(0).handle;
  w.run_until(at(1_s));
  const receipt_handle new_handle = w.receive_now().at(0).handle;
  CHECK(w.q.delete_message(old_handle) == queue_status::receipt_handle_expired);
  CHECK(w.q.change_visibility(old_handle, 10_s) == queue_status::receipt_handle_expired);
  CHECK(w.q.delete_message(new_handle) == queue_status::ok);
  CHECK(w.q.delete_message(old_handle) == queue_status::ok);  // gone: as on a standard queue
}

// ---- F3. sends ---------------------------------------------------------------------

TEST_CASE("F3a test_posting_to_fifo_requires_deduplicationid_group_id", "[sqs-conformance][fifo]") {
  world w(fifo_config(30_s, false));
  const send_result no_id = send_in(w.q, "m", "g");
  CHECK(no_id.status == queue_status::missing_deduplication_id);
  CHECK(aws_error_code(no_id.status) == "InvalidParameterValue");
  const send_result no_group = send_with_id(w.q, "m", "", "d");
  CHECK(no_group.status == queue_status::missing_group);
  CHECK(aws_error_code(no_group.status) == "MissingParameter");
  CHECK(w.q.size() == 0);
}

TEST_CASE("F3b test_fifo_queue_send_message_with_delay_seconds_fails", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  send_request r;
  r.body = "message-1";
  r.group = "1";
  r.delay = 2_s;
  const send_result got = w.q.send_message(r);
  CHECK(got.status == queue_status::invalid_parameter);
  CHECK(aws_error_code(got.status) == "InvalidParameterValue");
  CHECK(w.q.size() == 0);
}

TEST_CASE("F3c test_fifo_queue_send_message_with_delay_on_queue_works, ..._with_zero_delay_defaults_to_queue_delay",
          "[sqs-conformance][fifo]") {
  queue_config c = fifo_config();
  c.delay = 2_s;
  world w(c);
  send_request zero;
  zero.body = "message-1";
  zero.group = "1";
  zero.delay = 0_s;  // an explicit 0 takes the queue's delay
  REQUIRE(w.q.send_message(zero).status == queue_status::ok);
  send_in(w.q, "message-2", "1");
  send_in(w.q, "message-3", "1");
  poll_result waited;
  w.start_poll(w.q, long_poll(1_s), waited);
  w.run_until(at(1_s));
  REQUIRE(waited.done);
  CHECK(waited.messages.empty());
  w.run_until(at(3_s));
  CHECK(bodies(w.receive_now(up_to(3))) == names{"message-1", "message-2", "message-3"});
}

// ---- F4. deduplication ---------------------------------------------------------------

TEST_CASE("F4a test_fifo_content_based_message_deduplication_arrives_once", "[sqs-conformance][fifo]") {
  world w(fifo_config());
  const send_result first = send_in(w.q, R"({"foo": "bar"})", "group-1");
  const send_result second = send_in(w.q, R"({"foo": "bar"})", "group-1");
  CHECK(second.status == queue_status::ok);
  CHECK(second.deduplicated);
  CHECK(second.id == first.id);
  CHECK(w.receive_now().size() == 1);
  CHECK(w.receive_now().empty());
  CHECK(w.records("send_deduplicated").size() == 1);
}

TEST_CASE("F4b test_fifo_deduplication_arrives_once_after_delete", "[sqs-conformance][fifo]") {
  const bool content_based = GENERATE(true, false);
  world w(fifo_config(30_s, content_based));
  const auto send = [&] {
    return content_based ? send_in(w.q, "item", "group-1") : send_with_id(w.q, "item", "group-1", "dedup1");
  };
  send();
  REQUIRE(w.q.delete_message(w.receive_now().at(0).handle) == queue_status::ok);
  CHECK(send().deduplicated);
  CHECK(w.receive_now().empty());
}

TEST_CASE("F4c test_fifo_deduplication_not_on_message_group_id, test_sqs_fifo_same_dedup_id_different_message_groups",
          "[sqs-conformance][fifo]") {
  world w(fifo_config(30_s, false));
  send_with_id(w.q, "Test", "group1", "same-dedup");
  REQUIRE(w.q.delete_message(w.receive_now().at(0).handle) == queue_status::ok);
  CHECK(send_with_id(w.q, "Test", "group2", "same-dedup").deduplicated);
  CHECK(w.receive_now().empty());
}

TEST_CASE("F4d test_deduplication_interval: an id is forgotten 5 minutes after its first send",
          "[sqs-conformance][fifo]") {
  world w(fifo_config(30_s, false));
  const send_result first = send_with_id(w.q, "m", "g", "d");
  w.run_until(at(3_s));
  CHECK(send_with_id(w.q, "m-duplicate", "g", "d").deduplicated);
  w.run_until(at(299_s));
  CHECK(send_with_id(w.q, "m-half-time", "g", "d").deduplicated);  // the window counts from the first send
  w.run_until(at(301_s));
  const send_result later = send_with_id(w.q, "m-later", "g", "d");
  CHECK_FALSE(later.deduplicated);
  CHECK(later.id != first.id);
  CHECK(w.q.size() == 2);
}

TEST_CASE("F4e test_purge_queue_clears_fifo_deduplication_cache", "[sqs-conformance][fifo]") {
  world w(fifo_config(30_s, false));
  send_with_id(w.q, "message-1", "g", "d");
  REQUIRE(w.q.purge() == queue_status::ok);
  CHECK_FALSE(send_with_id(w.q, "message-2", "g", "d").deduplicated);
  CHECK(bodies(w.receive_now()) == names{"message-2"});
}

// ---- F5. dead-letter queue ---------------------------------------------------------

TEST_CASE("F5a test_dead_letter_queue_with_fifo_and_content_based_deduplication", "[sqs-conformance][fifo]") {
  queue_config c = fifo_config(60_s);
  c.max_receive_count = 2;
  world w(c);
  queue_config dlq_config = fifo_config();
  dlq_config.name = "jobs-dlq-fifo";
  dlq_config.retention = days(14);
  queue dlq(w.k, w.events, w.ids, dlq_config);
  w.q.set_dead_letter(&dlq);
  const message_id id = send_in(w.q, "foobar", "1").id;
  CHECK(w.receive_now(leased_for(0_s)).size() == 1);
  CHECK(w.receive_now(leased_for(0_s)).size() == 1);
  CHECK(w.receive_now(leased_for(0_s)).empty());  // moved on this receive
  const auto dead = w.receive_now(dlq);
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].id == id);
  CHECK(dead[0].body == "foobar");
  const message_id second = send_in(w.q, "foobar2", "1").id;
  const auto after = w.receive_now();
  REQUIRE(after.size() == 1);
  CHECK(after[0].id == second);
}

// ---- F6. the scan window ---------------------------------------------------------------

TEST_CASE("F6 a blocked group's backlog past the scan window hides every group behind it", "[sqs-conformance][fifo]") {
  // The knowledge-center article's example A, with a window of 20 in place of
  // 20,000: group A's head is in flight and its backlog fills the window.
  queue_config c = fifo_config(60_s, false);
  c.fifo_scan_window = 20;
  world w(c);
  for (int i = 0; i < 25; ++i) send_with_id(w.q, "a" + std::to_string(i), "A", "a" + std::to_string(i));
  send_with_id(w.q, "b0", "B", "b0");
  const received_message head = w.receive_now().at(0);
  REQUIRE(head.body == "a0");
  CHECK(w.receive_now(up_to(10)).empty());  // group B waits behind 20 of group A's messages
  REQUIRE(w.q.delete_message(head.handle) == queue_status::ok);
  // Group A is ready again: its next ten come first.
  CHECK(w.receive_now(up_to(10)).size() == 10);
  CHECK(w.receive_now(up_to(10)).empty());  // 15 of A left, the head in flight: B still beyond the window
}

TEST_CASE("F6 within the window every ready group is served", "[sqs-conformance][fifo]") {
  queue_config c = fifo_config(60_s, false);
  c.fifo_scan_window = 20;
  world w(c);
  for (int i = 0; i < 10; ++i) send_with_id(w.q, "a" + std::to_string(i), "A", "a" + std::to_string(i));
  send_with_id(w.q, "b0", "B", "b0");
  REQUIRE(w.receive_now().at(0).body == "a0");
  CHECK(bodies(w.receive_now(up_to(10))) == names{"b0"});
}
