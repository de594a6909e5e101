// Celery on its Redis transport against Celery's and kombu's own source
// (celery/celery@5dc781f0bd5f, celery/kombu@9ee8595b835c): one test case per
// row of tests/conformance/celery_redis_conformance.md. C1..C7 test the broker
// (queue_config::redis_ack_emulation) on its own; C8..C14 run whole worlds
// (runtime/celery_consumer.cpp) from scenario text.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "broker/queue.hpp"
#include "queue_world.hpp"
#include "scenario_run.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

queue_config redis_list() {
  queue_config c;
  c.name = "celery";
  c.redis_ack_emulation = true;
  c.visibility_timeout = sim::duration::from_s(3600);
  return c;
}

// A world on the Celery flavour; `queue_keys`: more lines of its [queue] table.
struct celery_run : test::scenario_run {
  explicit celery_run(const std::string& text, std::string_view queue_keys = {})
      : scenario_run("[queue]\nflavour = \"celery_redis\"\n" + std::string(queue_keys) + text) {}
};

// One refund job whose model step takes `model` (the default job: read,
// model, refund), on `workers` workers.
std::string refund_job(std::string_view model, int workers = 1) {
  return fmt::format(
      "[workers]\ncount = {}\n[discipline]\nkey = \"none\"\n[vendor]\nlatency = {{ fixed = \"300ms\" }}\n"
      "[tools.model]\nlatency = {{ fixed = \"{}\" }}\nclient_timeout = \"3h\"\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n",
      workers, model);
}

}  // namespace

TEST_CASE("C1 QoS.append and restore_visible: an unacked message is restored by the first sweep after its timeout",
          "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  w.run_until(at(sim::duration::from_s(50)));
  const received_message first = w.receive_now().at(0);  // taken at 50 s: due at 3650 s
  w.run_until(at(sim::duration::from_s(3650)));
  CHECK(w.receive_now().empty());  // past its timeout, but no sweep has run since
  w.run_until(at(sim::duration::from_s(3699)));
  CHECK(w.receive_now().empty());
  w.run_until(at(sim::duration::from_s(3700)));  // the sweep at 3700 s restores it
  const std::vector<received_message> again = w.receive_now();
  REQUIRE(again.size() == 1);
  CHECK(again[0].id == first.id);
  CHECK(again[0].receive_count == 2);
  CHECK(w.records("lease_expired").size() == 1);
}

TEST_CASE("C2 _do_restore_message RPUSH: a restored message is read before what was sent after it", "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  w.run_until(at(hours(2)));
  CHECK(w.receive_now().at(0).id == first.id);
  CHECK(w.receive_now().at(0).body == "job_2");
}

TEST_CASE("C3 QoS.ack: after a restore the old delivery's ack removes nothing", "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.run_until(at(hours(2)));
  CHECK(w.q.delete_message(first.handle) == queue_status::ok);  // restored, not yet taken again
  CHECK(w.q.size() == 1);
  const received_message second = w.receive_now().at(0);
  CHECK(w.q.delete_message(first.handle) == queue_status::ok);  // taken again by another consumer
  CHECK(w.q.size() == 1);
  CHECK(w.q.delete_message(second.handle) == queue_status::ok);  // the current delivery's ack
  CHECK(w.q.size() == 0);
}

TEST_CASE("C4 QoS.reject(requeue=True): the message is LPUSHed to the back", "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  w.run_until(at(sim::duration::from_s(1)));  // the order is by time: a send in the same microsecond ties
  CHECK(w.q.reject_requeue(first.handle) == queue_status::ok);
  CHECK(w.receive_now().at(0).body == "job_2");
  CHECK(w.receive_now().at(0).body == "job_1");
  CHECK(w.q.reject_requeue(first.handle) == queue_status::invalid_handle);  // a handle no longer held
}

TEST_CASE("C5 the Redis transport has no change of visibility: a lease cannot be extended", "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  CHECK(w.q.change_visibility(first.handle, sim::duration::from_s(7200)) == queue_status::invalid_parameter);
  // A receive cannot ask for its own timeout either: the transport's holds.
  w.q.send("job_2");
  const received_message second = w.receive_now(leased_for(hours(10))).at(0);
  w.run_until(at(hours(2)));
  CHECK(w.receive_now(at_most(2)).size() == 2);
  (void)second;
}

