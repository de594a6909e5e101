// The worker runtime under faults: what every queue runner needs to get
// right, one behaviour per test, each run on a whole world.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <twice/sim/sleep.hpp>
#include <twice/world/world.hpp>
#include "broker/queue.hpp"
#include "runtime/worker.hpp"
#include "test_worlds.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"

using namespace twice;
using sim::duration;
using sim::instant;

namespace {
// One agent job (read, model, refund) with fixed latencies, so timelines in
// these tests are easy to reason about.
world_config one_job(std::uint32_t workers = 2) {
  world_config c;
  c.seed = 5;
  c.workers = workers;
  c.jobs.push_back(agent_job("job_1", "inv_1", 500));
  c.payments.latency = latency_model::fixed(duration::from_ms(300));
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  c.runtime.retry.initial_interval = duration::from_ms(500);
  c.runtime.retry.maximum_interval = duration::from_s(8);
  return c;
}

point_fault at(std::string point, std::string tool, std::uint32_t attempt, point_action action) {
  point_fault f;
  f.point = std::move(point);
  f.tool = std::move(tool);
  f.attempt = attempt;
  f.action = action;
  return f;
}

std::vector<const sim::trace_record*> records(world& w, std::string_view kind, std::string_view actor_prefix = "") {
  std::vector<const sim::trace_record*> out;
  for (const sim::trace_record& r : w.events().records())
    if (r.kind == kind && r.actor.starts_with(actor_prefix)) out.push_back(&r);
  return out;
}

std::size_t refund_calls(world& w) {
  std::size_t n = 0;
  for (const auto* r : records(w, "tool_call"))
    if (r->get_string("tool") == "refund") ++n;
  return n;
}
}  // namespace

TEST_CASE("a crash after the write and before the ack leaves one ledger row", "[runtime]") {
  SECTION("crash before the ack: the redelivery finds the job done and only acks") {
    world_config c = one_job();
    c.point_faults.push_back(at("before_ack", "", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(refund_calls(w) == 1);
    CHECK(records(w, "already_ended").size() == 1);
    CHECK(w.payments().ledger().size() == 1);
    CHECK(w.db().ledger().size() == 1);
  }
  SECTION("crash right after the vendor answered: the stable key makes the replay harmless") {
    world_config c = one_job();
    c.point_faults.push_back(at("after_tool", "refund", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(refund_calls(w) == 2);
    CHECK(w.payments().ledger().size() == 1);
    CHECK(w.db().ledger().size() == 1);
    CHECK(w.payments().stats().replays == 1);
  }
}

TEST_CASE("a new key per attempt defeats the vendor's idempotency", "[runtime]") {
  world_config c = one_job();
  c.runtime.rules.key = key_mode::per_attempt;
  c.point_faults.push_back(at("after_tool", "refund", 0, point_action::crash));
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  REQUIRE(w.payments().ledger().size() == 2);
  CHECK(w.payments().ledger()[0].idempotency_key == "job_1:step_3:refund:attempt_0");
  CHECK(w.payments().ledger()[1].idempotency_key == "job_1:step_3:refund:attempt_1");
}

TEST_CASE("checkpointing before the side effect loses the effect", "[runtime]") {
  world_config c = one_job();
  c.runtime.rules.checkpoint = checkpoint_mode::before_effect;
  c.point_faults.push_back(at("before_tool", "refund", 0, point_action::crash));
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  CHECK(w.jobs().end_of("job_1") == job_end::done);
  CHECK(refund_calls(w) == 0);  // the replay skipped the step: it was "durable"
  CHECK(w.payments().ledger().empty());
}

TEST_CASE("503s are retried with capped, growing backoff; the job succeeds after the outage", "[runtime]") {
  world_config c = one_job(1);
  c.runtime.retry.maximum_attempts = 10;
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(20)});
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  CHECK(w.jobs().end_of("job_1") == job_end::done);
  const auto backoffs = records(w, "backoff");
  REQUIRE(backoffs.size() >= 3);
  for (const auto* b : backoffs) {
    CHECK(*b->get_int("delay_us") <= duration::from_s(8).us());
    CHECK(b->get_string("error") == "503 unavailable");
  }
  // Full jitter draws below a growing envelope: later retries may wait longer.
  std::int64_t longest = 0;
  for (const auto* b : backoffs) longest = std::max(longest, *b->get_int("delay_us"));
  CHECK(longest > duration::from_ms(500).us());
  CHECK(w.payments().ledger().size() == 1);
  CHECK(w.db().find_job("job_1")->attempts == backoffs.size() + 1);
}

// Retrying before the server's Retry-After only earns another 429, so the
// runtime waits it out even where it is longer than its own cap (8 s here).
TEST_CASE("a 429's Retry-After is waited out before the next attempt, even past the cap", "[runtime]") {
  world_config c = one_job();
  c.payments.rate_limited_ppm = 500'000;
  c.payments.retry_after = duration::from_s(30);
  for (const retry_mode mode : {retry_mode::nack, retry_mode::in_slice}) {
    INFO(to_string(mode));
    c.runtime.rules.retry = mode;
    c.runtime.heartbeat_interval = duration::from_s(10);  // keeps the lease through an in-slice wait
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    const auto starts = records(w, "attempt_start");
    std::size_t rate_limited = 0;
    for (const auto* b : records(w, "backoff")) {
      if (b->get_string("error") != "429 rate_limited") continue;
      ++rate_limited;
      CHECK(b->get_int("delay_us") == duration::from_s(30).us());
      // The next attempt starts no sooner than the server asked.
      const auto next = std::find_if(starts.begin(), starts.end(), [&](const sim::trace_record* s) {
        return s->get_int("attempt") == *b->get_int("attempt") + 1;
      });
      REQUIRE(next != starts.end());
      CHECK((*next)->time - b->time >= duration::from_s(30));
    }
    CHECK(rate_limited >= 1);
    CHECK(w.jobs().end_of("job_1") == job_end::done);
  }
}

TEST_CASE("a 400 is not retried; retrying it (the bug) burns every attempt", "[runtime]") {
  world_config c = one_job(1);
  c.payments.bad_targets.insert("inv_1");
  SECTION("the correct discipline fails the job at once") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::failed);
    CHECK(refund_calls(w) == 1);
    CHECK(records(w, "backoff").empty());
    CHECK(w.db().find_job("job_1")->last_error == "400 invoice_not_found");
  }
  SECTION("retry_non_retryable retries until the dead-letter queue") {
    c.runtime.rules.retry_non_retryable = true;
    c.runtime.retry.maximum_attempts = 4;
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::dead_lettered);
    CHECK(refund_calls(w) == 4);
    CHECK(records(w, "backoff").size() == 3);
    CHECK(w.dead_letter_queue()->stats().sent == 1);
  }
}

