// Sidekiq's BasicFetch and its retries against Sidekiq's own source
// (sidekiq/sidekiq v8.1.7, commit 1bb4aa06e5aa): one test case per row of
// tests/conformance/sidekiq_conformance.md. The queue side (queue_config::hold_until_ack)
// is tested here; the runtime's side (the schedule, the shutdown timeout) in
// test_retry_policy.cpp and by the catalogue pair sidekiq_term_timeout.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <twice/checks/checked_run.hpp>
#include <twice/scenario/scenario.hpp>
#include "broker/queue.hpp"
#include "queue_world.hpp"
#include "scenario_run.hpp"

using namespace twice;
using namespace twice::sim::literals;
using namespace queue_testing;

namespace {

queue_config basic_fetch() {
  queue_config c;
  c.name = "default";
  c.hold_until_ack = true;
  return c;
}

}  // namespace

TEST_CASE("K1 fetch.rb BRPOP: jobs come out oldest first, and a fetched job has no lease", "[sidekiq]") {
  queue_testing::world w(basic_fetch());
  w.q.send("job_1");
  w.q.send("job_2");
  const received_message first = w.receive_now().at(0);
  CHECK(first.body == "job_1");
  w.run_until(at(days(2)));
  CHECK(w.receive_now().at(0).body == "job_2");  // job_1 is still with its process
  CHECK(w.receive_now().empty());
  CHECK(w.records("lease_expired").empty());
  CHECK(w.q.delete_message(first.handle) == queue_status::ok);  // the ack: done
  CHECK(w.q.size() == 1);
}

TEST_CASE("K2 Reliability wiki: a process that dies loses the job it fetched", "[sidekiq]") {
  queue_testing::world w(basic_fetch());
  w.q.send("job_1");
  const receipt_handle h = w.receive_now().at(0).handle;
  CHECK(w.q.drop_held(h) == queue_status::ok);
  CHECK(w.q.size() == 0);
  CHECK(w.q.stats().lost_with_process == 1);
  CHECK(w.records("lost_with_process").size() == 1);
  CHECK(w.receive_now().empty());
  CHECK(w.q.drop_held(h) == queue_status::invalid_handle);  // nothing held any more
}

TEST_CASE("K3 fetch.rb bulk_requeue (RPUSH): a job pushed back at a hard shutdown runs next", "[sidekiq]") {
  queue_testing::world w(basic_fetch());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  w.q.send("job_3");
  CHECK(w.q.requeue_held(first.handle) == queue_status::ok);
  const received_message again = w.receive_now().at(0);
  CHECK(again.body == "job_1");
  CHECK(again.receive_count == 2);
  CHECK(w.records("pushed_back").size() == 1);
  CHECK(w.q.requeue_held(first.handle) == queue_status::invalid_handle);  // a superseded fetch holds nothing
}

TEST_CASE("K4 job_retry.rb + scheduled.rb: a retry waits in the retry set, then goes to the back of the queue",
          "[sidekiq]") {
  queue_testing::world w(basic_fetch());
  w.q.send("job_1");
  const received_message first = w.receive_now().at(0);
  w.q.send("job_2");
  CHECK(w.q.stats().in_flight == 1);  // busy: with its process
  // 25th retry's delay: longer than any SQS lease may be.
  CHECK(w.q.change_visibility(first.handle, days(4)) == queue_status::ok);
  CHECK(w.q.drop_held(first.handle) == queue_status::invalid_handle);  // waits in Redis, not with the process
  // In the retry set: scheduled, not in flight.
  CHECK(w.q.stats().in_flight == 0);
  CHECK(w.q.stats().delayed == 1);
  w.run_until(at(days(4)));
  w.q.send("job_3");
  const auto got = w.receive_now(at_most(3));
  REQUIRE(got.size() == 3);
  // job_2 waited in the queue; the retry was LPUSHed behind it, and before job_3.
  CHECK(got[0].body == "job_2");
  CHECK(got[1].body == "job_1");
  CHECK(got[2].body == "job_3");
  // Its coming due is traced as a retry leaving the retry set, not a lease.
  const auto due = w.records("lease_expired");
  REQUIRE(due.size() == 1);
  CHECK(due[0]->get_string("lease") == "retry_set");
}

