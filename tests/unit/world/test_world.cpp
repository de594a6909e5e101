// The world end to end: the double refund incident in both forms, and the
// behaviours every queue runner needs (crash before ack, backoff, heartbeat,
// the attempt counter on the job row, 503 vs 400, drain vs rolling kill).

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/incidents.hpp"
#include "world/job_book.hpp"

#include <twice/vendors/vendor_refund.hpp>

using namespace twice;
using sim::duration;
using sim::instant;

namespace {
std::vector<const sim::trace_record*> records_of(world& w, std::string_view kind) {
  std::vector<const sim::trace_record*> out;
  for (const sim::trace_record& r : w.events().records())
    if (r.kind == kind) out.push_back(&r);
  return out;
}

std::vector<const sim::trace_record*> refund_calls(world& w) {
  std::vector<const sim::trace_record*> out;
  for (const sim::trace_record* r : records_of(w, "tool_call"))
    if (r->get_string("tool") == "refund") out.push_back(r);
  return out;
}

std::int64_t vendor_total(world& w) {
  std::int64_t total = 0;
  for (const vendor_refund& r : w.payments().ledger()) total += r.amount_cents;
  return total;
}
}  // namespace

TEST_CASE("the double refund: no key, a kill after the refund and before the ack", "[world]") {
  world w(double_refund_config(false));
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  CHECK(w.jobs().end_of("job_17") == job_end::done);
  // The vendor refunded twice; our ledger knows of one.
  REQUIRE(w.payments().ledger().size() == 2);
  CHECK(vendor_total(w) == 2 * 1999);
  CHECK(w.db().ledger().size() == 1);
  const auto calls = refund_calls(w);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]->get_int("attempt") == 0);
  CHECK(calls[1]->get_int("attempt") == 1);
  CHECK(calls[0]->get_bool("new_write") == true);
  CHECK(calls[1]->get_bool("new_write") == true);
  // The message came back only when the lease expired (30 s after the receive).
  const auto starts = records_of(w, "attempt_start");
  REQUIRE(starts.size() == 2);
  CHECK(starts[1]->time - starts[0]->time >= duration::from_s(30));
}

TEST_CASE("the double refund fixed: a stable key absorbs two failures after the write", "[world]") {
  world w(double_refund_config(true));
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  CHECK(w.jobs().end_of("job_17") == job_end::done);
  REQUIRE(w.payments().ledger().size() == 1);
  CHECK(w.payments().ledger()[0].amount_cents == 1999);
  CHECK(w.payments().ledger()[0].idempotency_key == "job_17:step_3:refund");
  REQUIRE(w.db().ledger().size() == 1);
  CHECK(w.db().ledger()[0].key == "job_17:step_3:refund");

  const auto calls = refund_calls(w);
  REQUIRE(calls.size() == 3);
  for (std::int64_t a = 0; a < 3; ++a) {
    CHECK(calls[a]->get_int("attempt") == a);
    CHECK(calls[a]->get_string("key") == "job_17:step_3:refund");
    CHECK(calls[a]->get_bool("new_write") == (a == 0));
  }
  const auto backoffs = records_of(w, "backoff");
  REQUIRE(backoffs.size() == 2);
  CHECK(backoffs[0]->get_int("delay_us") != backoffs[1]->get_int("delay_us"));
  for (const auto* b : backoffs) CHECK(*b->get_int("delay_us") <= *b->get_int("cap_us"));
  CHECK(w.db().find_job("job_17")->attempts == 3);
}

TEST_CASE("the same world and seed give the same digest", "[world][determinism]") {
  world_config c = double_refund_config(true);
  world a(c);
  world b(c);
  const std::uint64_t da = a.run().trace_digest;
  CHECK(da == b.run().trace_digest);
  c.seed = 18;
  world other(c);
  CHECK(other.run().trace_digest != da);
}