TEST_CASE("the attempt counter lives on the job row and survives re-enqueue", "[runtime]") {
  world_config c = one_job(2);
  c.runtime.retry.maximum_attempts = 3;
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(3600)});
  SECTION("counted across workers and messages, then dead-lettered") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::dead_lettered);
    CHECK(w.db().find_job("job_1")->attempts == 3);
    std::vector<std::int64_t> attempts;
    for (const auto* s : records(w, "attempt_start")) attempts.push_back(*s->get_int("attempt"));
    CHECK(attempts == std::vector<std::int64_t>{0, 1, 2});
  }
  SECTION("resetting it on re-enqueue (the bug) never reaches the limit") {
    c.runtime.rules.reset_attempts_on_reenqueue = true;
    c.time_limit = duration::from_s(120);
    world w(c);
    const world_result r = w.run();
    CHECK_FALSE(r.all_jobs_ended);
    CHECK(r.reason == sim::stop_reason::time_limit);
    std::vector<std::int64_t> attempts;
    for (const auto* s : records(w, "attempt_start")) attempts.push_back(*s->get_int("attempt"));
    REQUIRE(attempts.size() > 3);
    CHECK(std::count(attempts.begin(), attempts.end(), 0) == static_cast<std::ptrdiff_t>(attempts.size()));
  }
}

TEST_CASE("a counter kept with the message (the bug) restarts on every delivery, whatever brought it back",
          "[runtime]") {
  // A delivery that ends without a nack: the slice dies, or its lease runs
  // out, and the same message comes back. On the job row the counter goes on
  // (0 then 1); kept with the message it starts again (0 then 0).
  world_config c = one_job(2);
  auto attempts_started = [](world& w) {
    std::vector<std::int64_t> attempts;
    for (const auto* s : records(w, "attempt_start")) attempts.push_back(*s->get_int("attempt"));
    return attempts;
  };
  auto run = [&](bool reset) {
    c.runtime.rules.reset_attempts_on_reenqueue = reset;
    auto w = std::make_unique<world>(c);
    REQUIRE(w->run().all_jobs_ended);
    CHECK(w->jobs().end_of("job_1") == job_end::done);
    REQUIRE(records(*w, "nack").empty());  // no nack brought it back
    return w;
  };
  SECTION("redelivered after a crash") {
    c.crashes.push_back({instant::epoch() + duration::from_ms(500), 0, true});  // worker/0, in its model call
    const auto on_row = run(false);
    REQUIRE(records(*on_row, "crash").size() == 1);
    CHECK(attempts_started(*on_row) == std::vector<std::int64_t>{0, 1});
    CHECK(on_row->db().find_job("job_1")->attempts == 2);
    const auto with_message = run(true);
    REQUIRE(records(*with_message, "crash").size() == 1);
    CHECK(attempts_started(*with_message) == std::vector<std::int64_t>{0, 0});
    CHECK(with_message->db().find_job("job_1")->attempts == 1);
  }
  SECTION("redelivered after its lease ran out") {
    c.queue.visibility_timeout = duration::from_s(10);
    c.model.latency = latency_model::fixed(duration::from_s(30));
    CHECK(attempts_started(*run(false)) == std::vector<std::int64_t>{0, 1});
    CHECK(attempts_started(*run(true)) == std::vector<std::int64_t>{0, 0});
  }
}

