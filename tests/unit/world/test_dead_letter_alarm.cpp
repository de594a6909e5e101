// CloudWatch alarm states on the dead-letter queue and the pager that
// auto-resolves its pages (runtime/dead_letter_redrive.hpp): rows CW1..CW6
// of tests/conformance/sqs_conformance.md.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <twice/lint/lint.hpp>
#include <twice/scenario/scenario.hpp>
#include "scenario_run.hpp"

using namespace twice;

namespace {

// Three refunds 50 s apart against a vendor down for `outage`: each goes to
// the dead-letter queue after two attempts, the last after the first minute. The
// on-call answers a page 8 h after it; `keys` adds to [dead_letter_queue].
std::string three_dead_letters(std::string_view outage, std::string_view keys) {
  return "[workers]\ncount = 1\n[discipline]\nkey = \"none\"\n[budget]\ntime_limit = \"30h\"\n"
         "[retry]\nmaximum_attempts = 2\ninitial_interval = \"1s\"\nmaximum_interval = \"1s\"\n"
         "[vendor]\nlatency = { fixed = \"300ms\" }\n[[vendor.outage]]\nstart = \"0s\"\nend = \"" +
         std::string(outage) + "\"\n[dead_letter_queue]\nretention = \"24h\"\nredrive_after = \"8h\"\n" +
         std::string(keys) + "[workload]\ncount = 3\ninterval = \"50s\"\namount_cents = 2500\n";
}

std::string_view text_of(const sim::trace_record* r, std::string_view field) {
  return r->get_string(field).value_or("");
}
std::int64_t num_of(const sim::trace_record* r, std::string_view field) { return r->get_int(field).value_or(-1); }

constexpr std::int64_t hour_us = 3'600'000'000;

}  // namespace

TEST_CASE("CW1-CW3 the depth alarm pages once on OK -> ALARM, stays in ALARM, and its page auto-resolves unanswered",
          "[dead-letter-alarm]") {
  const test::scenario_run run(three_dead_letters("10h", "page_auto_resolve = \"4h\"\n"));
  const auto states = run.records("alarm_state");
  REQUIRE(states.size() == 2);
  // CW1: evaluated at the end of a 1-minute period, and ALARM once for three dead letters.
  CHECK(text_of(states[0], "alarm") == "depth");
  CHECK(text_of(states[0], "to") == "ALARM");
  CHECK(states[0]->time.us() % 60'000'000 == 0);
  CHECK(num_of(states[0], "value") >= 1);
  const auto pages = run.records("page");
  REQUIRE(pages.size() == 1);  // CW2: no page for the later dead letters
  std::size_t later = 0;
  for (const sim::trace_record* r : run.records("send"))
    if (r->actor == "queue/jobs-dlq" && states[0]->time < r->time) ++later;
  CHECK(later >= 1);
  CHECK(run.records("dead_letter_alarm").empty());
  CHECK(pages[0]->time == states[0]->time);
  CHECK(num_of(pages[0], "resolves_at_us") == pages[0]->time.us() + 4 * hour_us);
  // CW3: the pager closes it after 4 h; at 8 h the on-call finds nothing open.
  const auto resolved = run.records("page_resolved");
  REQUIRE(resolved.size() == 1);
  CHECK(text_of(resolved[0], "why") == "auto_resolve");
  CHECK(resolved[0]->time.us() == pages[0]->time.us() + 4 * hour_us);
  const auto unanswered = run.records("page_unanswered");
  REQUIRE(unanswered.size() == 1);
  CHECK(unanswered[0]->time.us() == pages[0]->time.us() + 8 * hour_us);
  CHECK(num_of(unanswered[0], "messages") == 3);
  CHECK(run.records("moved_out").empty());
  // The alarm stayed in ALARM until retention emptied the queue, 24 h on.
  CHECK(text_of(states[1], "to") == "OK");
  CHECK(states[1]->time.us() >= 24 * hour_us);
  CHECK(run.records("retention_expired").size() == 3);
  CHECK(run.refunds() == 0);
}