TEST_CASE("jobs listed out of time order arrive in time order, ties in list order", "[world]") {
  world_config c;
  c.workers = 1;
  const std::int64_t at_s[] = {3, 1, 2, 1, 0};
  for (int i = 0; i < 5; ++i) {
    job_spec j = agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100);
    j.enqueue_at = instant::epoch() + duration::from_s(at_s[i]);
    c.jobs.push_back(std::move(j));
  }
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  std::vector<std::string> sent;
  for (const auto* r : records_of(w, "send"))
    if (r->actor == "queue/jobs") sent.emplace_back(*r->get_string("body"));
  CHECK(sent == std::vector<std::string>{"job_4", "job_1", "job_3", "job_2", "job_0"});
}

TEST_CASE("a queue per tenant: each job goes to its tenant's queue, every worker fetches from all of them by weight",
          "[world]") {
  world_config c;
  c.seed = 5;
  c.workers = 2;
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.runtime.heartbeat_interval = duration::from_ms(400);  // renewed on the queue the message came from
  c.queue.visibility_timeout = duration::from_s(1);
  c.tenant_queues = tenant_queues_config{};
  // acme's burst of 20 arrives first, then one job of beta's and one with no tenant.
  for (int i = 1; i <= 20; ++i)
    c.jobs.push_back(
        job_spec{.id = "a_" + std::to_string(i), .steps = {{"model", "doc", 0}}, .tenant = "acme", .enqueue_at = {}});
  c.jobs.push_back(job_spec{.id = "b_1", .steps = {{"model", "doc", 0}}, .tenant = "beta", .enqueue_at = {}});
  c.jobs.push_back(job_spec{.id = "n_1", .steps = {{"model", "doc", 0}}, .tenant = "", .enqueue_at = {}});
  world w(c);
  REQUIRE(w.tenant_queue("acme") != nullptr);
  CHECK(w.tenant_queue("acme")->actor() == "queue/jobs-acme");
  CHECK(w.tenant_queue("nobody") == nullptr);
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  std::map<std::string, std::string> sent_to;
  for (const sim::trace_record* s : records_of(w, "send"))
    sent_to[std::string(s->get_string("body").value())] = s->actor;
  CHECK(sent_to.at("a_7") == "queue/jobs-acme");
  CHECK(sent_to.at("b_1") == "queue/jobs-beta");
  CHECK(sent_to.at("n_1") == "queue/jobs");
  // Each acked from the queue it came from, each heartbeat renewed there:
  // no lease expired, every job ran once.
  CHECK(records_of(w, "lease_expired").empty());
  CHECK(records_of(w, "lease_lost").empty());
  CHECK(records_of(w, "attempt_start").size() == 22);
  for (const sim::trace_record* a : records_of(w, "ack")) CHECK(a->get_string("status") == "ok");
  // beta and the untenanted job do not wait for acme's 20 s backlog: with
  // three queues of weight 1, a fetch looks at acme's first a third of the time.
  for (const sim::trace_record* s : records_of(w, "attempt_start"))
    if (s->get_string("job") == "b_1" || s->get_string("job") == "n_1")
      CHECK(s->time < instant::epoch() + duration::from_s(5));
}

TEST_CASE("a tenant's concurrency limit: no more of its slices at once, the rest given back, no attempt used",
          "[world]") {
  world_config c;
  c.seed = 3;
  c.workers = 4;
  c.model.latency = latency_model::fixed(duration::from_s(1));
  c.read.latency = latency_model::fixed(duration::from_ms(5));
  c.runtime.tenant_limit = tenant_limit_config{.concurrency = 2, .over_limit_delay = duration::from_ms(500)};
  for (int i = 1; i <= 6; ++i) {
    job_spec j{.id = "a_" + std::to_string(i), .steps = {{"model", "doc", 0}}, .tenant = "acme", .enqueue_at = {}};
    c.jobs.push_back(j);
  }
  c.jobs.push_back(job_spec{.id = "b_1", .steps = {{"model", "doc", 0}}, .tenant = "beta", .enqueue_at = {}});
  world w(c);
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  // Walk the slices in trace order: acme never has more than 2 running.
  int running = 0, most = 0;
  for (const sim::trace_record& e : w.events().records()) {
    const bool acme = e.get_string("job").value_or("").starts_with("a_");
    if (!acme) continue;
    if (e.kind == "attempt_start") most = std::max(most, ++running);
    if (e.kind == "slice_end") --running;
  }
  CHECK(most == 2);
  CHECK_FALSE(records_of(w, "tenant_over_limit").empty());
  // beta's job is not held behind acme's: it starts in the first round.
  for (const sim::trace_record* s : records_of(w, "attempt_start"))
    if (s->get_string("job") == "b_1") CHECK(s->time < instant::epoch() + duration::from_s(1));
  // A job given back used no attempt: each acme job ran once.
  CHECK(records_of(w, "attempt_start").size() == 7);
}