TEST_CASE("a slice longer than the visibility timeout", "[runtime]") {
  world_config c = one_job(2);
  c.queue.visibility_timeout = duration::from_s(10);
  c.model.latency = latency_model::fixed(duration::from_s(30));
  SECTION("heartbeats keep the lease: no redelivery") {
    c.runtime.heartbeat_interval = duration::from_s(3);
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(records(w, "attempt_start").size() == 1);
    CHECK(records(w, "heartbeat").size() >= 10);
    CHECK(w.payments().ledger().size() == 1);
  }
  SECTION("without heartbeats another worker runs it too; the key absorbs the overlap") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    const auto starts = records(w, "attempt_start");
    REQUIRE(starts.size() >= 2);
    CHECK(starts[0]->actor != starts[1]->actor);  // two workers at once
    CHECK(refund_calls(w) >= 2);
    CHECK(w.payments().ledger().size() == 1);
    CHECK(w.db().ledger().size() == 1);
  }
  SECTION("without heartbeats and without a key, the overlap pays twice") {
    c.runtime.rules.key = key_mode::none;
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.payments().ledger().size() >= 2);
  }
}

namespace {
// Both workers hold the job at once: the broker delivers it twice without
// any crash (SQS standard queues may), and the slice is slow.
world_config duplicated_slow_slice(handle_semantics semantics) {
  world_config c = one_job(2);
  c.queue.semantics = semantics;
  c.queue.visibility_timeout = duration::from_s(10);
  c.model.latency = latency_model::fixed(duration::from_s(12));
  c.runtime.heartbeat_interval = duration::from_s(3);
  c.queue_faults.push_back({.what = queue_fault::kind::duplicate_delivery, .job = "job_1", .nth = 1});
  return c;
}
}  // namespace

TEST_CASE("on a strict broker the heartbeat learns the lease is gone and the slice stops", "[runtime]") {
  world w(duplicated_slow_slice(handle_semantics::strict));
  REQUIRE(w.run().all_jobs_ended);
  const auto lost = records(w, "lease_lost");
  REQUIRE(lost.size() == 1);
  CHECK(lost[0]->actor == "worker/0");
  CHECK(lost[0]->time == instant::epoch() + duration::from_s(3) + duration::from_ms(6));
  const auto abandoned = records(w, "abandoned");
  REQUIRE(abandoned.size() == 1);
  CHECK(abandoned[0]->actor == "worker/0");
  CHECK(refund_calls(w) == 1);  // only the lease holder reached the write
  CHECK(w.jobs().end_of("job_1") == job_end::done);
  CHECK(w.payments().ledger().size() == 1);
}

TEST_CASE("on SQS the same heartbeat cannot tell, and the overlap shows in the trace", "[runtime]") {
  world w(duplicated_slow_slice(handle_semantics::sqs));
  REQUIRE(w.run().all_jobs_ended);
  CHECK(records(w, "lease_lost").empty());
  for (const auto* h : records(w, "heartbeat")) CHECK(h->get_string("status") == "ok");
  const auto starts = records(w, "attempt_start");
  REQUIRE(starts.size() >= 2);
  CHECK(starts[0]->actor != starts[1]->actor);
  CHECK(starts[0]->get_int("attempt") == 0);  // each overlapping slice got its own attempt number
  CHECK(starts[1]->get_int("attempt") == 1);
  CHECK(refund_calls(w) >= 2);               // both wrote (the second first heard 409: the first was still running)...
  CHECK(w.payments().ledger().size() == 1);  // ...and the key absorbed it
  CHECK(w.db().ledger().size() == 1);
}

