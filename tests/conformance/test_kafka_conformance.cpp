// A Kafka topic, consumer group and the Java client's poll loop against
// Kafka's own source and documentation (apache/kafka@1eb7644349cb) and
// Spring Kafka's (spring-projects/spring-kafka@3f3cf7d88cd5): one test case
// per row of tests/conformance/kafka_conformance.md. K1..K3 and K8 test the topic and
// the group on their own; the others run whole worlds from scenario text.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "broker/consumer_lag.hpp"
#include "cli/run_command.hpp"
#include <twice/events/event_log.hpp>
#include "broker/consumer_group.hpp"
#include "broker/kafka_topic.hpp"
#include "scenario_run.hpp"
#include "test_files.hpp"
#include <twice/sim/sleep.hpp>

using namespace twice;

namespace {

sim::instant at_s(std::int64_t s) { return sim::instant::epoch() + sim::duration::from_s(s); }

// A group on its own kernel, and consumers that join it.
struct group_world {
  sim::kernel k;
  event_log events{k};
  consumer_group group;
  explicit group_world(consumer_group_config c) : group(k, events, std::move(c)) {}

  // JoinGroup at `when` as a new member; `joined` is set once the rebalance ended.
  struct joiner {
    std::string member;
    bool joined = false;
    sim::instant joined_at;
  };
  static sim::task<void> join_at(sim::kernel& k, consumer_group& g, sim::instant when, std::string consumer,
                                 joiner& out) {
    if (k.now() < when) co_await sim::sleep_until(when);
    out.member = g.join_new(consumer);
    out.joined = co_await g.join(out.member);
    out.joined_at = k.now();
  }
  void spawn_join(sim::instant when, std::string consumer, joiner& out) {
    k.spawn(join_at(k, group, when, std::move(consumer), out));
  }
  void run_until(sim::instant t) { k.run({.until = t}); }
  std::vector<const sim::trace_record*> records(std::string_view kind) const {
    std::vector<const sim::trace_record*> out;
    for (const sim::trace_record& r : events.records())
      if (r.kind == kind) out.push_back(&r);
    return out;
  }
};

consumer_group_config partitions(std::uint32_t n) {
  consumer_group_config c;
  c.partitions = n;
  return c;
}

// A world on the Kafka flavour, reading from the earliest offset.
struct kafka_run : test::scenario_run {
  explicit kafka_run(const std::string& text, std::string_view kafka_keys = "auto_offset_reset = \"earliest\"\n")
      : scenario_run("[queue]\nflavour = \"kafka\"\n[kafka]\n" + std::string(kafka_keys) + text) {}
  std::vector<const sim::trace_record*> fetched(std::string_view job) const {
    std::vector<const sim::trace_record*> out;
    for (const sim::trace_record* r : records("fetched"))
      if (r->get_string("body") == job) out.push_back(r);
    return out;
  }
};

// Refund jobs of about 1.3 s each (a 1 s model, a 300 ms refund), no key.
std::string quick_jobs(int count, std::string_view more = {}) {
  std::string text = fmt::format(
      "{}[discipline]\nkey = \"none\"\n[vendor]\nlatency = {{ fixed = \"300ms\" }}\n"
      "[tools.model]\nlatency = {{ fixed = \"1s\" }}\n[tools.read]\nlatency = {{ fixed = \"1ms\" }}\n",
      more);
  for (int i = 1; i <= count; ++i)
    text += fmt::format("[[job]]\nid = \"job_{}\"\ninvoice = \"inv_{}\"\namount_cents = 1999\n", i, i);
  return text;
}

using twice::test::catalogue;

}  // namespace

TEST_CASE("K1 the default partitioner: toPositive(murmur2(key)) % partitions, as the Java producer computes it",
          "[kafka]") {
  // apache/kafka UtilsTest.testMurmur2.
  CHECK(kafka_murmur2("21") == -973932308);
  CHECK(kafka_murmur2("foobar") == -790332482);
  CHECK(kafka_murmur2("a-little-bit-long-string") == -985981536);
  CHECK(kafka_murmur2("a-little-bit-longer-string") == -1486304829);
  CHECK(kafka_murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971);
  CHECK(kafka_murmur2("abc") == 479470107);
  CHECK(kafka_partition_for("foobar", 7) == static_cast<std::uint32_t>(-790332482 & 0x7fffffff) % 7);
  // A job's records land in one partition, in the order sent.
  sim::kernel k;
  event_log events{k};
  queue_id_source ids;
  kafka_topic topic(k, events, ids, "jobs", 4);
  const auto first = topic.produce("job_7");
  const auto again = topic.produce("job_7");
  CHECK(first.partition == again.partition);
  CHECK(again.offset == first.offset + 1);
  CHECK(topic.end_offset(first.partition) == 2);
}

