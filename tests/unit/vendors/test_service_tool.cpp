// The service tools: the built-in email provider (takes no key), slow model
// call and fast read, and tools a scenario defines, with what their far side
// does with a key (ignored, a dedupe window, Stripe's stored responses).

#include <catch2/catch.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>

#include "vendors/service_tool.hpp"

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

service_tool_config fixed_email(sim::duration latency) {
  service_tool_config c = email_tool_config();
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
  service_tool email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
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
  REQUIRE(email.effects().size() == 2);
  CHECK(email.effects()[0].at == at_ms(100));
  CHECK(email.effects()[1].at == at_ms(1'100));
  CHECK(email.effect_count("ann@example.com") == 2);
  CHECK(email.effect_count("bob@example.com") == 0);
}

TEST_CASE("a write tool keeps a bounded sample of its effects, the first ones, and counts them all", "[tools]") {
  tools_world w;
  service_tool email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  const std::size_t sent = service_tool::effect_sample_max + 10;
  for (std::size_t i = 0; i < sent; ++i)
    w.send_at(email, static_cast<std::int64_t>(1'000 * i),
              email_to(i % 2 == 0 ? "ann@example.com" : "bob@example.com"));
  w.k.run();
  CHECK(email.stats().effects == sent);
  REQUIRE(email.effects().size() == service_tool::effect_sample_max);
  for (std::size_t i = 0; i < email.effects().size(); ++i) {
    CHECK(email.effects()[i].at == at_ms(static_cast<std::int64_t>(1'000 * i + 100)));
    CHECK(email.effects()[i].target == (i % 2 == 0 ? "ann@example.com" : "bob@example.com"));
  }
  CHECK(email.effect_count("ann@example.com") == sent / 2);  // counted per target past the sample
  CHECK(email.effect_count("bob@example.com") == sent / 2);
}

TEST_CASE("an email outage answers 503 and sends nothing; after it, the email goes out", "[tools]") {
  tools_world w;
  service_tool email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  email.add_outage(at_ms(0), at_ms(1'000));
  outcome& during = w.send_at(email, 0, email_to("ann@example.com"));
  outcome& after = w.send_at(email, 1'000, email_to("ann@example.com"));
  w.k.run();
  CHECK(result_of(during).status == 503);
  CHECK(result_of(during).error_code == "unavailable");
  CHECK(result_of(during).retryable());
  CHECK(result_of(after).ok());
  CHECK(email.effect_count("ann@example.com") == 1);
  CHECK(email.stats().rejections_by_status.at(503) == 1);
}

TEST_CASE("a slow email provider: the caller times out, the email is sent anyway", "[tools]") {
  tools_world w;
  service_tool_config c = fixed_email(5_s);
  c.client_timeout = 2_s;
  service_tool email(w.k, w.events, sim::random_stream(1), c);
  outcome& o = w.send_at(email, 0, email_to("ann@example.com"));
  w.k.run({.until = at_ms(2'000)});
  CHECK(result_of(o).timed_out());
  CHECK(email.effects().empty());
  w.k.run();
  CHECK(email.effect_count("ann@example.com") == 1);  // an ambiguous success
  CHECK(email.stats().client_timeouts == 1);
}

TEST_CASE("a caller killed mid-send does not stop the email", "[tools]") {
  tools_world w;
  service_tool email(w.k, w.events, sim::random_stream(1), fixed_email(100_ms));
  outcome& o = w.send_at(email, 0, email_to("ann@example.com"));
  w.k.run({.until = at_ms(50)});
  REQUIRE(w.k.kill(w.last_pid));
  w.k.run();
  CHECK_FALSE(o.result.has_value());
  CHECK(email.effect_count("ann@example.com") == 1);
  CHECK(email.request_records() == 1);
}

TEST_CASE("the model tool is a slow read: lognormal p50 4 s, p99 20 s by default", "[tools]") {
  tools_world w;
  service_tool model(w.k, w.events, sim::random_stream(3), model_tool_config());
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
  CHECK(slow > 60);  // about half
  CHECK(slow < 140);
  CHECK(model.stats().executing_peak == 200);
}

TEST_CASE("the model tool's 503 rate answers before any work", "[tools]") {
  tools_world w;
  service_tool_config c = model_tool_config();
  c.unavailable_ppm = ppm_denominator;
  service_tool model(w.k, w.events, sim::random_stream(3), c);
  outcome& o = w.send_at(model, 0, tool_call{"prompt", 0, std::nullopt});
  w.k.run();
  CHECK(result_of(o).status == 503);
  CHECK(result_of(o).retryable());
  CHECK(o.answered_at == at_ms(10));  // one round trip
  CHECK(model.stats().executions == 0);
}

TEST_CASE("the read tool is fast and read-only", "[tools]") {
  tools_world w;
  service_tool read(w.k, w.events, sim::random_stream(4), read_tool_config());
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
  service_tool_config c = email_tool_config();
  c.unavailable_ppm = 200'000;
  c.client_timeout = 500_ms;
  service_tool email(k, events, sim::random_stream(seed), c);
  std::deque<outcome> outcomes;
  for (int i = 0; i < 50; ++i) {
    outcomes.emplace_back();
    k.spawn(call_at(k, at_ms(i * 20), email, email_to("user" + std::to_string(i % 7)), outcomes.back()));
  }
  k.run();
  return events.digest();
}

}  // namespace

TEST_CASE("service tools are deterministic: same seed, same digest", "[tools]") {
  CHECK(email_digest(11) == email_digest(11));
  CHECK(email_digest(11) != email_digest(12));
}

// ---- tools of a scenario's own -------------------------------------------------

namespace {

service_tool_config upload(key_handling keys, sim::duration latency) {
  service_tool_config c;
  c.name = "upload";
  c.effect = tool_effect::write;
  c.keys = keys;
  c.latency = latency_model::fixed(latency);
  return c;
}

tool_call put(std::string target, std::optional<std::string> key) {
  tool_call c{std::move(target), 0, std::move(key)};
  c.reference = "job_1:step_1:upload";
  return c;
}

}  // namespace

TEST_CASE("a dedupe window accepts a repeated key and does nothing, until the window ends", "[tools]") {
  tools_world w;
  service_tool_config c = upload(key_handling::dedupe, 100_ms);
  c.key_retention = 5_s;  // SQS FIFO's is 5 minutes
  service_tool up(w.k, w.events, sim::random_stream(1), c);
  CHECK(up.accepts_key());
  outcome& first = w.send_at(up, 0, put("file_1", "k1"));
  outcome& again = w.send_at(up, 1'000, put("file_1", "k1"));
  outcome& after = w.send_at(up, 6'000, put("file_1", "k1"));  // the key was recorded at 100 ms
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK(result_of(first).ref == "upload_1");
  CHECK(result_of(again).ok());
  CHECK(result_of(again).replayed);
  CHECK(result_of(again).ref.empty());  // nothing stored to give back
  CHECK(again.answered_at == at_ms(1'010));
  CHECK(result_of(after).ok());
  CHECK_FALSE(result_of(after).replayed);
  CHECK(up.effect_count("file_1") == 2);
  CHECK(up.stats().deduplicated == 1);
  CHECK(up.stats().keys_pruned == 1);
}

TEST_CASE("a dedupe window does not lock a key in flight: a retry during the first request has its effect too",
          "[tools]") {
  tools_world w;
  service_tool_config c = upload(key_handling::dedupe, 5_s);
  c.client_timeout = 2_s;
  service_tool up(w.k, w.events, sim::random_stream(1), c);
  outcome& first = w.send_at(up, 0, put("file_1", "k1"));
  outcome& retry = w.send_at(up, 2'000, put("file_1", "k1"));
  w.k.run();
  CHECK(result_of(first).timed_out());
  CHECK(result_of(retry).timed_out());
  CHECK(up.effect_count("file_1") == 2);
  // Stripe's layer, the same calls: the retry is 409 and there is one effect.
  tools_world w2;
  c.keys = key_handling::stored_response;
  service_tool stripe_like(w2.k, w2.events, sim::random_stream(1), c);
  w2.send_at(stripe_like, 0, put("file_1", "k1"));
  outcome& conflict = w2.send_at(stripe_like, 2'000, put("file_1", "k1"));
  outcome& later = w2.send_at(stripe_like, 6'000, put("file_1", "k1"));
  w2.k.run();
  CHECK(result_of(conflict).status == 409);
  CHECK(result_of(conflict).retryable());
  CHECK(result_of(later).ok());
  CHECK(result_of(later).replayed);
  CHECK(result_of(later).ref == "upload_1");
  CHECK(stripe_like.effect_count("file_1") == 1);
}

TEST_CASE("a dedupe window keeps only successes; Stripe's layer replays a stored 500", "[tools]") {
  for (const key_handling keys : {key_handling::dedupe, key_handling::stored_response}) {
    tools_world w;
    service_tool_config c = upload(keys, 100_ms);
    c.internal_error_ppm = ppm_denominator;
    service_tool failing(w.k, w.events, sim::random_stream(1), c);
    outcome& first = w.send_at(failing, 0, put("file_1", "k1"));
    outcome& retry = w.send_at(failing, 1'000, put("file_1", "k1"));
    w.k.run();
    CHECK(result_of(first).status == 500);
    CHECK(failing.effects().empty());
    if (keys == key_handling::stored_response) {
      CHECK(result_of(retry).replayed);  // "Retries with the same key return the saved response, including 500 errors"
      CHECK(result_of(retry).status == 500);
      CHECK(failing.stats().executions == 1);
    } else {
      CHECK_FALSE(result_of(retry).replayed);
      CHECK(failing.stats().executions == 2);
    }
  }
}

TEST_CASE("a lost response: the effect happened, the caller hears nothing", "[tools]") {
  tools_world w;
  service_tool_config c = upload(key_handling::ignored, 100_ms);
  c.lost_response_ppm = ppm_denominator;
  c.client_timeout = 1_s;
  service_tool up(w.k, w.events, sim::random_stream(1), c);
  outcome& o = w.send_at(up, 0, put("file_1", "k1"));
  w.k.run();
  CHECK(result_of(o).timed_out());
  CHECK(o.answered_at == at_ms(1'000));
  CHECK(up.effect_count("file_1") == 1);
  CHECK(up.stats().lost_responses == 1);
}

TEST_CASE("lost requests, rate limits and capacity answer before any effect", "[tools]") {
  tools_world w;
  service_tool_config lost = upload(key_handling::ignored, 100_ms);
  lost.lost_request_ppm = ppm_denominator;
  lost.client_timeout = 1_s;
  service_tool a(w.k, w.events, sim::random_stream(1), lost);
  service_tool_config limited = upload(key_handling::ignored, 100_ms);
  limited.name = "charge";
  limited.rate_limited_ppm = ppm_denominator;
  limited.retry_after = 7_s;
  service_tool b(w.k, w.events, sim::random_stream(2), limited);
  service_tool_config small = upload(key_handling::ignored, 1_s);
  small.name = "invoke";
  small.capacity = 2;
  small.pool.servers = 1;  // one executes, one waits: both count
  service_tool d(w.k, w.events, sim::random_stream(3), small);
  outcome& l = w.send_at(a, 0, put("x", std::nullopt));
  outcome& r = w.send_at(b, 0, put("x", std::nullopt));
  w.send_at(d, 0, put("x", std::nullopt));
  w.send_at(d, 0, put("y", std::nullopt));
  outcome& over = w.send_at(d, 0, put("z", std::nullopt));
  w.k.run();
  CHECK(result_of(l).timed_out());
  CHECK(a.stats().lost_requests == 1);
  CHECK(result_of(r).status == 429);
  CHECK(result_of(r).retry_after == 7_s);
  CHECK(result_of(over).status == 503);
  CHECK(result_of(over).error_code == "overloaded");
  CHECK(a.effects().empty());
  CHECK(b.effects().empty());
  CHECK(d.effects().size() == 2);
}

TEST_CASE("Stripe's layer gives a key back when its request was dropped unserved from the queue", "[tools]") {
  tools_world w;
  service_tool_config c = upload(key_handling::stored_response, 1_s);
  c.pool.servers = 1;
  c.pool.queue_timeout = 500_ms;
  service_tool up(w.k, w.events, sim::random_stream(1), c);
  w.send_at(up, 0, put("file_1", "k1"));
  outcome& dropped = w.send_at(up, 100, put("file_2", "k2"));  // waits 900 ms: dropped at 1 s
  outcome& retry = w.send_at(up, 1'500, put("file_2", "k2"));  // executes: the key was given back
  w.k.run();
  CHECK(result_of(dropped).status == 503);
  CHECK(result_of(retry).ok());
  CHECK_FALSE(result_of(retry).replayed);
  CHECK(up.effect_count("file_2") == 1);
}

namespace {
service_tool_config versioned_row(sim::duration leg) {
  service_tool_config c;
  c.name = "row";
  c.effect = tool_effect::write;
  c.optimistic_lock = true;
  c.latency = latency_model::fixed(leg);
  return c;
}
}  // namespace

TEST_CASE("an optimistic lock: a write whose version moved since its read is 409 conflict, with no effect", "[tools]") {
  tools_world w;
  // Legs of 10 ms: a call reads at +10 ms, writes at +30 ms, hears at +40 ms.
  service_tool row(w.k, w.events, sim::random_stream(1), versioned_row(10_ms));
  outcome& first = w.send_at(row, 0, email_to("row"));    // reads at 10, writes at 30
  outcome& second = w.send_at(row, 5, email_to("row"));   // reads at 15: the first writes after it
  outcome& third = w.send_at(row, 20, email_to("row"));   // reads at 30, with the first's write
  outcome& other = w.send_at(row, 5, email_to("other"));  // another target: another row
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK(first.answered_at == at_ms(40));
  CHECK(result_of(second).status == 409);
  CHECK(result_of(second).error_code == "conflict");
  CHECK(result_of(second).retryable());
  CHECK(second.answered_at == at_ms(45));
  // A read sees a write committed at its own instant.
  CHECK(result_of(third).ok());
  CHECK(result_of(other).ok());
  CHECK(row.effect_count("row") == 2);
  CHECK(row.effect_count("other") == 1);
  CHECK(row.stats().calls == 4);
}

TEST_CASE("an optimistic lock's four legs are drawn from the latency: |normal(10 ms, 2 ms)| each", "[tools]") {
  tools_world w;
  service_tool_config c = versioned_row(10_ms);
  c.latency = latency_model::normal(10_ms, 2_ms);
  service_tool row(w.k, w.events, sim::random_stream(7), c);
  for (int i = 0; i < 200; ++i) w.send_at(row, i * 1'000, email_to("row_" + std::to_string(i)));
  w.k.run();
  sim::duration total = sim::duration::zero();
  for (std::size_t i = 0; i < w.outcomes.size(); ++i) {
    REQUIRE(result_of(w.outcomes[i]).ok());
    const sim::duration took = w.outcomes[i].answered_at - at_ms(static_cast<std::int64_t>(i) * 1'000);
    CHECK(took > 16_ms);  // four legs, each far above 4 ms (3 sd below the mean)
    CHECK(took < 64_ms);
    total = total + took;
  }
  // Four legs of 10 ms on average.
  CHECK(total.us() / 200 == Approx(40'000).epsilon(0.05));
}