TEST_CASE("with fencing, the slice whose lease was taken over cannot checkpoint", "[runtime]") {
  world_config c = one_job(2);
  c.runtime.rules.fencing = true;
  // The broker delivers the first message twice, with no crash at all.
  c.queue_faults.push_back({.what = queue_fault::kind::duplicate_delivery, .job = "job_1", .nth = 1});
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  const auto fenced = records(w, "fenced", "worker/");
  REQUIRE_FALSE(fenced.empty());
  CHECK(fenced[0]->get_int("attempt") == 0);
  CHECK(w.jobs().end_of("job_1") == job_end::done);
  CHECK(w.payments().ledger().size() == 1);
  CHECK(w.db().ledger().size() == 1);
}

namespace {
// A refund API that, like Stripe refunding a charge already refunded in full
// (400 charge_already_refunded), refuses a second refund of an invoice,
// whatever its key: the first call pays, every later one is a 400.
class refuses_second_refund final : public tool {
 public:
  std::string_view name() const override { return "refund"; }
  bool writes() const override { return true; }
  bool accepts_key() const override { return true; }
  sim::task<tool_result> call(tool_call request) override {
    co_await sim::sleep_for(duration::from_ms(300));
    if (!refunded_.insert(request.target).second) co_return tool_result{400, "charge_already_refunded", "", false, {}};
    co_return tool_result{200, "", "re_" + request.target, false, {}};
  }

 private:
  std::set<std::string> refunded_;
};

// Two slices of job_1 at once, with no fencing: the lease (10 s) runs out
// under the first slice's 30 s model call and worker/1 starts attempt 1
// while worker/0 still runs attempt 0. worker/0 ends the job done at about
// 31 s; worker/1 comes to its refund ten seconds later.
world_config overlapping_slices_without_fencing() {
  world_config c = one_job(2);
  c.queue.visibility_timeout = duration::from_s(10);
  c.model.latency = latency_model::fixed(duration::from_s(30));
  REQUIRE_FALSE(c.runtime.rules.fencing);
  return c;
}

void require_overlap_ended_done_first(world& w) {
  const auto starts = records(w, "attempt_start");
  REQUIRE(starts.size() == 2);
  REQUIRE(starts[0]->actor != starts[1]->actor);
  const auto done = records(w, "job_done");
  REQUIRE(done.size() == 1);
  REQUIRE(done[0]->get_int("attempt") == 0);
}
}  // namespace

// An end is final: `UPDATE ... WHERE status NOT IN (ended)`. Without it the
// slower slice's own end overwrites the first one's, and a job whose refund
// was paid reads failed or dead-lettered (and would be paid again by anyone
// who re-runs failed jobs).
TEST_CASE("an overlapping slice that fails after the job ended done leaves the row done", "[runtime]") {
  world_config c = overlapping_slices_without_fencing();
  SECTION("the second slice hears a 400 and ends the job failed") {
    refuses_second_refund refunds;
    world w(c);
    w.add_tool("refund", &refunds);
    REQUIRE(w.run().all_jobs_ended);
    require_overlap_ended_done_first(w);
    const auto failed = records(w, "job_failed");
    REQUIRE(failed.size() == 1);
    CHECK(failed[0]->get_int("attempt") == 1);
    CHECK(failed[0]->get_string("error") == "400 charge_already_refunded");
    const std::optional<job_row> row = w.db().find_job("job_1");
    REQUIRE(row.has_value());
    CHECK(row->status == job_status::done);
    CHECK(row->last_error.empty());
    CHECK(w.jobs().end_of("job_1") == job_end::done);
  }
  SECTION("the second slice runs out of attempts and dead-letters the job") {
    c.runtime.retry.maximum_attempts = 2;
    // The vendor goes down between the two refunds: attempt 1, the last, hears 503.
    c.payments.outages.push_back({instant::epoch() + duration::from_s(35), instant::epoch() + duration::from_s(3600)});
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    require_overlap_ended_done_first(w);
    const auto dead = records(w, "dead_letter", "worker/");
    REQUIRE(dead.size() == 1);
    CHECK(dead[0]->get_string("reason") == "503 unavailable");
    const std::optional<job_row> row = w.db().find_job("job_1");
    REQUIRE(row.has_value());
    CHECK(row->status == job_status::done);
    CHECK(row->last_error.empty());
    CHECK(w.payments().ledger().size() == 1);
  }
}