TEST_CASE("K2 RangeAssignor: members in id order, partitions/members each, the first partitions % members one more",
          "[kafka]") {
  group_world g(partitions(7));
  group_world::joiner a, b, c;
  g.spawn_join(at_s(0), "c0", a);
  g.spawn_join(at_s(0), "c1", b);
  g.spawn_join(at_s(0), "c2", c);
  g.run_until(at_s(10));
  REQUIRE((a.joined && b.joined && c.joined));
  CHECK(g.group.assignment(a.member) == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(g.group.assignment(b.member) == std::vector<std::uint32_t>{3, 4});
  CHECK(g.group.assignment(c.member) == std::vector<std::uint32_t>{5, 6});
  // More members than partitions: the last get none.
  group_world small(partitions(1));
  group_world::joiner x, y;
  small.spawn_join(at_s(0), "c0", x);
  small.spawn_join(at_s(0), "c1", y);
  small.run_until(at_s(10));
  CHECK(small.group.assignment(x.member) == std::vector<std::uint32_t>{0});
  CHECK(small.group.assignment(y.member).empty());
}

TEST_CASE(
    "K3 group.initial.rebalance.delay.ms: a new group's first join waits 3 s, and 3 s more after any join in them",
    "[kafka]") {
  group_world g(partitions(2));
  group_world::joiner a, b;
  g.spawn_join(at_s(0), "c0", a);
  g.spawn_join(at_s(2), "c1", b);
  g.run_until(at_s(60));
  REQUIRE((a.joined && b.joined));
  CHECK(a.joined_at == at_s(6));  // c1 joined within the first 3 s: another 3 s
  CHECK(b.joined_at == at_s(6));
  CHECK(g.group.generation() == 1);
}

TEST_CASE(
    "K4 max.poll.interval.ms: a member slow between two polls leaves, and the next owner re-reads from the "
    "last commit while it still runs",
    "[kafka]") {
  test::scenario_run broken(catalogue("kafka_max_poll_interval.toml"));
  const auto removed = broken.records("member_removed");
  REQUIRE(removed.size() >= 1);
  CHECK(removed[0]->time == at_s(306));  // the poll at 6 s (the two joins delay the first join twice), plus 5 minutes
  CHECK(removed[0]->get_string("reason").value_or("").find("poll timeout") == 0);
  CHECK(broken.refunds() == 6);  // job_3 and job_4 twice
  bool failed_commit = false;
  for (const sim::trace_record* r : broken.records("offset_commit"))
    failed_commit = failed_commit || r->get_string("status") == "commit_failed";
  CHECK(failed_commit);
  test::scenario_run fixed(catalogue("kafka_max_poll_interval_fixed.toml"));
  CHECK(fixed.records("member_removed").empty());
  CHECK(fixed.refunds() == 4);
}

TEST_CASE(
    "K5 session.timeout.ms: a crashed member's partitions move once its session expires; the rebalance waits "
    "for it",
    "[kafka]") {
  // worker/0 owns the partition and crashes at 10 s, mid-job (a 60 s model
  // call); its pod is back at 20 s and joins as a new member. The group
  // waits for the dead member until its session ends: the last heartbeat
  // went at 9 s (every 3 s from its join at 0), so at 54 s.
  kafka_run run(
      "[workers]\ncount = 2\n[discipline]\nkey = \"none\"\n[tools.model]\nlatency = { fixed = \"60s\" }\n"
      "client_timeout = \"2m\"\n[[crash]]\nat = \"10s\"\nworker = 0\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n");
  const auto removed = run.records("member_removed");
  REQUIRE(removed.size() == 1);
  CHECK(removed[0]->get_string("member") == "worker/0#1");
  CHECK(removed[0]->get_string("reason") == "session timeout (no heartbeat)");
  CHECK(removed[0]->time == at_s(54));
  const auto fetched = run.fetched("job_1");
  REQUIRE(fetched.size() == 2);
  CHECK(fetched[1]->time == at_s(54));
  CHECK(fetched[1]->get_int("generation") == 2);
  CHECK(run.status_of("job_1") == job_status::done);
}

TEST_CASE(
    "K6 auto-commit: positions are committed at a poll once 5 s have passed, so a crash re-reads what was "
    "processed since",
    "[kafka]") {
  // One consumer; the first assignment at 3 s hands it all three records.
  // It crashes at 6 s, during job_3: nothing is committed yet (the commit
  // waits for its next poll), so its new member re-reads all three.
  kafka_run run(quick_jobs(3, "[workers]\ncount = 1\n[[crash]]\nat = \"6s\"\nworker = 0\n"));
  const auto commits = run.records("offset_commit");
  REQUIRE(!commits.empty());
  CHECK(commits.front()->time > at_s(6));  // nothing before the crash
  CHECK(commits.back()->get_int("offset") == 3);
  CHECK(run.fetched("job_1").size() == 2);
  CHECK(run.fetched("job_3").size() == 2);
  CHECK(run.records("already_ended").size() == 2);  // job_1 and job_2, absorbed by their rows
  CHECK(run.refunds() == 3);
}

TEST_CASE("K7 commitSync after each record: a crash re-reads only the record in flight", "[kafka]") {
  kafka_run run(quick_jobs(3, "[workers]\ncount = 1\n[[crash]]\nat = \"6s\"\nworker = 0\n"),
                "auto_offset_reset = \"earliest\"\nenable_auto_commit = false\ncommit = \"per_record\"\n");
  CHECK(run.fetched("job_1").size() == 1);
  CHECK(run.fetched("job_2").size() == 1);
  CHECK(run.fetched("job_3").size() == 2);
  CHECK(run.records("already_ended").empty());
  CHECK(run.refunds() == 3);
  // After each batch (Spring's AckMode BATCH): the crash mid-batch re-reads the whole batch.
  kafka_run per_batch(quick_jobs(3, "[workers]\ncount = 1\n[[crash]]\nat = \"6s\"\nworker = 0\n"),
                      "auto_offset_reset = \"earliest\"\nenable_auto_commit = false\n");
  CHECK(per_batch.fetched("job_1").size() == 2);
  CHECK(per_batch.records("already_ended").size() == 2);
}

TEST_CASE(
    "K18 librdkafka's background auto-commit commits the offset stored as poll hands a record over, so a "
    "crash mid-record loses it; stored after the record ran, it is read again",
    "[kafka]") {
  // One record whose model call takes 8 s; the pod dies at 9 s, in it. The
  // group's first assignment is at 3 s.
  const std::string story =
      "[workers]\ncount = 1\n[vendor]\nlatency = { fixed = \"300ms\" }\n[tools.model]\nlatency = { fixed = \"8s\" }\n"
      "[tools.read]\nlatency = { fixed = \"1ms\" }\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n"
      "[[crash]]\nat = \"9s\"\nworker = 0\n[budget]\ntime_limit = \"10m\"\n";
  const std::string earliest = "auto_offset_reset = \"earliest\"\n";
  // enable.auto.offset.store (the default): the thread's commit at 5 s
  // takes offset 1 while job_1 runs; the new member starts past it.
  kafka_run early(story, earliest + "client = \"librdkafka\"\n");
  const auto commits = early.records("offset_commit");
  REQUIRE(!commits.empty());
  CHECK(commits.front()->time == at_s(5));
  CHECK(commits.front()->get_int("offset") == 1);
  CHECK(early.fetched("job_1").size() == 1);
  CHECK(early.refunds() == 0);
  CHECK(early.records("job_done").empty());
  CHECK(early.status_of("job_1") == job_status::running);
  // Stored after the record ran: nothing is committed before the crash, and
  // the new member reads job_1 again.
  kafka_run after(story, earliest + "client = \"librdkafka\"\nenable_auto_offset_store = false\n");
  for (const sim::trace_record* c : after.records("offset_commit")) CHECK(c->time > at_s(9));
  CHECK(after.fetched("job_1").size() == 2);
  CHECK(after.refunds() == 1);
  // The Java client commits inside poll only, after the record ran.
  kafka_run java(story, earliest);
  CHECK(java.fetched("job_1").size() == 2);
  CHECK(java.refunds() == 1);
}

TEST_CASE(
    "K8 offset commits: accepted from the current generation, also while a rebalance prepares; refused once "
    "the member is out",
    "[kafka]") {
  consumer_group_config c = partitions(1);
  c.initial_rebalance_delay = sim::duration::zero();
  group_world g(c);
  group_world::joiner a, b;
  g.spawn_join(at_s(0), "c0", a);
  g.run_until(at_s(1));
  REQUIRE(a.joined);
  CHECK(g.group.commit(a.member, 1, 0, 5) == offset_commit_status::ok);
  // b joins: a rebalance begins; a is busy and does not rejoin.
  g.spawn_join(at_s(10), "c1", b);
  g.run_until(at_s(11));
  CHECK(g.group.needs_join(a.member));
  // GroupCoordinator.scala: "During PreparingRebalance phase, we still allow a commit request".
  CHECK(g.group.commit(a.member, 1, 0, 7) == offset_commit_status::ok);
  CHECK(g.group.committed(0) == 7);
  // K9: the group waits for a up to the rebalance timeout (max.poll.interval.ms), then goes on without it.
  g.run_until(at_s(309));
  CHECK_FALSE(b.joined);
  g.run_until(at_s(311));
  CHECK(b.joined);
  CHECK(b.joined_at == at_s(310));
  CHECK_FALSE(g.group.is_member(a.member));
  CHECK(g.group.assignment(b.member) == std::vector<std::uint32_t>{0});
  CHECK(g.group.commit(a.member, 1, 0, 9) == offset_commit_status::commit_failed);
  CHECK(g.group.committed(0) == 7);
}

TEST_CASE(
    "K16 a rebalance timeout of the client's own: a member busy past it holds the group, then is removed and "
    "its record re-read",
    "[kafka]") {
  // The group on its own: a is busy (its poll returned at 1 s), b joins at
  // 10 s. The rebalance waits for a 60 s (Sarama's and kafkajs's default),
  // not max.poll.interval.ms (5 minutes), then goes on without it.
  consumer_group_config c = partitions(1);
  c.initial_rebalance_delay = sim::duration::zero();
  c.rebalance_timeout = sim::duration::from_s(60);
  group_world g(c);
  group_world::joiner a, b;
  g.spawn_join(at_s(0), "c0", a);
  g.run_until(at_s(1));
  REQUIRE(a.joined);
  g.group.poll_returned(a.member);
  g.spawn_join(at_s(10), "c1", b);
  g.run_until(at_s(69));
  CHECK_FALSE(b.joined);
  CHECK(g.group.is_member(a.member));
  g.run_until(at_s(71));
  REQUIRE(b.joined);
  CHECK(b.joined_at == at_s(70));
  CHECK_FALSE(g.group.is_member(a.member));
  const auto removed = g.records("member_removed");
  REQUIRE(removed.size() == 1);
  CHECK(removed[0]->get_string("reason") == "did not rejoin within the rebalance timeout");
  CHECK(g.group.assignment(b.member) == std::vector<std::uint32_t>{0});

  // The catalogue pair: worker/1's pod restarts and rejoins at 40 s while
  // worker/0 runs a 2-minute record; at 100 s worker/0 is out and worker/1
  // runs the same record again. With a timeout above the record, the group
  // waits for worker/0, which commits before it rejoins: nothing is re-read.
  test::scenario_run broken(catalogue("kafka_rebalance_timeout.toml"));
  const auto kicked = broken.records("member_removed");
  bool timed_out = false;
  for (const sim::trace_record* r : kicked)
    timed_out = timed_out || (r->get_string("member") == "worker/0#1" &&
                              r->get_string("reason") == "did not rejoin within the rebalance timeout");
  CHECK(timed_out);
  CHECK(broken.refunds() > 3);
  test::scenario_run fixed(catalogue("kafka_rebalance_timeout_fixed.toml"));
  for (const sim::trace_record* r : fixed.records("member_removed"))
    CHECK(r->get_string("reason") != "did not rejoin within the rebalance timeout");
  CHECK(fixed.refunds() == 3);
}

TEST_CASE("K10 a drain: the batch finishes, close() commits and leaves, and the group rebalances at once", "[kafka]") {
  // One consumer, three quick jobs; a deploy drains it at 4 s, mid-batch.
  kafka_run run(quick_jobs(3,
                           "[workers]\ncount = 1\n[[deploy]]\nat = \"4s\"\nsha = \"v2\"\nstrategy = \"drain\"\n"
                           "grace_period = \"30s\"\nstartup = \"5s\"\n"));
  const auto removed = run.records("member_removed");
  REQUIRE(removed.size() == 1);
  CHECK(removed[0]->get_string("reason") == "left the group");
  // The batch ran to its end before the close: every job once, nothing re-read.
  CHECK(run.fetched("job_3").size() == 1);
  CHECK(run.refunds() == 3);
  const auto commits = run.records("offset_commit");
  REQUIRE(!commits.empty());
  CHECK(commits[0]->get_int("offset") == 3);
  CHECK(commits[0]->time <= removed[0]->time);
  CHECK(run.result.all_jobs_ended);
}

TEST_CASE("K15 close() during a rebalance still leaves the group: the group does not wait out the session", "[kafka]") {
  // Three consumers, two partitions, every job's record on partition 1:
  // worker/0 owns partition 0 (nothing to read), worker/1 partition 1 (a
  // batch of three 40 s jobs), worker/2 none. worker/2 crashes at 10 s
  // for good; its session ends at 54 s and a rebalance begins, which waits
  // for worker/1's batch. worker/0 rejoins at once and waits in poll. A
  // drain reaches it at 60 s, mid-rebalance: the Java client's wakeup()
  // breaks the poll and close() sends LeaveGroup.
  std::string jobs;
  int found = 0;
  for (int i = 1; found < 3; ++i) {
    const std::string id = fmt::format("job_{}", i);
    if (kafka_partition_for(id, 2) != 1) continue;
    ++found;
    jobs += fmt::format("[[job]]\nid = \"{}\"\ninvoice = \"inv_{}\"\namount_cents = 1999\n", id, i);
  }
  kafka_run run(
      "partitions = 2\n[workers]\ncount = 3\n[discipline]\nkey = \"none\"\n[vendor]\n"
      "latency = { fixed = \"300ms\" }\n[tools.model]\nlatency = { fixed = \"40s\" }\nclient_timeout = \"2m\"\n"
      "[[crash]]\nat = \"10s\"\nworker = 2\nrestart = false\n"
      "[[deploy]]\nat = \"60s\"\nstrategy = \"drain\"\ngrace_period = \"10m\"\n" +
      jobs);
  REQUIRE(run.result.all_jobs_ended);
  const sim::trace_record* left = nullptr;
  bool rebalancing = false, left_mid_rebalance = false;
  for (const sim::trace_record& r : run.w->events().records()) {
    if (r.kind == "rebalance_start") rebalancing = true;
    if (r.kind == "partitions_assigned") rebalancing = false;
    if (r.kind == "member_removed" && r.get_string("member") == "worker/0#1" && left == nullptr) {
      left = &r;
      left_mid_rebalance = rebalancing;
    }
  }
  REQUIRE(left != nullptr);
  CHECK(left->get_string("reason") == "left the group");
  CHECK(left->time == at_s(60));  // at the drain, not a session (45 s) after the pod's end
  CHECK(left_mid_rebalance);
  CHECK(run.refunds() == 3);
}

TEST_CASE(
    "the story's end stops every pod and the group: nothing rebalances after, and no pod that stopped cleanly "
    "failed to rejoin",
    "[kafka]") {
  // kafka_max_poll_interval with a fifth job: the story ends while a
  // rebalance waits for worker/1 (busy with its batch), whose pod the end
  // then stops, with every other.
  test::scenario_run run(catalogue("kafka_max_poll_interval.toml") +
                         "\n[[job]]\nid = \"job_5\"\ninvoice = \"inv_5\"\namount_cents = 1999\n");
  REQUIRE(run.result.all_jobs_ended);
  bool ended = false, rebalancing = false;
  for (const sim::trace_record& r : run.w->events().records()) {
    if (r.kind == "all_jobs_ended") ended = true;
    if (r.kind == "rebalance_start") rebalancing = true;
    if (r.kind == "partitions_assigned") rebalancing = false;
    INFO(r.time.us() << " " << r.actor << " " << r.kind);
    if (ended) CHECK_FALSE(r.actor.starts_with("group/"));
    const std::string reason(r.get_string("reason").value_or(""));
    CHECK(reason.find("did not rejoin") == std::string::npos);
  }
  CHECK(rebalancing);  // the story did end mid-rebalance
}

TEST_CASE("K11 auto.offset.reset: latest (the default) skips what was sent before the group's first assignment",
          "[kafka]") {
  kafka_run latest(quick_jobs(2, "[workers]\ncount = 1\n[budget]\ntime_limit = \"2m\"\n"), "");
  CHECK(latest.records("fetched").empty());
  CHECK_FALSE(latest.result.all_jobs_ended);
  CHECK(latest.status_of("job_1") == job_status::queued);
  kafka_run earliest(quick_jobs(2, "[workers]\ncount = 1\n"));
  CHECK(earliest.result.all_jobs_ended);
}

TEST_CASE("K12 a failed record is retried in place, 10 times with no wait, holding up its partition", "[kafka]") {
  kafka_run run(quick_jobs(2,
                           "[workers]\ncount = 1\n[vendor.error_rates]\nunavailable = 1.0\n[budget]\n"
                           "time_limit = \"10m\"\n"));
  std::vector<const sim::trace_record*> job_1, job_2;
  for (const sim::trace_record* r : run.records("attempt_start"))
    (r->get_string("job") == "job_1" ? job_1 : job_2).push_back(r);
  REQUIRE(job_1.size() == 10);
  CHECK(run.status_of("job_1") == job_status::dead_lettered);  // logged and skipped: no dead-letter topic
  REQUIRE(!job_2.empty());
  CHECK(job_2.front()->time > job_1.back()->time);  // the partition waited
  for (const sim::trace_record* b : run.records("backoff")) CHECK(b->get_int("delay_us") == 0);
}

TEST_CASE(
    "K12 a record failing in the runtime's own steps is sought back to, then recovered once its attempts are "
    "spent",
    "[kafka]") {
  // Every checkpoint of job_1's end fails: the record runs again after each
  // failure (a seek back), three times in all, then the recoverer
  // dead-letters the job and job_2 behind it runs.
  kafka_run run(quick_jobs(
      2,
      "[workers]\ncount = 1\n[retry]\nmaximum_attempts = 3\ninitial_interval = \"1s\"\nmaximum_interval = \"1s\"\n"
      "[[fault]]\npoint = \"before_checkpoint\"\njob = \"job_1\"\naction = \"error\"\n"));
  CHECK(run.records("runtime_error").size() == 3);
  CHECK(run.fetched("job_1").size() == 3);
  CHECK(run.status_of("job_1") == job_status::dead_lettered);
  CHECK(run.status_of("job_2") == job_status::done);
}

namespace {
// The sampler's record at `t` (one every [trace] sample_interval, 1 s by default).
const sim::trace_record& sample_at(const test::scenario_run& run, sim::instant t) {
  for (const sim::trace_record* r : run.records("queue_sample"))
    if (r->time == t) return *r;
  FAIL("no queue_sample at " << t.us() << " us");
  throw std::logic_error("unreachable");
}
std::int64_t field(const sim::trace_record& r, std::string_view name) { return r.get_int(name).value_or(-1); }
// The run's summary, as `twice run` prints it, of a kafka_run's text.
run_summary summarize_run(const std::string& text, std::string_view kafka_keys) {
  load_result loaded =
      load_scenario_text("[queue]\nflavour = \"kafka\"\n[kafka]\n" + std::string(kafka_keys) + text, "k.toml");
  REQUIRE(loaded.ok());
  return cli::run_one(*loaded.value, false).summary;
}
}  // namespace

TEST_CASE(
    "K14 consumer lag: each sample splits log end offset minus committed offset at the owner's position, "
    "and [alarms] judge it",
    "[kafka]") {
  // One consumer, three quick records, one per poll. The group's first
  // assignment waits 3 s; auto-commit commits at a poll once 5 s passed.
  const std::string kafka_keys = "auto_offset_reset = \"earliest\"\nmax_poll_records = 1\n";
  const std::string more = "[workers]\ncount = 1\n[alarms]\noldest_message_age = \"4s\"\n";
  kafka_run run(quick_jobs(3, more), kafka_keys);
  REQUIRE(run.records("queue_sample").size() >= 6);
  // Before the first assignment nothing is fetched: the lag is all unfetched.
  const sim::trace_record& before = sample_at(run, at_s(2));
  CHECK(field(before, "visible") == 3);
  CHECK(field(before, "in_flight") == 0);
  CHECK(field(before, "delayed") == 0);
  CHECK(field(before, "oldest_age_us") == sim::duration::from_s(2).us());
  // At 4 s job_1 runs: fetched, not committed (the poll at 3 s committed offset 0).
  const sim::trace_record& running = sample_at(run, at_s(4));
  CHECK(field(running, "visible") == 2);
  CHECK(field(running, "in_flight") == 1);
  CHECK(field(running, "oldest_age_us") == sim::duration::from_s(4).us());
  // At 5 s job_1 is done and job_2 fetched, but nothing is committed before
  // the next auto-commit: both count, and job_1's record is still the oldest
  // uncommitted one (what kafka-consumer-groups.sh would show as LAG 3).
  const sim::trace_record& processed = sample_at(run, at_s(5));
  CHECK(field(processed, "visible") == 1);
  CHECK(field(processed, "in_flight") == 2);
  CHECK(field(processed, "oldest_age_us") == sim::duration::from_s(5).us());
  // Every sample's two parts add up to Kafka's LAG: the records produced
  // (the log end offset, one partition) minus the committed offset, as the
  // trace had them when the sample was taken.
  std::int64_t produced = 0, committed = 0, samples = 0;
  for (const sim::trace_record& r : run.w->events().records()) {
    if (r.kind == "produced") ++produced;
    if (r.kind == "offset_commit" && r.get_string("status") == "ok") committed = field(r, "offset");
    if (r.kind != "queue_sample") continue;
    ++samples;
    CHECK(field(r, "visible") + field(r, "in_flight") == produced - committed);
  }
  CHECK(samples == static_cast<std::int64_t>(run.records("queue_sample").size()));
  CHECK(committed == 3);
  const consumer_lag end = lag_of(*run.w->topic(), *run.w->group(), run.result.now);
  CHECK(end.unfetched + end.fetched_uncommitted == 0);
  CHECK(end.oldest_uncommitted_age == sim::duration::zero());
  // The alarm on the oldest record's age went off at the first sample above 4 s.
  const run_summary s = summarize_run(quick_jobs(3, more), kafka_keys);
  const auto backlog = std::find_if(s.verdicts.begin(), s.verdicts.end(),
                                    [](const verdict& v) { return v.name == "backlog_within_bound"; });
  REQUIRE(backlog != s.verdicts.end());
  CHECK_FALSE(backlog->held);
  REQUIRE(!backlog->evidence.empty());
  CHECK_THAT(backlog->evidence[0], Catch::Matchers::StartsWith("5.000000s sampler queue_sample"));
  CHECK(s.queue_line().find("consumer lag at most 3 records not yet fetched (at 0.000s)") == 0);
}

TEST_CASE("K14 consumer lag: a dead member's records stay fetched until a rebalance hands its partition on",
          "[kafka]") {
  // worker/0 fetches job_1 at 6 s and crashes at 10 s, mid-job; job_2 is
  // produced at 20 s. The group removes the dead member at 54 s (K5) and
  // hands the partition to worker/0's new member, which fetches both.
  kafka_run run(
      "[workers]\ncount = 2\n[discipline]\nkey = \"none\"\n[tools.model]\nlatency = { fixed = \"60s\" }\n"
      "client_timeout = \"2m\"\n[[crash]]\nat = \"10s\"\nworker = 0\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n"
      "[[job]]\nid = \"job_2\"\ninvoice = \"inv_2\"\namount_cents = 1999\nenqueue_at = \"20s\"\n");
  const sim::trace_record& dead = sample_at(run, at_s(30));
  CHECK(field(dead, "in_flight") == 1);  // job_1, with the dead member
  CHECK(field(dead, "visible") == 1);    // job_2, behind its position
  CHECK(field(dead, "oldest_age_us") == sim::duration::from_s(30).us());
  const sim::trace_record& handed_on = sample_at(run, at_s(56));
  CHECK(field(handed_on, "in_flight") == 2);
  CHECK(field(handed_on, "visible") == 0);
  CHECK(field(handed_on, "oldest_age_us") == sim::duration::from_s(56).us());
}

TEST_CASE("the summary says why the queue was not sampled", "[kafka][report]") {
  run_summary s;
  s.sample_interval = sim::duration::zero();
  CHECK(s.queue_line() == "not sampled ([trace] sample_interval = \"0s\")");
  s.sample_interval = sim::duration::from_s(1);
  CHECK(s.queue_line() == "not sampled (the run ended before the first sample)");
  s.queue_is_topic = true;
  s.queue.note(at_s(4), ev::queue_sample{1, 0, 2, 0, sim::duration::from_s(5)});
  CHECK(s.queue_line() ==
        "consumer lag at most 1 record not yet fetched (at 4.000s), the oldest uncommitted record 5s old at most "
        "(at 4.000s)");
}
