// Worlds and fault schedules drawn at random: with the correct discipline
// (stable key passed to the vendor, checkpoint after success, heartbeats,
// capped jittered backoff, drain) every invariant holds; with one bug
// switched on, the invariant that exists to catch it breaks on some
// schedule, and rapidcheck shrinks that schedule until every fault left in
// it is needed.

#include <rapidcheck/catch.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/invariant_names.hpp"
#include <twice/testing/world_gen.hpp>

using namespace twice;
using namespace twice::testing;

namespace {

void assert_every_invariant_holds(const world_config& c) {
  for (const verdict& v : run_checked(c)) {
    RC_LOG() << v.name << ": " << v.detail << "\n";
    for (const std::string& e : v.evidence) RC_LOG() << "  " << e << "\n";
    RC_ASSERT(v.held);
  }
}

// One bug switch, the invariant that exists to catch it, and the schedules
// it is looked for in.
struct bug {
  std::string name;
  std::string_view invariant;
  void (*apply)(world_config&);
  rc::Gen<schedule> (*schedules)() = [] { return gen_schedule(); };
  bool deploy_optional = true;  // whether the schedules may lack a deploy
};

rc::Gen<schedule> rolling_kill_schedules() { return gen_deploy_schedule(deploy_strategy::rolling_kill); }

// Whether the bug's invariant holds on `s`.
bool invariant_holds(const bug& b, const schedule& s) {
  world_config c = correct_world(s, 7);
  b.apply(c);
  // Some bugs keep a job going forever (attempts reset, a rejected invoice
  // retried without end); every invariant here breaks, if it does, within
  // minutes, and shrinking runs hundreds of worlds.
  c.time_limit = sim::duration::from_s(15 * 60);
  return verdict_of(run_checked(c), b.invariant).held;
}

// `s` with one fault fewer, each way there is, named: every one of them is
// a single shrinking step of the schedule generators (an element dropped
// from a list of faults, an error rate shrunk to none, the deploy's maybe
// to nothing). Jobs are not among them: their count is drawn first and
// shrinking it draws the rest anew.
std::vector<std::pair<std::string, schedule>> one_fault_fewer(const schedule& s, bool deploy_optional) {
  std::vector<std::pair<std::string, schedule>> out;
  auto without = [&](auto field, std::size_t i, std::string what) {
    schedule fewer = s;
    auto& list = fewer.*field;
    list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    out.emplace_back(std::move(what), std::move(fewer));
  };
  for (std::size_t i = 0; i < s.faults.size(); ++i) without(&schedule::faults, i, "point fault " + std::to_string(i));
  for (std::size_t i = 0; i < s.queue_faults.size(); ++i)
    without(&schedule::queue_faults, i, "broker fault " + std::to_string(i));
  for (std::size_t i = 0; i < s.crashes.size(); ++i) without(&schedule::crashes, i, "timed crash " + std::to_string(i));
  for (std::size_t i = 0; i < s.bad_invoice_jobs.size(); ++i)
    without(&schedule::bad_invoice_jobs, i, "rejected invoice " + std::to_string(i));
  if (s.deploy_at_ms && deploy_optional) {
    schedule fewer = s;
    fewer.deploy_at_ms.reset();
    out.emplace_back("the deploy", std::move(fewer));
  }
  for (auto [rate, what] : {std::pair{&schedule::vendor_503_ppm, "503s"}, std::pair{&schedule::vendor_429_ppm, "429s"},
                            std::pair{&schedule::lost_response_ppm, "lost responses"}}) {
    if (s.*rate == 0) continue;
    schedule fewer = s;
    fewer.*rate = 0;
    out.emplace_back(std::string("the ") + what, std::move(fewer));
  }
  return out;
}

}  // namespace

TEST_CASE("the correct discipline keeps every invariant under random faults", "[properties][world]") {
  // Rejected invoices have the next two properties.
  rc::prop("every invariant holds", [] {
    const schedule s = *gen_schedule(rejections::none);
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    assert_every_invariant_holds(correct_world(s, seed));
  });
}

TEST_CASE("the correct discipline gives up on a rejected invoice", "[properties][world]") {
  rc::prop("every invariant holds with rejected invoices", [] {
    const schedule s = *gen_rejection_schedule();
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    assert_every_invariant_holds(correct_world(s, seed));
  });
}