TEST_CASE("an email provider takes no key: a dedupe row claimed before the send makes each email at most once",
          "[runtime]") {
  world_config c = one_job();
  c.jobs[0] = agent_job("job_1", "inv_1", 500, /*email=*/true);
  c.email.latency = latency_model::fixed(duration::from_ms(200));
  auto emails = [](world& w) { return w.email().stats().effects; };
  SECTION("without the claim, a crash after the send emails twice") {
    c.runtime.rules.claimed_tools.clear();
    c.point_faults.push_back(at("after_tool", "email", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    REQUIRE(emails(w) == 2);
    CHECK(w.email().effects()[0].reference == "job_1:step_4:email");
    CHECK(w.email().effects()[1].reference == "job_1:step_4:email");
  }
  SECTION("with the claim, the replay after that crash finds it and skips the send") {
    c.point_faults.push_back(at("after_tool", "email", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(emails(w) == 1);
    CHECK(w.db().dedupes().contains("job_1:step_4:email"));
    CHECK(w.jobs().end_of("job_1") == job_end::done);
  }
  SECTION("a send that timed out after the provider sent it is not repeated") {
    c.email.client_timeout = duration::from_ms(100);  // every send outlives the client
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(emails(w) == 1);
    CHECK(records(w, "backoff").size() == 1);  // the timeout was retried; the retry skipped the send
    CHECK(w.jobs().end_of("job_1") == job_end::done);
  }
  SECTION("a 503 means nothing was sent: the claim is given back and the retry sends") {
    c.email.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(2)});
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(emails(w) == 1);
    CHECK(records(w, "backoff").size() >= 1);
    CHECK(w.email().effects()[0].at >= instant::epoch() + duration::from_s(2));
  }
  SECTION("the price of at most once: a crash between the claim and the send loses the email") {
    c.point_faults.push_back(at("before_tool", "email", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(emails(w) == 0);
    CHECK(w.jobs().end_of("job_1") == job_end::done);
  }
}

TEST_CASE("a slow step split into a job of its own: no lease outlived, the job resumes after it", "[runtime][split]") {
  // A 100 s model call, a 30 s lease and no heartbeat (the slice cannot
  // send one through the blocking call), no key.
  world_config c = one_job(4);
  c.model.latency = latency_model::fixed(duration::from_s(100));
  c.model.client_timeout = duration::from_s(300);
  c.runtime.rules.key = key_mode::none;
  auto model_calls = [](world& w) {
    std::size_t n = 0;
    for (const auto* r : records(w, "tool_call"))
      if (r->get_string("tool") == "model") ++n;
    return n;
  };
  SECTION("without the split, every expiry hands the slice to another worker, which pays again") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(records(w, "attempt_start").size() >= 3);
    CHECK(model_calls(w) >= 3);
    CHECK(w.payments().ledger().size() >= 2);
  }
  c.runtime.rules.split_tool = "model";
  SECTION("with the split, one model call on the split queue, then the job resumes and refunds once") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(model_calls(w) == 1);
    CHECK(w.payments().ledger().size() == 1);
    REQUIRE(records(w, "hand_off").size() == 1);
    CHECK(records(w, "hand_off")[0]->get_string("to") == "job_1:step_2:model");
    REQUIRE(records(w, "resume").size() == 1);
    const auto starts = records(w, "attempt_start");
    REQUIRE(starts.size() == 3);  // the job's hand-off, the split-out job, the job's resume
    CHECK(starts[1]->get_string("job") == "job_1:step_2:model");
    CHECK(starts[1]->actor == "worker/4");  // the split queue's own pod, after the four
    CHECK(starts[2]->get_string("job") == "job_1");
    CHECK(starts[2]->get_int("checkpoint") == 2);
    CHECK(records(w, "lease_expired").empty());
    CHECK(w.jobs().end_of("job_1") == job_end::done);
    CHECK(w.jobs().story_jobs() == 1);  // the split-out job is not one of the story's jobs
  }
  SECTION("a crash after the split-out job ended: its redelivery resumes again, and the job is already done") {
    point_fault f = at("after_checkpoint", "", 0, point_action::crash);
    f.job = "job_1:step_2:model";
    c.point_faults.push_back(f);
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    const auto resumes = records(w, "resume");
    REQUIRE(resumes.size() == 2);
    CHECK(resumes[1]->get_string("why") == "redelivered");
    CHECK(w.payments().ledger().size() == 1);
    CHECK(model_calls(w) == 1);
  }
  SECTION("the split-out job runs out of attempts, and the job fails with it") {
    c.model.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(24 * 3600)});
    c.runtime.retry.maximum_attempts = 3;
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::failed);
    CHECK(w.payments().ledger().empty());
    const auto row = w.db().find_job("job_1");
    REQUIRE(row.has_value());
    CHECK(row->last_error.starts_with("step 2 dead_lettered"));
  }
}

TEST_CASE("a transaction held across the model call starves the pool", "[runtime]") {
  world_config c = test_worlds::pool_of_one_slow_model();
  world_config fixed = c;
  c.runtime.rules.hold_transaction_across_model = true;
  world held(c);
  world healthy(fixed);
  REQUIRE(held.run().all_jobs_ended);
  REQUIRE(healthy.run().all_jobs_ended);
  CHECK(held.db().stats().pool_wait_max >= duration::from_s(4));
  CHECK(healthy.db().stats().pool_wait_max < duration::from_s(1));
}

