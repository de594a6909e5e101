// runtime.execution_timeout on every flavour (runtime/execution_timeout.hpp):
// what each runtime does at the limit, checked on whole worlds run from
// scenario text. The job refunds (no key) and then waits 40 s for a model;
// the limit, 30 s, falls in the model call, after the refund's write.

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include <twice/scenario/scenario.hpp>
#include "broker/queue.hpp"
#include "scenario_run.hpp"

using namespace twice;

namespace {

std::string refund_then_model(std::string_view flavour_lines, std::string_view key = "none") {
  return fmt::format(
      "{}\n[runtime]\nexecution_timeout = \"30s\"\n[discipline]\nkey = \"{}\"\n[vendor]\nlatency = {{ fixed = "
      "\"400ms\" }}\n"
      "[tools.model]\nlatency = {{ fixed = \"40s\" }}\nclient_timeout = \"1m\"\n[budget]\ntime_limit = \"2h\"\n"
      "[[job_type]]\nname = \"r\"\nprogress = \"none\"\n"
      "steps = [{{ tool = \"refund\", target = \"inv_{{job}}\", amount_cents = 1999 }}, {{ tool = \"model\", target = "
      "\"c\" }}]\n"
      "[[job]]\nid = \"job_1\"\ntype = \"r\"\n",
      flavour_lines, key);
}

std::string action_of(const sim::trace_record& r) { return std::string(r.get_string("action").value_or("")); }

// Each timeout comes 30 s after the attempt it ends started.
void check_at_limit(const test::scenario_run& run) {
  const std::vector<const sim::trace_record*> starts = run.records("attempt_start");
  const std::vector<const sim::trace_record*> timeouts = run.records("execution_timeout");
  REQUIRE_FALSE(timeouts.empty());
  for (const sim::trace_record* t : timeouts) {
    const sim::trace_record* started = nullptr;
    for (const sim::trace_record* s : starts)
      if (s->get_int("attempt") == t->get_int("attempt") && s->time <= t->time) started = s;
    REQUIRE(started != nullptr);
    CHECK((t->time - started->time) == sim::duration::from_s(30));
    CHECK(t->get_int("limit_us") == 30'000'000);
  }
}

}  // namespace

TEST_CASE("SQS: the worker process is killed at the limit and the message returns after its lease",
          "[execution-timeout]") {
  // Laravel's pcntl_alarm / a Lambda timeout: the refund stands, the job
  // runs again after the 60 s visibility timeout, and pays again.
  const test::scenario_run run(
      refund_then_model("[queue]\nvisibility_timeout = \"1m\"\nmax_receive_count = 3\n[retry]\nmaximum_attempts = 3"));
  const auto timeouts = run.records("execution_timeout");
  REQUIRE(timeouts.size() == 3);
  for (const sim::trace_record* t : timeouts) CHECK(action_of(*t) == "kill");
  check_at_limit(run);
  const auto crashes = run.records("crash");
  REQUIRE(crashes.size() == 3);
  CHECK(crashes[0]->get_string("why") == "execution timeout");
  // The second delivery comes once the lease has run out, not at the kill.
  const auto starts = run.records("attempt_start");
  REQUIRE(starts.size() == 3);
  CHECK(starts[1]->time - starts[0]->time >= sim::duration::from_s(60));
  CHECK(run.refunds() == 3);
}

TEST_CASE("SQS: with a stable key the killed runs replay the refund", "[execution-timeout]") {
  const test::scenario_run run(refund_then_model(
      "[queue]\nvisibility_timeout = \"1m\"\nmax_receive_count = 3\n[retry]\nmaximum_attempts = 3", "stable"));
  CHECK(run.records("execution_timeout").size() == 3);
  CHECK(run.refunds() == 1);
}

TEST_CASE("SQS: a slice that ends within the limit is not killed", "[execution-timeout]") {
  std::string text = refund_then_model("[queue]\nvisibility_timeout = \"2m\"");
  text.replace(text.find("execution_timeout = \"30s\""), 25, "execution_timeout = \"45s\"");
  const test::scenario_run run(text);
  CHECK(run.records("execution_timeout").empty());
  CHECK(run.records("crash").empty());
  CHECK(run.status_of("job_1") == job_status::done);
  CHECK(run.refunds() == 1);
}