TEST_CASE("C6 a Redis list keeps its entries: no retention", "[celery]") {
  queue_testing::world w(redis_list());
  w.q.send("job_1");
  w.run_until(at(days(20)));
  CHECK(w.receive_now().at(0).body == "job_1");
  CHECK(w.records("retention_expired").empty());
}

TEST_CASE("C7 the ETA header travels with the message, through a restore", "[celery]") {
  queue_testing::world w(redis_list());
  send_request r;
  r.body = "job_1";
  r.eta = at(hours(3));
  const send_result sent = w.q.send_message(r);
  REQUIRE(sent.status == queue_status::ok);
  CHECK(w.receive_now().at(0).eta == at(hours(3)));
  w.run_until(at(hours(2)));
  CHECK(w.receive_now().at(0).eta == at(hours(3)));  // restored, and the ETA still holds
  // On an SQS queue an ETA is no parameter at all.
  queue_testing::world sqs;
  CHECK(sqs.q.send_message(r).status == queue_status::invalid_parameter);
}

TEST_CASE("C8 acks_late off (the default): a worker killed mid-task loses the task", "[celery][world]") {
  const celery_run run(refund_job("60s") + "[budget]\ntime_limit = \"3h\"\n[[crash]]\nat = \"30s\"\nworker = 0\n");
  CHECK_FALSE(run.result.all_jobs_ended);  // acked as it started: nothing brings it back
  CHECK(run.records("lease_expired").empty());
  CHECK(run.refunds() == 0);
}