TEST_CASE("the broker's redrive dead-letters a message that keeps coming back; unread, it expires", "[runtime]") {
  world_config c = one_job(1);
  c.queue.max_receive_count = 2;
  c.dead_letter.retention = duration::from_s(3600);
  c.runtime.retry.maximum_attempts = 0;  // unlimited: only the broker stops it
  c.point_faults.push_back({.point = "after_tool", .tool = "refund", .action = point_action::crash});
  world w(c);
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  CHECK(w.jobs().end_of("job_1") == job_end::dead_lettered);
  CHECK(records(w, "redrive").size() == 1);
  const auto expired = records(w, "retention_expired", "queue/jobs-dlq");
  REQUIRE(expired.size() == 1);
  CHECK(expired[0]->time == instant::epoch() + duration::from_s(3600));
}

TEST_CASE("deploys: a drain kills no in-flight slice; a rolling kill does and the key absorbs the replay",
          "[runtime]") {
  world_config c;
  c.seed = 3;
  c.workers = 2;
  c.model.latency = latency_model::fixed(duration::from_s(4));
  c.payments.latency = latency_model::fixed(duration::from_ms(200));
  for (int i = 0; i < 6; ++i) {
    job_spec j = agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100);
    j.enqueue_at = instant::epoch() + duration::from_s(i);
    c.jobs.push_back(j);
  }
  deploy_spec d;
  d.at = instant::epoch() + duration::from_s(3);
  d.sha = "v2";
  SECTION("drain") {
    d.strategy = deploy_strategy::drain;
    c.deploys.push_back(d);
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    for (const auto* s : records(w, "stop"))
      if (s->get_string("why") != "shutdown") CHECK(s->get_bool("in_flight") == false);
    CHECK(records(w, "lease_expired", "queue/jobs").empty());
    CHECK(w.payments().ledger().size() == 6);
    CHECK(w.worker_at(0).sha() == "v2");
  }
  SECTION("rolling kill") {
    d.strategy = deploy_strategy::rolling_kill;
    c.deploys.push_back(d);
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    std::size_t killed_in_flight = 0;
    for (const auto* s : records(w, "stop")) killed_in_flight += s->get_bool("in_flight") == true;
    CHECK(killed_in_flight >= 1);
    CHECK(w.payments().ledger().size() == 6);
    CHECK(w.db().ledger().size() == 6);
  }
}

// What the reports and drain_kills_nothing read: each stopped worker's
// record says whether it drained in time or was killed at the deadline.
TEST_CASE("a drain's stop says why: drained in time, or the grace period expired with a slice in flight", "[runtime]") {
  world_config c = one_job(2);
  c.model.latency = latency_model::fixed(duration::from_s(20));
  c.runtime.long_poll = duration::from_s(1);  // an idle worker drains once its poll returns
  deploy_spec d;
  d.at = instant::epoch() + duration::from_s(1);
  d.strategy = deploy_strategy::drain;
  d.batch_size = 2;  // both at once: the idle worker drains at once, the busy one runs out of time
  d.grace_period = duration::from_s(5);
  c.deploys.push_back(d);
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  std::map<std::string, std::vector<const sim::trace_record*>> deploy_stops;  // by why
  for (const auto* s : records(w, "stop"))
    if (s->get_string("why") != "shutdown") deploy_stops[std::string(*s->get_string("why"))].push_back(s);
  REQUIRE(deploy_stops["grace period expired"].size() == 1);
  const auto* killed = deploy_stops["grace period expired"][0];
  CHECK(killed->get_bool("in_flight") == true);
  CHECK(killed->get_string("job") == "job_1");
  CHECK(killed->time == instant::epoch() + duration::from_s(6));  // the deploy plus the grace period
  REQUIRE(deploy_stops["drained"].size() == 1);
  CHECK(deploy_stops["drained"][0]->get_bool("in_flight") == false);
  CHECK(deploy_stops["drained"][0]->actor != killed->actor);
  CHECK(deploy_stops.size() == 2);
}

TEST_CASE("an ambiguous timeout: the vendor committed, the client heard nothing", "[runtime]") {
  world_config c = one_job(1);
  c.payments.lost_response_ppm = 1'000'000;  // every executed refund's answer is lost
  c.payments.client_timeout = duration::from_s(5);
  c.runtime.retry.maximum_attempts = 3;
  SECTION("the same key on the retry learns the answer from the vendor's stored response") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::done);
    REQUIRE(w.payments().ledger().size() == 1);
    REQUIRE(w.db().ledger().size() == 1);
    CHECK(w.db().ledger()[0].vendor_ref == w.payments().ledger()[0].id);
  }
  SECTION("without the key at the vendor every retry refunds again, and our ledger never hears") {
    c.runtime.rules.pass_key_to_vendor = false;
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.jobs().end_of("job_1") == job_end::dead_lettered);
    CHECK(w.payments().ledger().size() == 3);
    CHECK(w.db().ledger().empty());
  }
}