TEST_CASE("Celery: time_limit kills the pool process, fails the task and acks it", "[execution-timeout]") {
  // Request.on_timeout: FAILURE (TimeLimitExceeded), acked with acks_late
  // because task_acks_on_failure_or_timeout defaults to True, even with
  // task_reject_on_worker_lost, which applies to a lost worker only.
  for (const char* late : {"false", "true"}) {
    INFO("acks_late = " << late);
    const test::scenario_run run(refund_then_model(fmt::format(
        "[queue]\nflavour = \"celery_redis\"\n[celery]\nacks_late = {}\nreject_on_worker_lost = {}", late, late)));
    const auto timeouts = run.records("execution_timeout");
    REQUIRE(timeouts.size() == 1);
    CHECK(action_of(*timeouts[0]) == "time_limit");
    check_at_limit(run);
    CHECK(run.records("crash").empty());  // the worker's main process lives on
    CHECK(run.records("attempt_start").size() == 1);
    CHECK(run.status_of("job_1") == job_status::failed);
    const std::optional<job_row> row = run.w->db().find_job("job_1");
    CHECK(row->last_error == "TimeLimitExceeded");
    CHECK(run.refunds() == 1);  // the effect before the kill stands
    CHECK(run.w->jobs_queue().size() == 0);
  }
}

TEST_CASE("Sidekiq, Pub/Sub and Kafka: the handler raises at the limit and the job is retried", "[execution-timeout]") {
  const std::vector<std::pair<std::string, std::string>> flavours = {
      {"sidekiq", "[queue]\nflavour = \"sidekiq\"\n[retry]\nmaximum_attempts = 2\ninitial_interval = \"1s\""},
      {"pubsub", "[queue]\nflavour = \"pubsub\"\n[retry]\nmaximum_attempts = 2"},
      {"kafka",
       "[queue]\nflavour = \"kafka\"\n[kafka]\nmax_poll_interval = \"10m\"\nauto_offset_reset = "
       "\"earliest\"\n[retry]\nmaximum_attempts = 2"},
  };
  for (const auto& [name, lines] : flavours) {
    INFO(name);
    const test::scenario_run run(refund_then_model(lines));
    const auto timeouts = run.records("execution_timeout");
    REQUIRE(timeouts.size() == 2);
    for (const sim::trace_record* t : timeouts) CHECK(action_of(*t) == "raise");
    check_at_limit(run);
    CHECK(run.records("crash").empty());
    // The call in flight is abandoned at the limit: its span ends then, as
    // a timeout the runtime's own.
    int abandoned = 0;
    for (const sim::trace_record* c : run.records("tool_call"))
      if (c->get_string("error") == "execution_timeout") ++abandoned;
    CHECK(abandoned == 2);
    CHECK(run.refunds() == 2);  // the retry pays again: no key
  }
}

TEST_CASE("runtime.execution_timeout is checked where it is written", "[execution-timeout][scenario]") {
  const load_result zero = load_scenario_text("[runtime]\nexecution_timeout = \"0s\"\n", "t.toml");
  REQUIRE(zero.errors.size() == 1);
  CHECK(zero.errors[0].line == 2);
  CHECK(zero.errors[0].key == "runtime.execution_timeout");
  const load_result number = load_scenario_text("[runtime]\nexecution_timeout = 30\n", "t.toml");
  REQUIRE(number.errors.size() == 1);
  CHECK(number.errors[0].to_string() ==
        "t.toml:2:21: runtime.execution_timeout: expected a duration string like \"30s\", found integer 30");
  const load_result ok = load_scenario_text("[runtime]\nexecution_timeout = \"15m\"\n", "t.toml");
  for (const scenario_error& e : ok.errors) CHECK(e.key != "runtime.execution_timeout");
}