TEST_CASE("C9 acks_late on: a worker killed mid-task gets it back after the visibility timeout and a sweep",
          "[celery][world]") {
  const celery_run run(refund_job("60s") +
                       "[celery]\nacks_late = true\n[budget]\ntime_limit = \"3h\"\n"
                       "[[crash]]\nat = \"30s\"\nworker = 0\n");
  REQUIRE(run.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> restored = run.records("lease_expired");
  REQUIRE(restored.size() == 1);
  CHECK(restored[0]->time == sim::instant::epoch() + sim::duration::from_s(3600));  // taken at 0 s: the 3600 s sweep
  CHECK(run.records("attempt_start").size() == 2);
  CHECK(run.refunds() == 1);
}

namespace {

// Two slow jobs and three quick ones, sent in that order to two workers
// with acks_late. Worker 0 takes slow_0 and, with the default prefetch
// multiplier of 4, reserves slow_1, q_2 and q_3 behind it; worker 1 takes
// only q_4, then idles.
std::string hoarding_world(int prefetch_multiplier) {
  return fmt::format(
      "[workers]\ncount = 2\n[celery]\nacks_late = true\nprefetch_multiplier = {}\n[budget]\ntime_limit = \"5h\"\n"
      "[tools.model]\nlatency = {{ fixed = \"50m\" }}\nclient_timeout = \"3h\"\n"
      "[[job_type]]\nname = \"slow\"\nsteps = [{{ tool = \"model\", target = \"m_{{job}}\" }}]\n"
      "[[job_type]]\nname = \"quick\"\nsteps = [{{ tool = \"read\", target = \"r_{{job}}\" }}]\n"
      "[[job]]\nid = \"slow_0\"\ntype = \"slow\"\n[[job]]\nid = \"slow_1\"\ntype = \"slow\"\n"
      "[[job]]\nid = \"q_2\"\ntype = \"quick\"\n[[job]]\nid = \"q_3\"\ntype = \"quick\"\n"
      "[[job]]\nid = \"q_4\"\ntype = \"quick\"\n",
      prefetch_multiplier);
}

std::vector<const sim::trace_record*> starts_of(const celery_run& run, std::string_view job) {
  std::vector<const sim::trace_record*> out;
  for (const sim::trace_record* r : run.records("attempt_start"))
    if (r->get_string("job") == job) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("C10 prefetch: reserved messages wait behind a long task, and their timeout runs from the reservation",
          "[celery][world]") {
  const celery_run hoarded(hoarding_world(4));
  REQUIRE(hoarded.result.all_jobs_ended);
  // The quick jobs wait in worker 0's buffer for 100 minutes while worker 1 idles.
  CHECK(starts_of(hoarded, "q_2").at(0)->time > sim::instant::epoch() + sim::duration::from_s(3600));
  // slow_1 started on worker 0 at 3000 s; reserved at 0 s, its timeout ran
  // out at 3600 s, and worker 1 ran it again while worker 0 still did.
  const std::vector<const sim::trace_record*> slow_1 = starts_of(hoarded, "slow_1");
  REQUIRE(slow_1.size() == 2);
  CHECK(slow_1[0]->actor != slow_1[1]->actor);
  CHECK(slow_1[1]->time - slow_1[0]->time < sim::duration::from_s(3000));  // overlapping 50-minute runs
  // Prefetch 1 (Celery's advice for long tasks with acks_late): nothing is reserved behind a task.
  const celery_run fair(hoarding_world(1));
  REQUIRE(fair.result.all_jobs_ended);
  CHECK(fair.records("lease_expired").empty());
  CHECK(starts_of(fair, "slow_1").size() == 1);
  CHECK(starts_of(fair, "q_2").at(0)->time < sim::instant::epoch() + sim::duration::from_s(3001));
}

TEST_CASE("C11 an ETA beyond the visibility timeout runs on two workers at once", "[celery][world]") {
  const std::string outage =
      "[[vendor.outage]]\nstart = \"0s\"\nend = \"30m\"\n[budget]\ntime_limit = \"4h\"\n"
      "[retry]\ninitial_interval = \"2h\"\nmaximum_interval = \"2h\"\n";
  const celery_run broken(refund_job("1s", 3) + outage);
  REQUIRE(broken.result.all_jobs_ended);
  CHECK(broken.records("eta_held").size() == 2);  // the first worker's hold, then the restored copy's
  CHECK(broken.refunds() == 2);
  const celery_run fixed(refund_job("1s", 3) + outage, "visibility_timeout = \"3h\"\n");
  CHECK(fixed.records("eta_held").size() == 1);
  CHECK(fixed.refunds() == 1);
}

TEST_CASE("C12 WorkerLostError: acked and failed, or with acks_late and reject_on_worker_lost requeued",
          "[celery][world]") {
  const std::string crash_after_refund =
      "[[fault]]\npoint = \"after_tool\"\ntool = \"refund\"\nattempt = 0\naction = \"crash\"\n";
  const celery_run early(refund_job("1s") + crash_after_refund);
  REQUIRE(early.result.all_jobs_ended);
  CHECK(early.status_of("job_1") == job_status::failed);
  REQUIRE(early.records("worker_lost").size() == 1);
  CHECK_FALSE(early.records("worker_lost")[0]->get_bool("requeued").value_or(true));
  CHECK(early.records("crash").empty());  // the worker's main process lives on
  CHECK(early.refunds() == 1);
  const celery_run requeued(refund_job("1s") + crash_after_refund +
                            "[celery]\nacks_late = true\nreject_on_worker_lost = true\n");
  REQUIRE(requeued.result.all_jobs_ended);
  CHECK(requeued.status_of("job_1") == job_status::done);
  CHECK(requeued.records("worker_lost")[0]->get_bool("requeued").value_or(false));
  CHECK(requeued.refunds() == 2);  // run again from the start, with no key
}

TEST_CASE("C13 Task.retry: a new message with the countdown as its ETA, the old one acked", "[celery][world]") {
  const celery_run run(refund_job("1s") + "[[vendor.outage]]\nstart = \"0s\"\nend = \"2m\"\n");
  REQUIRE(run.result.all_jobs_ended);
  // Celery's default: 3 minutes, fixed.
  const std::vector<const sim::trace_record*> sends = run.records("send");
  REQUIRE(sends.size() == 2);
  const std::vector<const sim::trace_record*> starts = run.records("attempt_start");
  REQUIRE(starts.size() == 2);
  // The ETA, then the worker's claim of the job row.
  CHECK(starts[1]->time - sends[1]->time >= sim::duration::from_s(180));
  CHECK(starts[1]->time - sends[1]->time < sim::duration::from_s(181));
  CHECK(run.records("eta_held").size() == 1);
  CHECK(run.refunds() == 1);
}

TEST_CASE(
    "C14 warm shutdown: reserved messages go back when the running task ends; a kill leaves them to the "
    "timeout",
    "[celery][world]") {
  // One worker with acks_late runs a (20 s) with b and c reserved; SIGTERM at 5 s.
  const std::string three_jobs =
      "[workers]\ncount = 1\n[celery]\nacks_late = true\n[budget]\ntime_limit = \"3h\"\n"
      "[tools.model]\nlatency = { fixed = \"20s\" }\n"
      "[[job_type]]\nname = \"think\"\nsteps = [{ tool = \"model\", target = \"m_{job}\" }]\n"
      "[[job]]\nid = \"a\"\ntype = \"think\"\n[[job]]\nid = \"b\"\ntype = \"think\"\n"
      "[[job]]\nid = \"c\"\ntype = \"think\"\n";
  const std::string deploy = "[[deploy]]\nat = \"5s\"\nsha = \"v2\"\ngrace_period = \"60s\"\nstartup = \"5s\"\n";
  const celery_run drained(three_jobs + deploy + "strategy = \"drain\"\n");
  REQUIRE(drained.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> back = drained.records("pushed_back");
  REQUIRE(back.size() == 2);
  CHECK(back[0]->time == sim::instant::epoch() + sim::duration::from_s(20) + sim::duration::from_ms(14));
  CHECK(drained.records("lease_expired").empty());
  CHECK(drained.result.story_end < sim::instant::epoch() + sim::duration::from_s(90));
  const celery_run killed(three_jobs + deploy + "strategy = \"rolling_kill\"\n");
  REQUIRE(killed.result.all_jobs_ended);
  CHECK(killed.records("pushed_back").empty());
  CHECK(killed.records("lease_expired").size() == 3);  // a, b and c wait for the 3600 s sweep
  CHECK(killed.result.story_end > sim::instant::epoch() + sim::duration::from_s(3600));
}

TEST_CASE("C16 QoS.restore_unacked RPUSHes in delivery order: the last reserved is read first, ahead of the list",
          "[celery]") {
  // kombu's restore_unacked walks _delivered (an OrderedDict, in delivery
  // order) and RPUSHes each to the end BRPOP reads, so the last one pushed,
  // the last reserved, comes out first; all of them before what waited.
  queue_testing::world w(redis_list());
  for (const char* job : {"job_1", "job_2", "job_3", "job_4"}) w.q.send(job);
  const std::vector<received_message> reserved = w.receive_now(at_most(3));
  REQUIRE(reserved.size() == 3);
  w.run_until(at(sim::duration::from_s(5)));
  for (const received_message& m : reserved) CHECK(w.q.requeue_held(m.handle) == queue_status::ok);
  std::vector<std::string> read;
  for (const received_message& m : w.receive_now(at_most(4))) read.push_back(m.body);
  CHECK(read == std::vector<std::string>{"job_3", "job_2", "job_1", "job_4"});
}

TEST_CASE("C16 warm shutdown in a world: the next worker runs the last reserved task first", "[celery][world]") {
  // One worker with acks_late runs a (20 s) with b, c and d reserved (prefetch
  // 4, the running task's slot included); SIGTERM at 5 s restores b, c, d.
  const std::string four_jobs =
      "[workers]\ncount = 1\n[celery]\nacks_late = true\n[budget]\ntime_limit = \"3h\"\n"
      "[tools.model]\nlatency = { fixed = \"20s\" }\n"
      "[[job_type]]\nname = \"think\"\nsteps = [{ tool = \"model\", target = \"m_{job}\" }]\n"
      "[[job]]\nid = \"a\"\ntype = \"think\"\n[[job]]\nid = \"b\"\ntype = \"think\"\n"
      "[[job]]\nid = \"c\"\ntype = \"think\"\n[[job]]\nid = \"d\"\ntype = \"think\"\n"
      "[[deploy]]\nat = \"5s\"\nsha = \"v2\"\ngrace_period = \"60s\"\nstartup = \"5s\"\nstrategy = \"drain\"\n";
  const celery_run drained(four_jobs);
  REQUIRE(drained.result.all_jobs_ended);
  REQUIRE(drained.records("pushed_back").size() == 3);
  std::vector<std::string> started;
  for (const sim::trace_record* r : drained.records("attempt_start"))
    started.emplace_back(r->get_string("job").value_or(""));
  CHECK(started == std::vector<std::string>{"a", "d", "c", "b"});
}