TEST_CASE("the outbox: intents written with the slice start, sent by a relay that may send twice", "[runtime]") {
  world_config c = one_job(2);
  c.runtime.rules.checkpoint = checkpoint_mode::outbox;
  SECTION("a clean run: one intent, one send, the ledgers agree") {
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.db().outbox().empty());  // the row was sent, so dropped
    CHECK(records(w, "relayed", "relay").size() == 1);
    CHECK(w.payments().ledger().size() == 1);
    REQUIRE(w.db().ledger().size() == 1);
    CHECK(w.db().ledger()[0].key == "job_1:step_3:refund");
  }
  SECTION("a worker crash after the slice started does not write the intent twice") {
    c.point_faults.push_back(at("after_tool", "model", 0, point_action::crash));
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(records(w, "relayed", "relay").size() == 1);  // one intent row, relayed once
    CHECK(w.payments().ledger().size() == 1);
  }
  SECTION("the relay crashes after sending: it sends again, and the key absorbs it") {
    point_fault f = at("after_send", "refund", 0, point_action::crash);
    f.max_times = 1;
    c.point_faults.push_back(f);
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(records(w, "tool_call", "relay").size() == 2);
    CHECK(w.payments().ledger().size() == 1);
    CHECK(w.db().ledger().size() == 1);
  }
  SECTION("without the key at the vendor the relay's second send pays twice") {
    point_fault f = at("after_send", "refund", 0, point_action::crash);
    f.max_times = 1;
    c.point_faults.push_back(f);
    c.runtime.rules.pass_key_to_vendor = false;
    world w(c);
    REQUIRE(w.run().all_jobs_ended);
    CHECK(w.payments().ledger().size() == 2);
  }
}

TEST_CASE("after an outage, retries without jitter arrive as a stampede; jitter spreads them", "[runtime]") {
  world_config c;
  c.seed = 11;
  c.workers = 20;
  c.model.latency = latency_model::fixed(duration::from_ms(100));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  c.payments.latency = latency_model::fixed(duration::from_ms(200));
  c.payments.outages.push_back({instant::epoch(), instant::epoch() + duration::from_s(10)});
  c.runtime.retry.initial_interval = duration::from_s(1);
  c.runtime.retry.maximum_interval = duration::from_s(8);
  c.runtime.retry.maximum_attempts = 20;
  for (int i = 0; i < 20; ++i) c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100));
  // Retries only: the first calls all arrive together whatever the policy.
  auto tallest_retry_bucket = [](world& w) {
    std::uint64_t tallest = 0;
    for (const auto& [bucket, n] : w.payments().stats().requests_per_100ms.tallest())
      if (bucket >= 10) tallest = std::max(tallest, n);
    return tallest;
  };
  world_config no_jitter = c;
  no_jitter.runtime.retry.jitter = jitter_kind::none;
  world stampede(no_jitter);
  world spread(c);
  REQUIRE(stampede.run().all_jobs_ended);
  REQUIRE(spread.run().all_jobs_ended);
  CHECK(tallest_retry_bucket(stampede) == 20);  // every job's retry in the same 100 ms
  CHECK(tallest_retry_bucket(spread) <= 8);
  CHECK(stampede.payments().ledger().size() == 20);
  CHECK(spread.payments().ledger().size() == 20);
}

TEST_CASE("an ack lost on the way: the message comes back and finds its job done", "[runtime]") {
  world_config c = one_job(1);
  c.queue_faults.push_back({.what = queue_fault::kind::lose_delete, .job = "job_1", .nth = 1});
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  CHECK(records(w, "delete_lost").size() == 1);
  CHECK(records(w, "already_ended").size() == 1);
  CHECK(refund_calls(w) == 1);
  CHECK(w.jobs_queue().size() == 0);
}

TEST_CASE("the queue's counters are sampled into the trace", "[runtime]") {
  world_config c = one_job(1);
  c.sample_interval = duration::from_ms(500);
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  const auto samples = records(w, "queue_sample", "sampler");
  REQUIRE(samples.size() >= 2);
  CHECK(samples[0]->get_int("in_flight") == 0);  // sampled at 0, before the first send was received
  CHECK(samples[1]->get_int("in_flight") == 1);
  CHECK(samples[1]->time - samples[0]->time == duration::from_ms(500));
}