TEST_CASE("CW4 an alarm on the oldest dead letter's age pages again, and the on-call redrives in time",
          "[dead-letter-alarm]") {
  const test::scenario_run run(three_dead_letters("6h", "page_auto_resolve = \"4h\"\nage_alarm = \"6h\"\n"));
  const auto pages = run.records("page");
  REQUIRE(pages.size() == 2);
  CHECK(text_of(pages[0], "alarm") == "depth");
  CHECK(text_of(pages[1], "alarm") == "age");
  // The age counts from the first arrival in the dead-letter queue (under a minute in).
  CHECK(pages[1]->time.us() >= 6 * hour_us);
  CHECK(pages[1]->time.us() <= 6 * hour_us + 120'000'000);
  const auto resolved = run.records("page_resolved");
  REQUIRE(resolved.size() == 2);
  CHECK(text_of(resolved[0], "why") == "auto_resolve");
  CHECK(num_of(resolved[0], "incident") == 1);
  CHECK(text_of(resolved[1], "why") == "redriven");
  CHECK(num_of(resolved[1], "incident") == 2);
  CHECK(resolved[1]->time.us() == pages[0]->time.us() + 8 * hour_us);
  CHECK(run.records("page_unanswered").empty());
  CHECK(run.records("retention_expired").empty());
  CHECK(run.refunds() == 3);
  // Both alarms back to OK once the move task emptied the queue.
  const auto states = run.records("alarm_state");
  REQUIRE(states.size() == 4);
  CHECK(text_of(states[2], "to") == "OK");
  CHECK(text_of(states[3], "to") == "OK");
}

TEST_CASE(
    "CW6 re-notification while in ALARM: grouped into the open page, a new page once it auto-resolved, and "
    "the on-call redrives",
    "[dead-letter-alarm]") {
  const test::scenario_run run(three_dead_letters("6h", "page_auto_resolve = \"4h\"\nrenotify_every = \"1h\"\n"));
  const auto pages = run.records("page");
  REQUIRE(pages.size() == 3);
  const std::int64_t first = pages[0]->time.us();
  // 1 h, 2 h, 3 h: page #1 still open, the trigger joins it; at 4 h it
  // auto-resolved first, and the re-notification opens page #2.
  const auto renotified = run.records("renotify");
  REQUIRE(renotified.size() >= 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(renotified[i]->time.us() == first + (i + 1) * hour_us);
    CHECK(num_of(renotified[i], "incident") == 1);
  }
  CHECK(renotified[3]->time.us() == first + 4 * hour_us);
  CHECK(num_of(renotified[3], "incident") == 0);
  CHECK(pages[1]->time.us() == first + 4 * hour_us);
  CHECK(num_of(pages[1], "incident") == 2);
  // At 8 h the on-call finds page #2 open and runs the runbook: the alarm
  // returns to OK, no more re-notifications, and the refunds are made.
  CHECK(run.records("page_unanswered").empty());
  CHECK(run.records("moved_out").size() == 3);
  // The runbook closed page #2 at 8 h while the alarm was still in ALARM
  // (until the next minute's datapoint): that instant's re-notification
  // opens page #3, which the alarm's return to OK resolves.
  CHECK(pages[2]->time.us() == first + 8 * hour_us);
  const auto resolved = run.records("page_resolved");
  REQUIRE(resolved.size() == 3);
  CHECK(text_of(resolved[0], "why") == "auto_resolve");
  CHECK(text_of(resolved[1], "why") == "redriven");
  CHECK(text_of(resolved[2], "why") == "alarm_ok");
  CHECK(renotified.back()->time.us() == first + 8 * hour_us);
  CHECK(run.records("retention_expired").empty());
  CHECK(run.refunds() == 3);
}

TEST_CASE("CW5 without a pager timeout or an age alarm the on-call answers the first dead letter as before",
          "[dead-letter-alarm]") {
  const test::scenario_run run(three_dead_letters("6h", ""));
  CHECK(run.records("alarm_state").empty());
  CHECK(run.records("page").empty());
  CHECK(run.records("dead_letter_alarm").size() == 1);
  CHECK(run.refunds() == 3);
}