TEST_CASE("the queue's DelaySeconds hides every job message for that long", "[world]") {
  world_config c = double_refund_config(true);
  c.queue.delay = duration::from_s(5);
  world w(c);
  const world_result r = w.run();
  REQUIRE(r.all_jobs_ended);
  const auto sends = records_of(w, "send");
  const auto starts = records_of(w, "attempt_start");
  REQUIRE(!sends.empty());
  REQUIRE(!starts.empty());
  CHECK(sends[0]->get_int("delay_us") == duration::from_s(5).us());
  CHECK(starts[0]->time - sends[0]->time >= duration::from_s(5));
}

TEST_CASE("Sidekiq's BasicFetch: a crash loses the job it held; a hard shutdown pushes it back", "[world][sidekiq]") {
  // The double refund's world on a Sidekiq queue (held until the ack) and
  // its deploy turned into a worker crash at the same instant.
  world_config c = double_refund_config(false);
  c.queue.hold_until_ack = true;
  c.runtime.heartbeat_interval.reset();
  const sim::instant kill_at = c.deploys.at(0).at;
  c.deploys.clear();
  c.crashes.push_back(timed_crash{kill_at, 0, true});
  c.time_limit = duration::from_s(3600);
  world w(c);
  const world_result r = w.run();
  // Nothing brings the message back: the job stays open, its refund made once.
  CHECK_FALSE(r.all_jobs_ended);
  CHECK(records_of(w, "lost_with_process").size() == 1);
  CHECK(records_of(w, "lease_expired").empty());
  CHECK(w.payments().ledger().size() == 1);

  // The same world drained with a shutdown timeout shorter than the slice:
  // the job is pushed back and the next pod runs it again from the start.
  world_config drained = double_refund_config(false);
  drained.queue.hold_until_ack = true;
  drained.runtime.heartbeat_interval.reset();
  drained.deploys.at(0).strategy = deploy_strategy::drain;
  drained.runtime.shutdown_timeout = duration::from_ms(1);
  world d(drained);
  REQUIRE(d.run().all_jobs_ended);
  CHECK(records_of(d, "pushed_back").size() == 1);
  CHECK(d.payments().ledger().size() == 2);
}

TEST_CASE("Sidekiq: a job fetched by a pod already draining goes back to the head of the queue", "[world][sidekiq]") {
  // The pod is long-polling when SIGTERM comes at 1 s; the job arrives at 2 s
  // and the poll returns it to a pod that no longer runs jobs.
  world_config c = double_refund_config(false);
  c.queue.hold_until_ack = true;
  c.runtime.heartbeat_interval.reset();
  c.workers = 1;
  c.jobs.at(0).enqueue_at = sim::instant::epoch() + duration::from_s(2);
  c.deploys.at(0).at = sim::instant::epoch() + duration::from_s(1);
  c.deploys.at(0).strategy = deploy_strategy::drain;
  world w(c);
  REQUIRE(w.run().all_jobs_ended);
  const auto pushed = records_of(w, "pushed_back");
  REQUIRE(pushed.size() == 1);
  CHECK(pushed[0]->time == sim::instant::epoch() + duration::from_s(2));
  CHECK(records_of(w, "change_visibility").empty());
  CHECK(w.payments().ledger().size() == 1);
}