// SQS's approximate counters lag ("may not achieve consistency until at
// least 1 minute after the producers stop sending messages"): with a lag,
// each sample is the exact one taken that long before, and the queue as
// created (empty) until there is one.
TEST_CASE("sampled counters with a lag show the queue as it was that long before", "[runtime][sqs-conformance]") {
  world_config c = one_job(1);
  c.jobs.push_back(agent_job("job_2", "inv_2", 500));  // waits for the one worker: visible for a while
  c.sample_interval = duration::from_ms(500);
  const auto counts = [](const sim::trace_record* r) {
    return std::vector<std::int64_t>{*r->get_int("visible"), *r->get_int("delayed"), *r->get_int("in_flight"),
                                     *r->get_int("dead_letters"), *r->get_int("oldest_age_us")};
  };
  world exact(c);
  REQUIRE(exact.run().all_jobs_ended);
  c.counter_lag = duration::from_ms(1200);  // not a multiple: the last sample at least 1.2 s old, 1.5 s
  world lagged(c);
  REQUIRE(lagged.run().all_jobs_ended);
  const auto e = records(exact, "queue_sample", "sampler");
  const auto l = records(lagged, "queue_sample", "sampler");
  REQUIRE(e.size() == l.size());  // the lag moves no other event
  REQUIRE(e.size() >= 5);
  CHECK(counts(e[0]) != counts(l[0]));  // a job visible at 0 is not counted yet
  for (std::size_t i = 0; i < l.size(); ++i) {
    INFO("sample " << i);
    CHECK(l[i]->time == e[i]->time);
    if (i < 3)
      CHECK(counts(l[i]) == std::vector<std::int64_t>(5, 0));
    else
      CHECK(counts(l[i]) == counts(e[i - 3]));
  }
}

TEST_CASE("a crash at every moment the built-in handler is suspended frees its frames and keeps the discipline",
          "[runtime][kill]") {
  // Under the sanitizer build this is the leak and use-after-free hunt: a
  // crash kills the slice's coroutines wherever they wait (a tool call, a
  // transaction, a checkpoint, a heartbeat), at each instant the clean run
  // recorded something. Every run must still end with one refund and one
  // email.
  world_config base = one_job(2);
  base.jobs[0] = agent_job("job_1", "inv_1", 500, /*email=*/true);
  base.runtime.heartbeat_interval = duration::from_ms(400);
  for (const checkpoint_mode mode : {checkpoint_mode::after_success, checkpoint_mode::outbox}) {
    base.runtime.rules.checkpoint = mode;
    std::vector<instant> moments;
    {
      world clean(base);
      REQUIRE(clean.run().all_jobs_ended);
      for (const sim::trace_record& r : clean.events().records())
        if (r.actor == "worker/0" && (moments.empty() || moments.back() != r.time)) moments.push_back(r.time);
    }
    REQUIRE(moments.size() >= 10);
    for (const instant t : moments) {
      world_config c = base;
      c.crashes.push_back({t, 0, true});
      world w(c);
      INFO("checkpoint " << to_string(mode) << ", crash of worker/0 at " << t.us() << " us");
      REQUIRE(w.run().all_jobs_ended);
      CHECK(w.payments().ledger().size() == 1);
      CHECK(w.email().stats().effects <= 1);
      CHECK(w.jobs().end_of("job_1") == job_end::done);
    }
  }
}

TEST_CASE("attempts counted at failure: a failure moves the counter, a crash does not", "[runtime][attempts]") {
  world_config c;
  c.workers = 1;
  c.jobs.push_back(agent_job("job_1", "inv_1", 1999));
  c.runtime.count_attempts = attempt_counting::at_failure;
  c.runtime.retry.maximum_attempts = 3;
  c.runtime.retry.initial_interval = duration::from_ms(100);
  // Attempt 0 crashes before the model call; the next delivery fails twice at the refund.
  point_fault crash;
  crash.point = "before_tool";
  crash.tool = "model";
  crash.max_times = 1;
  c.point_faults.push_back(crash);
  c.payments.outages.push_back({sim::instant::epoch(), sim::instant::epoch() + duration::from_s(3600)});
  world w(c);
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  CHECK(w.jobs().end_of("job_1") == job_end::dead_lettered);
  std::vector<std::int64_t> attempts;
  for (const sim::trace_record& rec : w.events().records())
    if (rec.kind == "attempt_start") attempts.push_back(rec.get_int("attempt").value());
  // The crashed attempt 0 is not counted: the redelivery is attempt 0 again;
  // then each failure counts: 0, 1, 2, and the third failure dead-letters.
  CHECK(attempts == std::vector<std::int64_t>{0, 0, 1, 2});
  CHECK(w.db().find_job("job_1")->attempts == 3);
}