// This property found two things (session 2), each shrunk to one or two jobs:
//  * a lost update in the runtime: a slice claiming a job on a row it read
//    before another slice's end committed brought the ended job back to
//    life (2 workers, a duplicate delivery and a stale ack; seed 353299).
//    Ending a job now revokes its lease token, so that claim is fenced off;
//  * an invariant that counted any new attempt after a 400 as a retry,
//    when a crash or an injected error before the failure was recorded
//    brings the message back by at-least-once delivery. It now flags a
//    retry decided because of the 4xx (a backoff naming it).
TEST_CASE("the correct discipline never retries a rejected invoice, whatever strikes", "[properties][world]") {
  rc::prop("every invariant holds with rejected invoices and any fault", [] {
    const schedule s = *gen_schedule(rejections::some);
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    assert_every_invariant_holds(correct_world(s, seed));
  });
}

// The world on an SQS FIFO queue, each job its own message group and
// deduplicated by its id. The broker's own faults (duplicate deliveries,
// lost deletes) are not asked there; crashes, kills and vendor faults are.
void make_fifo(world_config& c) {
  c.queue.fifo = true;
  c.message_group = message_group_source::job;
  c.deduplication = deduplication_source::job_id;
}

// With producer retries too (within the 5-minute interval), and a consumer
// keyed on the job row or on the messageId: deduplicated by the job's id,
// either is safe.
TEST_CASE("the correct discipline keeps every invariant on a FIFO queue", "[properties][world][fifo]") {
  rc::prop("every invariant holds on sqs_fifo", [] {
    const schedule s = *with_send_timeouts(gen_schedule(rejections::some));
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    const bool by_message = *rc::gen::arbitrary<bool>();
    world_config c = correct_world(s, seed);
    make_fifo(c);
    if (by_message) c.runtime.rules.work_id = work_id_mode::message;
    assert_every_invariant_holds(c);
  });
}

// The world on Sidekiq's BasicFetch, with Sidekiq's retry schedule (under
// the correct world's 10 s cap). No process may die mid-job there: BasicFetch
// loses the job it held (the bug below), so the schedules keep their errors
// and vendor faults and drop every crash, kill and deploy.
void make_sidekiq(world_config& c) {
  c.queue.hold_until_ack = true;
  c.runtime.heartbeat_interval.reset();
  c.runtime.retry.jitter = jitter_kind::sidekiq;
}

schedule without_process_deaths(schedule s) {
  std::erase_if(s.faults, [](const point_fault& f) { return f.action == point_action::crash; });
  s.crashes.clear();
  s.deploy_at_ms.reset();
  return s;
}

TEST_CASE("the correct discipline keeps every invariant on Sidekiq while no process dies mid-job",
          "[properties][world][sidekiq]") {
  rc::prop("every invariant holds on sidekiq", [] {
    const schedule s = without_process_deaths(*gen_schedule(rejections::some));
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    world_config c = correct_world(s, seed);
    make_sidekiq(c);
    assert_every_invariant_holds(c);
  });
}

// The world on Celery's Redis transport, with the settings that keep a task
// from being lost: acks_late (a worker that dies mid-task gets it back after
// the visibility timeout) and reject_on_worker_lost (a pool process that
// dies mid-task sends it back at once, instead of failing it), and a
// prefetch multiplier of 1, as Celery's docs advise with acks_late.
//
// With the default multiplier of 4 the property found (4 jobs, 1 worker, 3
// faults, seed 80832) a poison message starving its neighbours: a message
// whose ack crashed the worker every time it came back (a main-process
// crash at before_ack, matched again on every redelivery of the ended job)
// was reserved together with another job's message, both died with the
// worker, both were restored by the same sweep and reserved together again,
// the poison one first: the other job never ran again in 6 hours. With a
// multiplier of 1 the worker reserves nothing beyond the task it runs.
void make_celery(world_config& c) {
  c.queue.redis_ack_emulation = true;
  c.runtime.heartbeat_interval.reset();
  c.runtime.celery = celery_config{.acks_late = true, .prefetch_multiplier = 1, .reject_on_worker_lost = true};
}

TEST_CASE("the correct discipline keeps every invariant on Celery with acks_late", "[properties][world][celery]") {
  rc::prop("every invariant holds on celery_redis", [] {
    const schedule s = *gen_schedule(rejections::some);
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    world_config c = correct_world(s, seed);
    make_celery(c);
    assert_every_invariant_holds(c);
  });
}

// The world on a Pub/Sub subscription read with lease management (the
// client's default 5 s heartbeat: it extends by its own deadline, 10 s or
// more, whatever the subscription's), at-least-once (the broker faults
// apply) or exactly-once.
void make_pubsub(world_config& c) {
  c.queue.pubsub = true;
  c.queue.visibility_timeout = std::min(c.queue.visibility_timeout, max_ack_deadline);
  c.queue.visibility_timeout = std::max(c.queue.visibility_timeout, sim::duration::from_s(10));
  c.runtime.heartbeat_interval = sim::duration::from_s(5);
  c.runtime.max_lease_duration = sim::duration::from_s(3600);
}

