// A job's sidekiq_retry_in block and its retry_for (runtime/sidekiq_retry_in.hpp,
// worker_job_retry.cpp) against Sidekiq's JobRetry (sidekiq/sidekiq v8.1.7,
// lib/sidekiq/job_retry.rb; test/retry_test.rb "custom retry delay" and
// "retry_for"): row K5 of tests/conformance/sidekiq_conformance.md.

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include <fmt/format.h>

#include <twice/checks/checked_run.hpp>
#include <twice/scenario/scenario.hpp>
#include "scenario_run.hpp"

using namespace twice;
using twice::test::scenario_run;

namespace {

// One refund job on Sidekiq against a payment provider that answers 503
// until `outage_end`; `extra` adds the scenario's own tables.
std::string one_refund(std::string_view outage_end, std::string_view extra) {
  return fmt::format(
      "[queue]\nflavour = \"sidekiq\"\n[workers]\ncount = 1\n[vendor]\nlatency = {{ fixed = \"400ms\" }}\n"
      "[[vendor.outage]]\nstart = \"0s\"\nend = \"{}\"\n{}"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 1999\n",
      outage_end, extra);
}

std::string retry_in(std::string_view kind, std::string_view value) {
  return fmt::format("[sidekiq.retry_in]\n{} = \"{}\"\n", kind, value);
}

}  // namespace

TEST_CASE("K5 job_retry.rb delay_for: :discard drops the job in no dead set; :kill sends it to the dead set at once",
          "[sidekiq][world]") {
  // retry_test.rb "calls death handlers even for :discard" (the dead set stays
  // empty, discarded_at is set) and "kills when configured on special
  // exceptions" (one job in the dead set).
  const scenario_run discarded(one_refund("1h", retry_in("unavailable", "discard")));
  CHECK(discarded.status_of("job_1") == job_status::failed);
  CHECK(discarded.records("attempt_start").size() == 1);
  CHECK(discarded.records("backoff").empty());
  CHECK(discarded.records("dead_letter").empty());
  REQUIRE(discarded.records("job_failed").size() == 1);
  CHECK(discarded.records("job_failed")[0]->get_string("error") ==
        "sidekiq_retry_in returned :discard, DISCARDED: 503 unavailable");
  CHECK(discarded.refunds() == 0);

  const scenario_run killed(one_refund("1h", retry_in("unavailable", "kill")));
  CHECK(killed.status_of("job_1") == job_status::dead_lettered);
  CHECK(killed.records("attempt_start").size() == 1);
  CHECK(killed.records("backoff").empty());
  REQUIRE(killed.records("dead_letter").size() == 1);
  CHECK(killed.records("dead_letter")[0]->get_string("reason") == "sidekiq_retry_in returned :kill: 503 unavailable");

  // :kill is retries_exhausted, which with `dead: false` discards (lines 264-270).
  const scenario_run no_dead_set(
      one_refund("1h", retry_in("unavailable", "kill") + "[dead_letter_queue]\nenabled = false\n"));
  CHECK(no_dead_set.status_of("job_1") == job_status::failed);
  CHECK(no_dead_set.records("dead_letter").empty());
  REQUIRE(no_dead_set.records("job_failed").size() == 1);
  CHECK(no_dead_set.records("job_failed")[0]->get_string("error") ==
        "retries exhausted and DISCARDED (no dead set): sidekiq_retry_in returned :kill: 503 unavailable");
}

TEST_CASE("K5 job_retry.rb delay_for: the block is asked per failure, and a kind it does not name keeps the schedule",
          "[sidekiq][world]") {
  // retry_test.rb "retries with a default delay and exception in case of
  // configured with nil": the block returns nil for this exception, and
  // the job retries on Sidekiq's schedule. Here it discards only 429s.
  const scenario_run r(one_refund("30s", retry_in("rate_limited", "discard")));
  CHECK(r.status_of("job_1") == job_status::done);
  const auto backoffs = r.records("backoff");
  REQUIRE_FALSE(backoffs.empty());
  // count 0: (0**4) + 15 + rand(10) s.
  const std::int64_t first_us = backoffs[0]->get_int("delay_us").value_or(-1);
  CHECK(first_us >= 15'000'000);
  CHECK(first_us <= 24'000'000);
  CHECK(r.refunds() == 1);
}

