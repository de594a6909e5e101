// The simple tools: an email provider that takes no key, a slow model call
// and a fast read, on the same far-side machinery as the payment vendor.

#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "events/event_log.hpp"
#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "sim/sleep.hpp"
#include "sim/task.hpp"
#include "sim/trace.hpp"
#include "vendors/simple_tools.hpp"

using namespace twice;
using namespace twice::sim::literals;

namespace {

sim::instant at_ms(std::int64_t ms) { return sim::instant::from_us(ms * 1'000); }

struct outcome {
  std::optional<tool_result> result;
  sim::instant answered_at;
};

sim::task<void> call_at(sim::kernel& k, sim::instant start, tool& t, tool_call request, outcome& out) {
  co_await sim::sleep_until(start);
  out.result = co_await t.call(std::move(request));
  out.answered_at = k.now();
}

// A kernel, a trace and callers; the tool under test is built by each case.
struct tools_world {
  outcome& send_at(tool& t, std::int64_t start_ms, tool_call request) {
    outcomes.emplace_back();
    last_pid = k.spawn(call_at(k, at_ms(start_ms), t, std::move(request), outcomes.back()), "caller");
    return outcomes.back();
  }

  sim::kernel k;
  event_log events{k};
  std::deque<outcome> outcomes;
  sim::process_id last_pid;
};

simple_tool_config fixed_email(sim::duration latency) {
  simple_tool_config c = email_provider::default_config();
  c.latency = latency_model::fixed(latency);
  return c;
}

tool_call email_to(std::string recipient, std::optional<std::string> key = std::nullopt) {
  return tool_call{std::move(recipient), 0, std::move(key)};
}

const tool_result& result_of(const outcome& o) {
  REQUIRE(o.result.has_value());
  return *o.result;
}

}  // namespace

TEST_CASE("the email provider ignores keys: the same key twice sends twice", "[tools]") {
  tools_world w;
  email_provider email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  CHECK(email.writes());
  CHECK_FALSE(email.accepts_key());
  CHECK(email.name() == "email");
  outcome& first = w.send_at(email, 0, email_to("ann@example.com", "job-1"));
  outcome& second = w.send_at(email, 1'000, email_to("ann@example.com", "job-1"));
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK(result_of(second).ok());
  CHECK_FALSE(result_of(second).replayed);
  CHECK(result_of(first).ref == "em_1");
  CHECK(result_of(second).ref == "em_2");
  REQUIRE(email.sent().size() == 2);
  CHECK(email.sent()[0].sent_at == at_ms(100));
  CHECK(email.sent()[1].sent_at == at_ms(1'100));
  CHECK(email.sent_count("ann@example.com") == 2);
  CHECK(email.sent_count("bob@example.com") == 0);
}

TEST_CASE("an email outage answers 503 and sends nothing; after it, the email goes out", "[tools]") {
  tools_world w;
  email_provider email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  email.add_outage(at_ms(0), at_ms(1'000));
  outcome& during = w.send_at(email, 0, email_to("ann@example.com"));
  outcome& after = w.send_at(email, 1'000, email_to("ann@example.com"));
  w.k.run();
  CHECK(result_of(during).status == 503);
  CHECK(result_of(during).error_code == "unavailable");
  CHECK(result_of(during).retryable());
  CHECK(result_of(after).ok());
  CHECK(email.sent_count("ann@example.com") == 1);
  CHECK(email.stats().rejections_by_status.at(503) == 1);
}

TEST_CASE("a slow email provider: the caller times out, the email is sent anyway", "[tools]") {
  tools_world w;
  simple_tool_config c = fixed_email(5_s);
  c.client_timeout = 2_s;
  email_provider email(w.k, w.events, sim::random_stream(1), c);
  outcome& o = w.send_at(email, 0, email_to("ann@example.com"));
  w.k.run({.until = at_ms(2'000)});
  CHECK(result_of(o).timed_out());
  CHECK(email.sent().empty());
  w.k.run();
  CHECK(email.sent_count("ann@example.com") == 1);  // an ambiguous success
  CHECK(email.stats().client_timeouts == 1);
}

TEST_CASE("a caller killed mid-send does not stop the email", "[tools]") {
  tools_world w;
  email_provider email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  outcome& o = w.send_at(email, 0, email_to("ann@example.com"));
  w.k.run({.until = at_ms(50)});
  REQUIRE(w.k.kill(w.last_pid));
  w.k.run();
  CHECK_FALSE(o.result.has_value());
  CHECK(email.sent_count("ann@example.com") == 1);
  CHECK(email.request_records() == 1);
}

TEST_CASE("the model tool is a slow read: lognormal p50 4 s, p99 20 s by default", "[tools]") {
  tools_world w;
  model_tool model(w.k, w.events, sim::random_stream(3));
  CHECK(model.name() == "model");
  CHECK_FALSE(model.writes());
  CHECK_FALSE(model.accepts_key());
  CHECK(model.config().latency.describe() == "lognormal(p50=4s, p99=20s)");
  CHECK(model.config().latency.p99() == 20_s);
  for (int i = 0; i < 200; ++i) w.send_at(model, 0, tool_call{"prompt-" + std::to_string(i), 0, std::nullopt});
  w.k.run();
  int slow = 0;
  for (const outcome& o : w.outcomes) {
    REQUIRE(o.result.has_value());
    if (o.result->ok() && o.answered_at > at_ms(4'000)) ++slow;
  }
  CHECK(slow > 60);   // about half
  CHECK(slow < 140);
  CHECK(model.stats().executing_peak == 200);
}

TEST_CASE("the model tool's 503 rate answers before any work", "[tools]") {
  tools_world w;
  simple_tool_config c = model_tool::default_config();
  c.unavailable_ppm = ppm_denominator;
  model_tool model(w.k, w.events, sim::random_stream(3), c);
  outcome& o = w.send_at(model, 0, tool_call{"prompt", 0, std::nullopt});
  w.k.run();
  CHECK(result_of(o).status == 503);
  CHECK(result_of(o).retryable());
  CHECK(o.answered_at == at_ms(10));  // one round trip
  CHECK(model.stats().executions == 0);
}

TEST_CASE("the read tool is fast and read-only", "[tools]") {
  tools_world w;
  read_tool read(w.k, w.events, sim::random_stream(4));
  CHECK(read.name() == "read");
  CHECK_FALSE(read.writes());
  outcome& o = w.send_at(read, 0, tool_call{"doc-1", 0, std::nullopt});
  w.k.run();
  CHECK(result_of(o).ok());
  CHECK(o.answered_at < at_ms(1'000));
  REQUIRE_FALSE(w.events.records().empty());
  CHECK(w.events.records().front().actor == "vendor/read");
}

namespace {

std::uint64_t email_digest(std::uint64_t seed) {
  sim::kernel k;
  event_log events{k};
  simple_tool_config c = email_provider::default_config();
  c.unavailable_ppm = 200'000;
  c.client_timeout = 500_ms;
  email_provider email(k, events, sim::random_stream(seed), c);
  std::deque<outcome> outcomes;
  for (int i = 0; i < 50; ++i) {
    outcomes.emplace_back();
    k.spawn(call_at(k, at_ms(i * 20), email, email_to("user" + std::to_string(i % 7)), outcomes.back()));
  }
  k.run();
  return events.digest();
}

}  // namespace

TEST_CASE("simple tools are deterministic: same seed, same digest", "[tools]") {
  CHECK(email_digest(11) == email_digest(11));
  CHECK(email_digest(11) != email_digest(12));
}