TEST_CASE("the correct discipline keeps every invariant on Pub/Sub with lease management",
          "[properties][world][pubsub]") {
  rc::prop("every invariant holds on pubsub", [] {
    const schedule s = *gen_schedule(rejections::some);
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    const bool exactly_once = *rc::gen::arbitrary<bool>();
    world_config c = correct_world(s, seed);
    make_pubsub(c);
    if (exactly_once) c.queue.semantics = handle_semantics::strict;
    assert_every_invariant_holds(c);
  });
}

// The world on a Kafka topic read by a consumer group from the earliest
// offset, committing automatically (every 5 s) or after each record, with a
// retry in place. One record per poll: a drain waits for the whole batch a
// poll returned, and the deploy's grace period here fits one slice, not
// several (max.poll.records = 1 is also what Kafka's docs point to for
// long-running records).
void make_kafka(world_config& c, bool auto_commit) {
  c.runtime.heartbeat_interval.reset();
  kafka_config& k = c.runtime.kafka.emplace();
  k.reset_to_earliest = true;
  k.max_poll_records = 1;
  k.enable_auto_commit = auto_commit;
  k.manual_commit = kafka_manual_commit::per_record;
  c.runtime.rules.retry = retry_mode::in_slice;
}

// A fault at the commit of a record whose job had ended fires again on
// every redelivery of that record (an ended job's redelivery reuses its
// attempt number). The property found (4 jobs, 1 worker) what that does on
// Kafka, which counts no deliveries and keeps a partition in order: a
// consumer crash-looping on one record (a crash at before_ack), or retrying
// it in place without end (an error there, retry.maximum_attempts
// unlimited), while the records behind it never ran. That is Kafka's
// poison-record failure, real but not the discipline's to fix (bounded
// attempts trade it for a job dead-lettered after a lost response, which
// ledgers_agree then flags); here such a fault fires once, as a deploy or
// an OOM at that moment would.
schedule with_ack_faults_once(schedule s) {
  for (point_fault& f : s.faults)
    if (f.point == "before_ack" || f.point == "after_ack") f.max_times = 1;
  return s;
}

TEST_CASE("the correct discipline keeps every invariant on a Kafka consumer group", "[properties][world][kafka]") {
  rc::prop("every invariant holds on kafka", [] {
    const schedule s = with_ack_faults_once(*gen_schedule(rejections::some));
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    const bool auto_commit = *rc::gen::arbitrary<bool>();
    world_config c = correct_world(s, seed);
    make_kafka(c, auto_commit);
    assert_every_invariant_holds(c);
  });
}

TEST_CASE("a drain deploy needs no key to stay exactly once", "[properties][world]") {
  // The other half of the rolling-kill bug below: on the same deploy-only
  // schedules, with no idempotency key at all, draining lets every slice
  // finish, so nothing is paid twice.
  rc::prop("every invariant holds through a drain", [] {
    const schedule s = *gen_deploy_schedule(deploy_strategy::drain);
    const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
    world_config c = correct_world(s, seed);
    c.runtime.rules.key = key_mode::none;
    assert_every_invariant_holds(c);
  });
}