TEST_CASE("K4 scheduled.rb: a due retry waits for the scheduled poller's next look, 2.5 to 7.5 s apart", "[sidekiq]") {
  queue_config c = basic_fetch();
  c.scheduled_poll_average = sim::duration::from_s(5);
  queue_testing::world w(c);
  w.q.set_scheduled_poller(sim::random_stream(7));
  for (const char* job : {"job_1", "job_2", "job_3"}) w.q.send(job);
  const auto got = w.receive_now(at_most(3));
  REQUIRE(got.size() == 3);
  // Two retries due 1 ms apart, one due a minute later.
  CHECK(w.q.change_visibility(got[0].handle, sim::duration::from_s(19)) == queue_status::ok);
  CHECK(w.q.change_visibility(got[1].handle, sim::duration::from_ms(19'001)) == queue_status::ok);
  CHECK(w.q.change_visibility(got[2].handle, sim::duration::from_s(79)) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(120)));
  const auto back = w.records("lease_expired");
  REQUIRE(back.size() == 3);
  // Each comes back at a look at or after it is due, within one wait of it.
  CHECK(back[0]->time >= at(sim::duration::from_s(19)));
  CHECK(back[0]->time < at(sim::duration::from_ms(26'500)));
  CHECK(back[2]->time >= at(sim::duration::from_s(79)));
  CHECK(back[2]->time < at(sim::duration::from_ms(86'500)));
  // One look takes everything due by then: the two retries come back together.
  CHECK(back[1]->time == back[0]->time);
  CHECK(back[0]->time != at(sim::duration::from_s(19)));  // a look exactly when due would be a coincidence
}

TEST_CASE("K10 super_fetch: a dead process's job is recovered at a later start, after 60 s and an hour's wait",
          "[sidekiq]") {
  queue_config c = basic_fetch();
  c.super_fetch = true;
  queue_testing::world w(c);
  queue& dead_set = w.add_dead_letter("dead");
  w.q.send("job_1");
  CHECK(w.q.recover_orphans() == 0);  // the first process starts: its check finds nothing
  const received_message first = w.receive_now().at(0);
  CHECK(w.q.orphan_held(first.handle) == queue_status::ok);  // the process dies at 0 s
  CHECK(w.records("orphaned").size() == 1);
  w.run_until(at(sim::duration::from_s(3600)));
  CHECK(w.q.recover_orphans() == 1);  // a start an hour on: heartbeat expired, an hour since the last check
  const received_message second = w.receive_now().at(0);
  CHECK(second.id == first.id);
  // A start within the hour does not look: the orphan waits.
  CHECK(w.q.orphan_held(second.handle) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(3600 + 600)));
  CHECK(w.q.recover_orphans() == 0);
  CHECK(w.receive_now().empty());
  // Nor does one within 60 s of the death, though the hour has passed.
  w.run_until(at(sim::duration::from_s(2 * 3600)));
  const received_message third = [&] {
    REQUIRE(w.q.recover_orphans() == 1);
    return w.receive_now().at(0);
  }();
  CHECK(w.q.orphan_held(third.handle) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(3 * 3600)));
  CHECK(w.q.recover_orphans() == 1);  // the third recovery in 72 h: still requeued
  const received_message fourth = w.receive_now().at(0);
  CHECK(w.q.orphan_held(fourth.handle) == queue_status::ok);
  w.run_until(at(sim::duration::from_s(4 * 3600)));
  CHECK(w.q.recover_orphans() == 1);  // the fourth: a poison pill, to the dead set
  CHECK(w.receive_now().empty());
  CHECK(dead_set.size() == 1);
  CHECK(w.records("orphan_recovered").size() == 4);
}

TEST_CASE(
    "K10 super_fetch in a world: a pod restarted within the minute leaves its job orphaned until its hourly "
    "check; a start an hour on recovers it",
    "[sidekiq][world]") {
  // One refund job whose model step takes `model`, on one super_fetch worker.
  const auto world_text = [](std::string_view model) {
    return fmt::format(
        "[queue]\nflavour = \"sidekiq\"\n[sidekiq]\nfetch = \"super\"\n[workers]\ncount = 1\n[budget]\n"
        "time_limit = \"6h\"\n[discipline]\nkey = \"none\"\n[tools.model]\nlatency = {{ fixed = \"{}\" }}\n"
        "client_timeout = \"3h\"\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n",
        model);
  };
  // Killed at 5 s, back at 15 s: the dead process's heartbeat has not expired
  // and the last check (at 0 s) is not an hour old, so the start recovers
  // nothing. The running process looks again an hour after its start.
  const test::scenario_run quick(world_text("40s") + "[[crash]]\nat = \"5s\"\nworker = 0\n");
  REQUIRE(quick.result.all_jobs_ended);
  CHECK(quick.records("orphaned").size() == 1);
  const std::vector<const sim::trace_record*> hourly = quick.records("orphan_recovered");
  REQUIRE(hourly.size() == 1);
  CHECK(hourly[0]->time == sim::instant::epoch() + sim::duration::from_s(3600 + 15));
  CHECK(quick.records("attempt_start").size() == 2);
  // A 2 h job killed at 1h30m, back 2 minutes later: the first process's
  // hourly check at 1 h found nothing, so the start at 1h32m is within the
  // hour and waits; the new process's own check an hour on recovers it.
  const test::scenario_run late(world_text("2h") +
                                "[runtime]\nrestart_delay = \"2m\"\n[[crash]]\nat = \"90m\"\nworker = 0\n");
  REQUIRE(late.result.all_jobs_ended);
  const std::vector<const sim::trace_record*> recovered = late.records("orphan_recovered");
  REQUIRE(recovered.size() == 1);
  CHECK(recovered[0]->time == sim::instant::epoch() + sim::duration::from_s(152 * 60));
  CHECK(late.records("attempt_start").size() == 2);
  CHECK(late.records("lost_with_process").empty());
}

TEST_CASE("K8 retry_test.rb: a job pushed back at shutdown has not used a retry, and runs again under its count",
          "[sidekiq][world]") {
  // One job of 40 s, one retry allowed at most (maximum_attempts = 1: no
  // retry at all), a deploy whose TERM timeout (25 s) ends before the job.
  // Sidekiq pushes the job back (Sidekiq::Shutdown is not a failure:
  // "shuts down without retrying work-in-progress, which will resume"), and
  // the new pod runs it again with the same retry_count, to its end.
  const auto text = [](std::string_view counting) {
    return fmt::format(
        "[queue]\nflavour = \"sidekiq\"\n[workers]\ncount = 1\n[retry]\nmaximum_attempts = 1\n{}"
        "[tools.model]\nlatency = {{ fixed = \"40s\" }}\nclient_timeout = \"2m\"\n[[deploy]]\nat = "
        "\"5s\"\ngrace_period = \"30s\"\n"
        "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n",
        counting);
  };
  const auto run = [](const std::string& scenario_text) {
    load_result loaded = load_scenario_text(scenario_text, "k8.toml");
    INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
    REQUIRE(loaded.ok());
    twice::world w(loaded.value->world);
    checked_result r = run_with_checkers(w);
    std::map<std::string, bool> held;
    for (const verdict& v : r.verdicts) held[v.name] = v.held;
    std::vector<std::int64_t> attempts;
    std::size_t pushed = 0;
    for (const sim::trace_record& rec : w.events().records()) {
      if (rec.kind == "attempt_start") attempts.push_back(rec.get_int("attempt").value_or(-1));
      if (rec.kind == "pushed_back") ++pushed;
    }
    return std::tuple(w.db().find_job("job_1")->status, held, attempts, pushed);
  };
  // Sidekiq's own counting: the default.
  const auto [status, held, attempts, pushed] = run(text(""));
  CHECK(pushed == 1);
  CHECK(status == job_status::done);
  CHECK(attempts == std::vector<std::int64_t>{0, 0});
  CHECK(held.at("attempts_monotonic"));
  CHECK(held.at("attempts_within_limit"));
  // Counting every start instead (a runtime of your own): the push-back spent
  // the only attempt, and the job is dead without running again.
  const auto [status_at_start, held_at_start, attempts_at_start, pushed_at_start] =
      run(text("[runtime]\ncount_attempts = \"at_start\"\n"));
  CHECK(pushed_at_start == 1);
  CHECK(status_at_start == job_status::dead_lettered);
  CHECK(attempts_at_start == std::vector<std::int64_t>{0});
}

TEST_CASE(
    "K6 api.rb DeadSet#kill: the dead set keeps a job until a later death finds it 180 days old, and at most "
    "dead_max_jobs",
    "[sidekiq]") {
  queue_config dead;
  dead.name = "dead";
  dead.dead_set = true;
  dead.retention = days(180);
  dead.dead_max_jobs = 3;
  queue_testing::world w(dead);
  w.q.send("job_1");
  // No timer deletes it: a year on, with no other death, it is still there.
  w.run_until(at(days(365)));
  CHECK(w.q.stats().visible == 1);
  CHECK(w.records("retention_expired").empty());
  // The next death trims the deaths older than 180 days first.
  w.q.send("job_2");
  REQUIRE(w.records("retention_expired").size() == 1);
  CHECK(w.q.stats().visible == 1);
  // Then the cap: the fourth death within the window drops the oldest.
  w.run_until(at(days(366)));
  w.q.send("job_3");
  w.q.send("job_4");
  CHECK(w.q.stats().visible == 3);
  w.q.send("job_5");
  CHECK(w.q.stats().visible == 3);
  REQUIRE(w.records("retention_expired").size() == 2);
  std::vector<std::string> left;
  receive_options all;
  all.max_messages = 10;
  for (const received_message& m : w.receive_now(all)) left.push_back(m.body);
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"job_3", "job_4", "job_5"});
}

TEST_CASE(
    "K14 job_retry.rb exception_caused_by_shutdown? (PR #1805): a shutdown wrapped by the call's error is not "
    "retried; before the fix the job was pushed back and put in the retry set",
    "[sidekiq][world]") {
  // Two pods, both drained at 5 s; the job is blocked in a 40 s call when
  // Sidekiq's 25 s timeout pushes it back and raises Sidekiq::Shutdown.
  const auto text = [](std::string_view wrapped) {
    return fmt::format(
        "[queue]\nflavour = \"sidekiq\"\n[sidekiq]\nwrapped_shutdown = \"{}\"\n[workers]\ncount = 2\n"
        "[discipline]\nkey = \"none\"\n[tools.model]\nlatency = {{ fixed = \"40s\" }}\nclient_timeout = \"2m\"\n"
        "[[job_type]]\nname = \"statement_then_refund\"\nprogress = \"none\"\nsteps = [{{ tool = \"model\", target = "
        "\"statement_{{job}}\" }}, {{ tool = \"refund\", target = \"inv_{{job}}\", amount_cents = 1999 }}]\n"
        "[[job]]\nid = \"job_1\"\ntype = \"statement_then_refund\"\n"
        "[[deploy]]\nat = \"5s\"\nbatch_size = 2\ngrace_period = \"30s\"\nstartup = \"5s\"\n",
        wrapped);
  };
  const auto run = [](const std::string& scenario_text) {
    load_result loaded = load_scenario_text(scenario_text, "k13.toml");
    INFO((loaded.errors.empty() ? std::string() : loaded.errors[0].to_string()));
    REQUIRE(loaded.ok());
    twice::world w(loaded.value->world);
    checked_result r = run_with_checkers(w);
    std::map<std::string, bool> held;
    for (const verdict& v : r.verdicts) held[v.name] = v.held;
    std::size_t starts = 0, pushed = 0, sends = 0, retry_set = 0;
    for (const sim::trace_record& rec : w.events().records()) {
      if (rec.kind == "attempt_start") ++starts;
      if (rec.kind == "pushed_back") ++pushed;
      if (rec.kind == "send") ++sends;
      if (rec.kind == "backoff" && rec.get_string("route") == "retry_set") ++retry_set;
    }
    return std::tuple(held, starts, pushed, sends, retry_set);
  };
  // Since #1805 (the default): pushed back once, nothing in the retry set, one more run.
  const auto [held, starts, pushed, sends, retry_set] = run(text("not_retried"));
  CHECK(pushed == 1);
  CHECK(retry_set == 0);
  CHECK(sends == 1);
  CHECK(starts == 2);
  CHECK(held.at("no_double_payment"));
  // Before: the wrapped error went through JobRetry too, a second copy of the
  // job (a new entry in the retry set), and both copies refunded.
  const auto [held_before, starts_before, pushed_before, sends_before, retry_set_before] = run(text("retried"));
  CHECK(pushed_before == 1);
  CHECK(retry_set_before == 1);
  CHECK(sends_before == 2);
  CHECK(starts_before == 3);
  CHECK_FALSE(held_before.at("no_double_payment"));
}