TEST_CASE("page_auto_resolve and age_alarm need the on-call's redrive_after", "[dead-letter-alarm][scenario]") {
  const load_result r = load_scenario_text(
      "[dead_letter_queue]\nage_alarm = \"6h\"\n[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 5\n", "t.toml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors[0].to_string() ==
        "t.toml:2:13: dead_letter_queue.age_alarm: age_alarm needs redrive_after: the pages are the on-call's, who "
        "answers them redrive_after later");
  const load_result low = load_scenario_text(
      "[dead_letter_queue]\nredrive_after = \"1h\"\npage_auto_resolve = \"10s\"\n[[job]]\nid = \"j\"\ninvoice = "
      "\"i\"\namount_cents = 5\n",
      "t.toml");
  REQUIRE_FALSE(low.ok());
  CHECK(low.errors[0].to_string() ==
        "t.toml:3:21: dead_letter_queue.page_auto_resolve: must be between 1m and 336h, found 10s");
}

TEST_CASE("page_resolved_before_answer: the pager closes the page before the on-call looks",
          "[dead-letter-alarm][lint]") {
  const auto warnings_of = [](const std::string& keys) {
    const load_result r = load_scenario_text(three_dead_letters("6h", keys), "t.toml");
    REQUIRE(r.ok());
    std::vector<std::string> rules;
    for (const lint_warning& w : lint(r.value->world)) rules.push_back(w.rule);
    return rules;
  };
  const auto has = [](const std::vector<std::string>& rules) {
    return std::find(rules.begin(), rules.end(), "page_resolved_before_answer") != rules.end();
  };
  CHECK(has(warnings_of("page_auto_resolve = \"4h\"\n")));
  CHECK_FALSE(has(warnings_of("")));
  CHECK_FALSE(has(warnings_of("page_auto_resolve = \"9h\"\n")));
  CHECK_FALSE(has(warnings_of("page_auto_resolve = \"4h\"\nage_alarm = \"6h\"\n")));
  // An age alarm whose page is closed again before the on-call looks.
  CHECK(has(warnings_of("page_auto_resolve = \"4h\"\nage_alarm = \"2h\"\n")));
  // Re-notified every hour: page #2 opens at 5 h and is open at 8 h. Every
  // 5 h: page #2 opens at 5 h too. Every 7 h: the next page opens at 7 h,
  // open at 8 h. Every 9 h: nothing opens before the on-call looks at 8 h.
  CHECK_FALSE(has(warnings_of("page_auto_resolve = \"4h\"\nrenotify_every = \"1h\"\n")));
  CHECK_FALSE(has(warnings_of("page_auto_resolve = \"4h\"\nrenotify_every = \"5h\"\n")));
  CHECK_FALSE(has(warnings_of("page_auto_resolve = \"4h\"\nrenotify_every = \"7h\"\n")));
  CHECK(has(warnings_of("page_auto_resolve = \"4h\"\nrenotify_every = \"9h\"\n")));
  // Every 5 h with a 2 h pager timeout: pages open 0-2 h and 5-7 h; at 8 h none is.
  CHECK(has(warnings_of("page_auto_resolve = \"2h\"\nrenotify_every = \"5h\"\n")));
  const load_result r = load_scenario_text(three_dead_letters("6h", "page_auto_resolve = \"4h\"\n"), "t.toml");
  REQUIRE(r.ok());
  for (const lint_warning& w : lint(r.value->world))
    if (w.rule == "page_resolved_before_answer") {
      CHECK(w.setting == "dead_letter_queue.page_auto_resolve");
      REQUIRE(w.advice.size() == 1);
      REQUIRE(w.advice[0].values.size() == 1);
      CHECK(w.advice[0].values[0].setting == "dead_letter_queue.age_alarm");
      CHECK(w.advice[0].values[0].value == "\"6h\"");
    }
}