TEST_CASE("each bug is caught by its invariant on some schedule", "[properties][world]") {
  // rc::prop passes when the property holds for every case; here the
  // property is "the invariant holds despite the bug", which must FAIL
  // within the configured number of cases (checked with
  // rc::detail::checkTestable), and the shrunk counterexample must be small.
  namespace inv = invariant_name;
  const std::vector<bug> bugs{
      {"no key", inv::no_double_payment, [](world_config& c) { c.runtime.rules.key = key_mode::none; }},
      {"key per attempt", inv::no_double_payment, [](world_config& c) { c.runtime.rules.key = key_mode::per_attempt; }},
      {"key not sent to the vendor", inv::ledgers_agree,
       [](world_config& c) { c.runtime.rules.pass_key_to_vendor = false; }},
      {"checkpoint before the effect", inv::done_jobs_paid_in_full,
       [](world_config& c) { c.runtime.rules.checkpoint = checkpoint_mode::before_effect; }},
      {"non-retryable errors retried", inv::no_retry_of_non_retryable,
       [](world_config& c) { c.runtime.rules.retry_non_retryable = true; }},
      {"attempts reset on re-enqueue", inv::attempts_monotonic,
       [](world_config& c) { c.runtime.rules.reset_attempts_on_reenqueue = true; }},
      {"transaction held across the model call", inv::database_not_stalled,
       [](world_config& c) { c.runtime.rules.hold_transaction_across_model = true; }},
      {"backoff without a cap", inv::backoff_within_cap,
       [](world_config& c) { c.runtime.retry.maximum_interval = std::nullopt; }},
      // A rolling kill instead of a drain: killed slices that had already
      // paid pay again. Looked for without a key (the key would absorb it)
      // on deploy-only schedules; the drain property above is its contrast.
      // FIFO's exactly-once processing removes the broker's duplicates, not
      // the consumer's: a crash after the refund still refunds again.
      {"no key on a FIFO queue", inv::no_double_payment,
       [](world_config& c) {
         make_fifo(c);
         c.runtime.rules.key = key_mode::none;
       }},
      // A deduplication id that changes per retry, and a consumer keyed on
      // the messageId: a producer's retry is a second message, new work.
      {"FIFO deduplication id per send, consumer keyed on the message", inv::no_double_payment,
       [](world_config& c) {
         make_fifo(c);
         c.deduplication = deduplication_source::per_send;
         c.runtime.rules.work_id = work_id_mode::message;
       },
       [] { return with_send_timeouts(gen_schedule(rejections::some)); }},
      // Sidekiq's BasicFetch: a process that dies mid-job loses the job.
      {"Sidekiq's BasicFetch through a crash", inv::every_job_ends, make_sidekiq},
      // A Pub/Sub pull loop without lease management under a short deadline.
      {"Pub/Sub without lease management", inv::no_double_payment,
       [](world_config& c) {
         make_pubsub(c);
         c.runtime.heartbeat_interval.reset();
         c.runtime.max_lease_duration.reset();
         c.queue.visibility_timeout = sim::duration::from_s(10);
         c.runtime.rules.key = key_mode::none;
       }},
      // Celery's default ack, on receipt: a worker that dies mid-task loses it.
      {"Celery without acks_late through a crash", inv::every_job_ends,
       [](world_config& c) {
         make_celery(c);
         c.runtime.celery->acks_late = false;
       }},
      // Kafka: a whole poll's batch between two polls, against a poll
      // timeout shorter than it, and no key: the partition's next owner
      // runs what the first still runs.
      {"Kafka batch beyond max.poll.interval.ms", inv::no_double_payment,
       [](world_config& c) {
         make_kafka(c, true);
         c.runtime.kafka->max_poll_records = 500;
         c.runtime.kafka->group.max_poll_interval = sim::duration::from_s(2);
         c.runtime.rules.key = key_mode::none;
       }},
      {"rolling kill instead of a drain", inv::no_double_payment,
       [](world_config& c) { c.runtime.rules.key = key_mode::none; }, rolling_kill_schedules, false},
  };
  for (const bug& b : bugs) {
    INFO(b.name);
    // The smallest failing schedule seen while rapidcheck shrinks, and the
    // last: the shrunk counterexample (no smaller schedule rapidcheck tries
    // after it fails).
    std::size_t smallest = SIZE_MAX;
    std::optional<schedule> shrunk;
    const auto result = rc::detail::checkTestable([&] {
      const schedule s = *b.schedules();
      const bool held = invariant_holds(b, s);
      if (!held) {
        smallest = std::min(smallest, s.size());
        shrunk = s;
      }
      RC_ASSERT(held);
    });
    REQUIRE(result.template is<rc::detail::FailureResult>());
    REQUIRE(shrunk.has_value());
    // The shrunk counterexample, printed with the assertion (and by `-s`).
    INFO(result.template get<rc::detail::FailureResult>());
    INFO("smallest failing schedule: " << smallest << " jobs and faults (schedule::size)");
    if (rc::detail::configuration().testParams.disableShrinking) continue;
    // Small in the sense a reader needs: every fault left in it is needed.
    // That is what greedy shrinking guarantees (each of these schedules is
    // one shrinking step from the counterexample, so rapidcheck ran it and
    // saw the invariant hold), and it fails when a field cannot shrink (an
    // error rate drawn by rc::gen::element once kept three unneeded rates).
    // A bound on the size is not guaranteed: shrinking stops at the first
    // schedule whose every smaller neighbour holds, and where the failure
    // hangs on timing (a crash in a 10 ms window) that can be a world of
    // seven things whose smaller variants all shift the crash out of the
    // window. Typically it is two to four (schedule::size).
    for (const auto& [what, fewer] : one_fault_fewer(*shrunk, b.deploy_optional)) {
      INFO("the shrunk counterexample without " << what);
      CHECK(invariant_holds(b, fewer));
    }
  }
}