TEST_CASE("K5 job_retry.rb delay_for: a delay from the block replaces (count**4) + 15, and the jitter is still added",
          "[sidekiq][world]") {
  // retry_test.rb "retries with AS::Durations" (2 hours); process_retry adds
  // rand(10 * (count + 1)) to it (lines 202-203).
  const scenario_run r(one_refund("5m", retry_in("unavailable", "2m")));
  CHECK(r.status_of("job_1") == job_status::done);
  const auto backoffs = r.records("backoff");
  REQUIRE(backoffs.size() >= 2);
  for (std::size_t count = 0; count < backoffs.size(); ++count) {
    INFO("retry " << count);
    const std::int64_t delay_us = backoffs[count]->get_int("delay_us").value_or(-1);
    CHECK(delay_us >= 120'000'000);
    CHECK(delay_us <= 120'000'000 + (10 * (static_cast<std::int64_t>(count) + 1) - 1) * 1'000'000);
    CHECK(delay_us % 1'000'000 == 0);  // whole seconds, as rand(Integer) draws them
    CHECK(backoffs[count]->get_string("route") == "retry_set");
  }
  CHECK(r.refunds() == 1);
}

TEST_CASE("K5 job_retry.rb retry_for: exhausted once the time since the first failure passes it, whatever the count",
          "[sidekiq][world]") {
  // retry_test.rb "allows retry_for => no retry and dead queue" and "retry_for
  // ignores max_retries setting"; job_retry.rb lines 181-188: `(failed_at +
  // rf) < Time.now`, the count not looked at.
  const std::string text = one_refund("2h", "[sidekiq]\nretry_for = \"10m\"\n");
  const scenario_run r(text);
  CHECK(r.status_of("job_1") == job_status::dead_lettered);
  const auto dead = r.records("dead_letter");
  REQUIRE(dead.size() == 1);
  CHECK(dead[0]->get_string("reason") == "retry_for 10m passed since the first failure: 503 unavailable");
  // Every failure but the last was within 10 minutes of the first; the last was past it.
  const auto starts = r.records("attempt_start");
  REQUIRE(starts.size() >= 3);
  const sim::instant first = starts.front()->time;
  CHECK(starts.back()->time - first > sim::duration::from_s(600));
  CHECK(starts[starts.size() - 2]->time - first <= sim::duration::from_s(600));
  // No count limit applies: the world has none, and the schedule's bound is
  // the last retry retry_for reaches, which every backoff stayed under.
  load_result loaded = load_scenario_text(text, "k5.toml");
  REQUIRE(loaded.ok());
  CHECK(loaded.value->world.runtime.retry.maximum_attempts == 0);
  twice::world w(loaded.value->world);
  const checked_result checked = run_with_checkers(w);
  for (const verdict& v : checked.verdicts) {
    INFO(v.name << ": " << v.detail);
    CHECK(v.held);
  }
}

TEST_CASE("K5 retry_for: a job that succeeds within the window is done, past 26 attempts' worth of count if need be",
          "[sidekiq][world]") {
  // With retry_for the count never exhausts the job (job_retry.rb lines
  // 181-188): an outage of 2 h with retry_for 48h ends done.
  const scenario_run r(one_refund("2h", "[sidekiq]\nretry_for = \"48h\"\n"));
  CHECK(r.status_of("job_1") == job_status::done);
  CHECK(r.refunds() == 1);
}

TEST_CASE("sidekiq_last_retry_within: the last retry retry_for can reach on Sidekiq's shortest waits", "[sidekiq]") {
  // Waits before retries 0, 1, 2, 3: 15, 16, 31, 96 s; the sums 15, 31, 62, 158.
  CHECK(sidekiq_last_retry_within(sim::duration::from_s(14)) == 0);
  CHECK(sidekiq_last_retry_within(sim::duration::from_s(15)) == 1);
  CHECK(sidekiq_last_retry_within(sim::duration::from_s(157)) == 3);
  CHECK(sidekiq_last_retry_within(sim::duration::from_s(158)) == 4);
  retry_policy p;
  p.jitter = jitter_kind::sidekiq;
  p.maximum_interval.reset();
  p.maximum_attempts = 0;
  CHECK(effective_cap(p) == uncapped_ceiling);
  p.retry_for = sim::duration::from_s(158);
  CHECK(effective_cap(p) == sim::duration::from_s(4 * 4 * 4 * 4 + 15 + 49));  // retry 4: 271 s + rand(50)
}
