// The payment vendor (Stripe-shaped refunds with idempotency keys) and the
// latency models it samples from. Every call runs from a coroutine spawned on
// a kernel, as a worker's would.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>
#include <twice/vendors/call_stats.hpp>
#include <twice/vendors/latency_model.hpp>
#include <twice/vendors/tool_faults.hpp>

#include "vendors/service_tool.hpp"

using namespace twice;
using namespace twice::sim::literals;

namespace {

sim::instant at_ms(std::int64_t ms) { return sim::instant::from_us(ms * 1'000); }

// Coroutines get their tool_call from a function (or a named local), never as
// a braced temporary inside the co_await expression: GCC 12 miscompiles an
// aggregate temporary there (its strings are freed twice; compare
// chriskohlhoff/asio#1073, `co_yield Wrapper{"hi"}`).
tool_call refund(std::string invoice, std::int64_t amount, std::optional<std::string> key = std::nullopt) {
  return tool_call{std::move(invoice), amount, std::move(key)};
}

// What one caller saw, and when.
struct outcome {
  std::optional<tool_result> result;
  sim::instant answered_at;
};

sim::task<void> call_at(sim::kernel& k, sim::instant start, tool& t, tool_call request, outcome& out) {
  co_await sim::sleep_until(start);
  out.result = co_await t.call(std::move(request));
  out.answered_at = k.now();
}

// Fixed 100 ms latency and no random faults: every outcome in a test is the
// one it sets up.
service_tool_config quiet_config() {
  service_tool_config c = payment_tool_config();
  c.latency = latency_model::fixed(100_ms);
  return c;
}

struct vendor_world {
  explicit vendor_world(service_tool_config config = quiet_config(), std::uint64_t seed = 7)
      : vendor(k, events, sim::random_stream(seed), std::move(config)) {}

  // Spawns a caller that sends `request` at `start_ms`.
  outcome& send_at(std::int64_t start_ms, tool_call request) {
    outcomes.emplace_back();
    last_pid = k.spawn(call_at(k, at_ms(start_ms), vendor, std::move(request), outcomes.back()), "caller");
    return outcomes.back();
  }

  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const sim::trace_record& r : events.records()) out.push_back(r.kind);
    return out;
  }

  sim::kernel k;
  event_log events{k};
  service_tool vendor;
  std::deque<outcome> outcomes;  // deque: references stay valid
  sim::process_id last_pid;
};

const tool_result& result_of(const outcome& o) {
  REQUIRE(o.result.has_value());
  return *o.result;
}

}  // namespace

// ---- idempotency -------------------------------------------------------------

TEST_CASE("a refund without a key executes every time: two calls, two ledger rows", "[vendor]") {
  vendor_world w;
  outcome& first = w.send_at(0, refund("in_1", 500));
  outcome& second = w.send_at(1'000, refund("in_1", 500));
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK(result_of(second).ok());
  CHECK(result_of(first).ref == "re_1");
  CHECK(result_of(second).ref == "re_2");
  CHECK_FALSE(result_of(second).replayed);
  REQUIRE(w.vendor.ledger().size() == 2);
  CHECK(w.vendor.ledger()[0].invoice == "in_1");
  CHECK(w.vendor.ledger()[0].committed_at == at_ms(100));
  CHECK_FALSE(w.vendor.ledger()[0].idempotency_key.has_value());
  CHECK(w.vendor.stats().effects == 2);
  CHECK(w.vendor.stats().moved_cents == 1'000);
  CHECK(first.answered_at == at_ms(100));
}

TEST_CASE("the same key twice: one ledger row, the second call replays the same ref", "[vendor]") {
  vendor_world w;
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& second = w.send_at(1'000, refund("in_1", 500, "job-1"));
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK_FALSE(result_of(first).replayed);
  CHECK(result_of(second).ok());
  CHECK(result_of(second).replayed);
  CHECK(result_of(second).ref == result_of(first).ref);
  CHECK(second.answered_at == at_ms(1'010));  // a replay takes one round trip
  REQUIRE(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.ledger()[0].idempotency_key == std::optional<std::string>("job-1"));
  CHECK(w.vendor.stats().replays == 1);
  CHECK(w.vendor.stats().executions == 1);
}

TEST_CASE("the same key while the first request still executes: 409, no effect", "[vendor]") {
  vendor_world w;
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& racing = w.send_at(50, refund("in_1", 500, "job-1"));
  outcome& later = w.send_at(200, refund("in_1", 500, "job-1"));
  w.k.run();
  CHECK(result_of(first).ok());
  CHECK(result_of(racing).status == 409);
  CHECK(result_of(racing).error_code == "idempotency_key_in_use");
  CHECK(result_of(racing).retryable());
  CHECK(racing.answered_at == at_ms(60));
  CHECK(result_of(later).replayed);  // the 409 stored nothing: the first response stands
  CHECK(result_of(later).ref == "re_1");
  CHECK(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.stats().rejections_by_status.at(409) == 1);
}

TEST_CASE("the same key with different parameters: 400 idempotency_error, never retryable", "[vendor]") {
  vendor_world w;
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& while_running = w.send_at(50, refund("in_1", 700, "job-1"));
  outcome& other_amount = w.send_at(500, refund("in_1", 700, "job-1"));
  outcome& other_target = w.send_at(600, refund("in_2", 500, "job-1"));
  w.k.run();
  CHECK(result_of(first).ok());
  for (const outcome* o : {&while_running, &other_amount, &other_target}) {
    CHECK(result_of(*o).status == 400);
    CHECK(result_of(*o).error_code == "idempotency_error");
    CHECK_FALSE(result_of(*o).retryable());
  }
  CHECK(w.vendor.ledger().size() == 1);
}

TEST_CASE("a 500 after execution began is stored and replayed; no key means a fresh attempt", "[vendor]") {
  service_tool_config c = quiet_config();
  c.internal_error_ppm = ppm_denominator;
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& retry = w.send_at(1'000, refund("in_1", 500, "job-1"));
  outcome& keyless = w.send_at(2'000, refund("in_1", 500));
  w.k.run();
  CHECK(result_of(first).status == 500);
  CHECK(result_of(first).error_code == "api_error");
  CHECK_FALSE(result_of(first).replayed);
  CHECK(result_of(retry).status == 500);
  CHECK(result_of(retry).replayed);
  CHECK_FALSE(result_of(keyless).replayed);
  CHECK(result_of(keyless).status == 500);
  CHECK(w.vendor.ledger().empty());
  CHECK(w.vendor.stats().rejections_by_status.at(500) == 2);  // the replay is not a fresh 500
  CHECK(w.vendor.stats().replays == 1);
}

TEST_CASE("503 and 429 come before any effect and store nothing: a retry with the key executes", "[vendor]") {
  SECTION("an outage from the config") {
    service_tool_config c = quiet_config();
    c.outages.push_back({at_ms(0), at_ms(1'000)});
    vendor_world w(c);
    outcome& during = w.send_at(0, refund("in_1", 500, "job-1"));
    outcome& after = w.send_at(2'000, refund("in_1", 500, "job-1"));
    w.k.run({.until = at_ms(500)});
    CHECK(result_of(during).status == 503);
    CHECK(result_of(during).error_code == "unavailable");
    CHECK(result_of(during).retryable());
    CHECK(during.answered_at == at_ms(10));
    CHECK_FALSE(w.vendor.knows_key("job-1"));
    w.k.run();
    CHECK(result_of(after).ok());
    CHECK_FALSE(result_of(after).replayed);
    CHECK(w.vendor.ledger().size() == 1);
  }
  SECTION("random 503") {
    service_tool_config c = quiet_config();
    c.unavailable_ppm = ppm_denominator;
    vendor_world w(c);
    outcome& o = w.send_at(0, refund("in_1", 500, "job-1"));
    w.k.run();
    CHECK(result_of(o).status == 503);
    CHECK(w.vendor.stored_keys() == 0);
    CHECK(w.vendor.stats().executions == 0);
  }
  SECTION("429 carries retry_after") {
    service_tool_config c = quiet_config();
    c.rate_limited_ppm = ppm_denominator;
    c.retry_after = 2_s;
    vendor_world w(c);
    outcome& o = w.send_at(0, refund("in_1", 500, "job-1"));
    w.k.run();
    CHECK(result_of(o).status == 429);
    CHECK(result_of(o).error_code == "rate_limited");
    CHECK(result_of(o).retry_after == 2_s);
    CHECK(result_of(o).retryable());
    CHECK(w.vendor.stored_keys() == 0);
    CHECK(w.vendor.stats().rejections_by_status.at(429) == 1);
  }
}

TEST_CASE("the payment vendor's servers: refunds wait their turn, a stale one is dropped and its key given back",
          "[vendor]") {
  service_tool_config c = quiet_config();
  c.pool = {.servers = 1, .queue_timeout = 150_ms, .order = queue_order::fifo};
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& second = w.send_at(10, refund("in_2", 500, "job-2"));  // waits 90 ms, runs 100 ms
  outcome& third = w.send_at(20, refund("in_3", 500, "job-3"));   // waits 180 ms: over 150 ms, dropped
  outcome& retry = w.send_at(1'000, refund("in_3", 500, "job-3"));
  w.k.run();
  CHECK(first.answered_at == at_ms(100));
  CHECK(result_of(second).ok());
  CHECK(second.answered_at == at_ms(200));
  CHECK(result_of(third).status == 503);
  CHECK(third.answered_at == at_ms(200));
  // Dropped unserved, it stored nothing: the retry with its key executes.
  CHECK(result_of(retry).ok());
  CHECK_FALSE(result_of(retry).replayed);
  CHECK(w.vendor.ledger().size() == 3);
}

TEST_CASE("a bad invoice is a 400 that no retry fixes, and it is stored once execution began", "[vendor]") {
  service_tool_config c = quiet_config();
  c.bad_targets.insert("in_missing");
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_missing", 500, "job-1"));
  outcome& retry = w.send_at(1'000, refund("in_missing", 500, "job-1"));
  w.k.run();
  CHECK(result_of(first).status == 400);
  CHECK(result_of(first).error_code == "invoice_not_found");
  CHECK_FALSE(result_of(first).retryable());
  CHECK(first.answered_at == at_ms(100));  // found during execution, not at the door
  CHECK(result_of(retry).status == 400);
  CHECK(result_of(retry).replayed);
  CHECK(w.vendor.ledger().empty());
}

TEST_CASE("a non-positive amount fails validation: 400, nothing stored", "[vendor]") {
  vendor_world w;
  outcome& o = w.send_at(0, refund("in_1", 0, "job-1"));
  w.k.run();
  CHECK(result_of(o).status == 400);
  CHECK(result_of(o).error_code == "amount_too_small");
  CHECK(w.vendor.stored_keys() == 0);
}

// ---- ambiguous outcomes --------------------------------------------------------

TEST_CASE("a response lost after commit: the caller sees a timeout, the ledger has the refund, the key tells",
          "[vendor]") {
  service_tool_config c = quiet_config();
  c.lost_response_ppm = ppm_denominator;
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& retry = w.send_at(31'000, refund("in_1", 500, "job-1"));
  w.k.run({.until = at_ms(30'000)});
  CHECK(result_of(first).timed_out());
  CHECK(result_of(first).error_code == "timeout");
  CHECK(result_of(first).retryable());
  CHECK(first.answered_at == at_ms(30'000));  // client_timeout 30 s
  REQUIRE(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.ledger()[0].committed_at == at_ms(100));
  w.k.run();
  CHECK(result_of(retry).ok());
  CHECK(result_of(retry).replayed);
  CHECK(result_of(retry).ref == w.vendor.ledger()[0].id);
  CHECK(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.stats().lost_responses == 1);
  CHECK(w.vendor.stats().client_timeouts == 1);
}

TEST_CASE("a request lost before the vendor: timeout, no effect, nothing stored", "[vendor]") {
  service_tool_config c = quiet_config();
  c.lost_request_ppm = ppm_denominator;
  vendor_world w(c);
  outcome& o = w.send_at(0, refund("in_1", 500, "job-1"));
  w.k.run();
  CHECK(result_of(o).timed_out());
  CHECK(o.answered_at == at_ms(30'000));
  CHECK(w.vendor.ledger().empty());
  CHECK(w.vendor.stored_keys() == 0);
  CHECK(w.vendor.stats().lost_requests == 1);
}

TEST_CASE("latency beyond the client timeout: status 0 first, the commit later", "[vendor]") {
  service_tool_config c = quiet_config();
  c.latency = latency_model::fixed(40_s);
  c.client_timeout = 30_s;
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& early_retry = w.send_at(35'000, refund("in_1", 500, "job-1"));
  outcome& late_retry = w.send_at(45'000, refund("in_1", 500, "job-1"));
  w.k.run({.until = at_ms(30'000)});
  CHECK(result_of(first).timed_out());
  CHECK(w.vendor.ledger().empty());  // not yet: the vendor is still working
  w.k.run();
  REQUIRE(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.ledger()[0].committed_at == at_ms(40'000));
  CHECK(result_of(early_retry).status == 409);  // the first is still executing
  CHECK(result_of(late_retry).replayed);
  CHECK(result_of(late_retry).ref == "re_1");
}

TEST_CASE("an answer due exactly at the client deadline arrives in time", "[vendor]") {
  service_tool_config c = quiet_config();
  c.latency = latency_model::fixed(30_s);
  vendor_world w(c);
  outcome& o = w.send_at(0, refund("in_1", 500));
  w.k.run();
  CHECK(result_of(o).ok());
  CHECK(o.answered_at == at_ms(30'000));
}

TEST_CASE("a caller killed mid-call does not stop the vendor from committing", "[vendor]") {
  vendor_world w;
  outcome& o = w.send_at(0, refund("in_1", 500, "job-1"));
  const sim::process_id caller = w.last_pid;
  w.k.run({.until = at_ms(50)});
  REQUIRE(w.k.kill(caller));
  w.k.run();
  CHECK_FALSE(o.result.has_value());
  REQUIRE(w.vendor.ledger().size() == 1);
  CHECK(w.vendor.ledger()[0].committed_at == at_ms(100));
  CHECK(w.vendor.stats().client_timeouts == 0);  // nobody was left to time out
  // The record was recycled: the next call reuses it. (The dead caller's
  // stale deadline timer still advanced the clock to 30 s.)
  outcome& next = w.send_at(31'000, refund("in_2", 500));
  w.k.run();
  CHECK(result_of(next).ok());
  CHECK(w.vendor.request_records() == 1);
}

TEST_CASE("a vendor destroyed before the kernel leaves suspended callers safe to destroy", "[vendor]") {
  sim::kernel k;
  event_log events{k};
  outcome o;
  {
    service_tool vendor(k, events, sim::random_stream(1), quiet_config());
    k.spawn(call_at(k, at_ms(0), vendor, refund("in_1", 500), o));
    k.run({.until = at_ms(50)});
  }
  // ~kernel destroys the caller's frame, which releases its hold on the
  // vendor's (shared) execution records without touching the vendor.
  CHECK_FALSE(o.result.has_value());
}

TEST_CASE("execution records are recycled: many calls keep only the peak in flight", "[vendor]") {
  vendor_world w;
  auto many = [](service_tool& v, int n) -> sim::task<void> {
    for (int i = 0; i < n; ++i) {
      const tool_result r = co_await v.call(refund("in_" + std::to_string(i), 100));
      TWICE_CHECK(r.ok());
    }
  };
  w.k.spawn(many(w.vendor, 2'000));
  w.k.spawn(many(w.vendor, 2'000));
  w.k.run();
  CHECK(w.vendor.ledger().size() == 4'000);
  CHECK(w.vendor.request_records() == 2);
}

// ---- retention, windows, capacity --------------------------------------------------

TEST_CASE("a key is pruned after the retention; reusing it then executes anew", "[vendor]") {
  service_tool_config c = quiet_config();
  c.key_retention = 1_s * 3'600;
  vendor_world w(c);
  outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
  outcome& within = w.send_at(30 * 60'000, refund("in_1", 500, "job-1"));
  outcome& after = w.send_at(2 * 3'600'000, refund("in_1", 500, "job-1"));
  w.k.run();
  CHECK(result_of(first).ref == "re_1");
  CHECK(result_of(within).replayed);
  CHECK_FALSE(result_of(after).replayed);
  CHECK(result_of(after).ref == "re_2");
  CHECK(w.vendor.ledger().size() == 2);
  CHECK(w.vendor.stats().keys_pruned == 1);
  const std::vector<std::string> kinds = w.kinds();
  CHECK(std::count(kinds.begin(), kinds.end(), "key_pruned") == 1);
}

// Stripe prunes keys "at least 24 hours old": a key exactly key_retention
// old is gone, one a microsecond younger still replays.
TEST_CASE("a key exactly key_retention old is pruned; a microsecond younger it replays", "[vendor]") {
  service_tool_config c = quiet_config();
  c.key_retention = 1_s * 3'600;
  const sim::instant retention_end = sim::instant::epoch() + c.key_retention;  // the key was created at 0
  for (const bool at_boundary : {false, true}) {
    INFO((at_boundary ? "reused at created_at + key_retention" : "reused 1 us before"));
    vendor_world w(c);
    outcome& first = w.send_at(0, refund("in_1", 500, "job-1"));
    outcome& again = w.outcomes.emplace_back();
    const sim::instant reuse_at = at_boundary ? retention_end : retention_end - 1_us;
    w.k.spawn(call_at(w.k, reuse_at, w.vendor, refund("in_1", 500, "job-1"), again), "caller");
    w.k.run();
    CHECK(result_of(first).ref == "re_1");
    CHECK(result_of(again).replayed == !at_boundary);
    CHECK(result_of(again).ref == (at_boundary ? "re_2" : "re_1"));
    CHECK(w.vendor.ledger().size() == (at_boundary ? 2u : 1u));
    CHECK(w.vendor.stats().keys_pruned == (at_boundary ? 1u : 0u));
  }
}

TEST_CASE("an outage window answers 503 inside and succeeds outside", "[vendor]") {
  vendor_world w;
  w.vendor.add_outage(at_ms(1'000), at_ms(2'000));
  outcome& before = w.send_at(500, refund("in_1", 100));
  outcome& inside = w.send_at(1'500, refund("in_2", 100));
  outcome& at_end = w.send_at(2'000, refund("in_3", 100));  // half open: the end is outside
  w.k.run();
  CHECK(result_of(before).ok());
  CHECK(result_of(inside).status == 503);
  CHECK(result_of(at_end).ok());
  CHECK(w.vendor.ledger().size() == 2);
}

TEST_CASE("a latency spike slows executions that arrive inside it", "[vendor]") {
  vendor_world w;
  w.vendor.add_latency_spike(at_ms(1'000), at_ms(2'000), 5_s);
  outcome& before = w.send_at(0, refund("in_1", 100));
  outcome& inside = w.send_at(1'500, refund("in_2", 100));
  w.k.run();
  CHECK(before.answered_at == at_ms(100));
  CHECK(inside.answered_at == at_ms(6'600));
}

TEST_CASE("capacity sheds executions beyond it with 503 overloaded; the peak is recorded", "[vendor]") {
  service_tool_config c = quiet_config();
  c.capacity = 2;
  vendor_world w(c);
  outcome& a = w.send_at(0, refund("in_1", 100));
  outcome& b = w.send_at(0, refund("in_2", 100));
  outcome& shed = w.send_at(0, refund("in_3", 100, "job-3"));
  outcome& later = w.send_at(200, refund("in_3", 100, "job-3"));
  w.k.run();
  CHECK(result_of(a).ok());
  CHECK(result_of(b).ok());
  CHECK(result_of(shed).status == 503);
  CHECK(result_of(shed).error_code == "overloaded");
  CHECK(result_of(later).ok());
  CHECK_FALSE(result_of(later).replayed);  // shedding stored nothing
  CHECK(w.vendor.stats().executing_peak == 2);
  CHECK(w.vendor.stats().rejections_by_status.at(503) == 1);
}

TEST_CASE("without a capacity the peak counts every concurrent execution", "[vendor]") {
  vendor_world w;
  for (int i = 0; i < 5; ++i) w.send_at(i * 10, refund("in_" + std::to_string(i), 100));
  w.send_at(500, refund("in_x", 100));
  w.k.run();
  CHECK(w.vendor.stats().executing_peak == 5);
  CHECK(w.vendor.ledger().size() == 6);
}

TEST_CASE("requests are counted per 100 ms bucket of their send time", "[vendor]") {
  vendor_world w;
  for (const std::int64_t ms : {0, 50, 99, 100, 250, 260, 1'000}) w.send_at(ms, refund("in_1", 100));
  w.k.run();
  using bucket = request_buckets::bucket;
  const std::vector<bucket> expected{{0, 3}, {2, 2}, {1, 1}, {10, 1}};
  CHECK(w.vendor.stats().requests_per_100ms.tallest() == expected);
  CHECK(w.vendor.stats().requests_per_100ms.peak() == 3);
  CHECK(w.vendor.stats().calls == 7);
}

// ---- observability and determinism ----------------------------------------------

TEST_CASE("only the tallest request buckets are kept, tallest first, the earlier of a tie first", "[vendor]") {
  request_buckets buckets;
  // Bucket b gets b % 20 requests (b = 0 .. 99): heights 19 four times, 18 four times, ...
  for (std::int64_t b = 0; b < 100; ++b)
    for (std::int64_t r = 0; r < b % 20; ++r) buckets.count(sim::instant::epoch() + request_bucket_width * b);
  const auto& tallest = buckets.tallest();
  REQUIRE(tallest.size() == request_buckets::kept);
  CHECK(buckets.peak() == 19);
  for (std::size_t i = 0; i < tallest.size(); ++i) {
    const std::uint64_t height = 19 - i / 5;
    CHECK(tallest[i].requests == height);
    CHECK(tallest[i].index == static_cast<std::int64_t>(height + 20 * (i % 5)));
  }
}

TEST_CASE("the trace tells a refund's story under vendor/<name>", "[vendor]") {
  vendor_world w;
  w.send_at(0, refund("in_1", 500, "job-1"));
  w.send_at(1'000, refund("in_1", 500, "job-1"));
  w.k.run();
  CHECK(w.kinds() == std::vector<std::string>{"request", "execute", "commit", "request", "replay"});
  const sim::trace_record& request = w.events.records()[0];
  CHECK(request.actor == "vendor/payments");
  CHECK(request.get_string("key") == std::optional<std::string_view>("job-1"));
  CHECK(request.get_string("target") == std::optional<std::string_view>("in_1"));
  CHECK(request.get_int("amount") == std::optional<std::int64_t>(500));
  CHECK(request.get_string("verdict") == std::optional<std::string_view>("execute"));
  const sim::trace_record& commit = w.events.records()[2];
  CHECK(commit.time == at_ms(100));
  CHECK(commit.get_string("ref") == std::optional<std::string_view>("re_1"));
}

namespace {

service_tool_config noisy_config() {
  service_tool_config c = payment_tool_config();
  c.latency = latency_model::lognormal(200_ms, 3_s);
  c.unavailable_ppm = 100'000;
  c.rate_limited_ppm = 50'000;
  c.internal_error_ppm = 50'000;
  c.lost_request_ppm = 50'000;
  c.lost_response_ppm = 100'000;
  c.client_timeout = 2_s;
  c.capacity = 4;
  return c;
}

// A worker that retries each refund with its key until it gets an answer
// that is not retryable or a success.
sim::task<void> retrying_worker(service_tool& v, int worker, int jobs) {
  for (int job = 0; job < jobs; ++job) {
    const std::string key = "w" + std::to_string(worker) + "-j" + std::to_string(job);
    for (int attempt = 0; attempt < 6; ++attempt) {
      const tool_result r = co_await v.call(refund("in_" + std::to_string(job), 100 + job, key));
      if (r.ok() || !r.retryable()) break;
      co_await sim::sleep_for(r.retry_after > 250_ms ? r.retry_after : 250_ms);
    }
  }
}

struct noisy_run {
  std::uint64_t digest;
  std::size_t ledger_rows;
};

noisy_run run_noisy(std::uint64_t seed) {
  sim::kernel k;
  event_log events{k};
  service_tool v(k, events, sim::random_stream(seed), noisy_config());
  for (int worker = 0; worker < 8; ++worker) k.spawn(retrying_worker(v, worker, 20));
  k.run();
  return {events.digest(), v.ledger().size()};
}

}  // namespace

TEST_CASE("same seed, same trace digest; another seed, another digest", "[vendor]") {
  const noisy_run a = run_noisy(42);
  const noisy_run b = run_noisy(42);
  const noisy_run c = run_noisy(43);
  CHECK(a.digest == b.digest);
  CHECK(a.ledger_rows == b.ledger_rows);
  CHECK(a.digest != c.digest);
  CHECK(a.ledger_rows > 0);
}

TEST_CASE("request i's random decisions do not depend on how earlier requests went", "[vendor]") {
  service_tool_config c = noisy_config();
  c.capacity = 0;
  c.bad_targets.insert("in_missing");
  vendor_world with_bad(c, 5);
  vendor_world with_good(c, 5);
  with_bad.send_at(0, refund("in_missing", 100));  // ends differently...
  with_good.send_at(0, refund("in_1", 100));
  outcome& x = with_bad.send_at(10'000, refund("in_2", 100));  // ...but the next request draws the same
  outcome& y = with_good.send_at(10'000, refund("in_2", 100));
  with_bad.k.run();
  with_good.k.run();
  CHECK(result_of(x).status == result_of(y).status);
  CHECK(x.answered_at == y.answered_at);
}

// ---- latency models --------------------------------------------------------------

TEST_CASE("latency models: fixed, uniform and lognormal samples, p99 and description", "[vendor]") {
  sim::random_stream rng(99);
  SECTION("fixed") {
    const latency_model m = latency_model::fixed(250_ms);
    CHECK(m.sample(rng) == 250_ms);
    CHECK(m.p99() == 250_ms);
    CHECK(m.describe() == "fixed(250ms)");
  }
  SECTION("uniform stays within its bounds and reaches both ends") {
    const latency_model m = latency_model::uniform(10_us, 20_us);
    std::vector<bool> seen(11, false);
    for (int i = 0; i < 2'000; ++i) {
      const sim::duration d = m.sample(rng);
      REQUIRE(d >= 10_us);
      REQUIRE(d <= 20_us);
      seen[static_cast<std::size_t>(d.us() - 10)] = true;
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
    CHECK(latency_model::uniform(0_ms, 100_ms).p99() == 99_ms);
    CHECK(latency_model::uniform(10_ms, 50_ms).describe() == "uniform(10ms..50ms)");
  }
  SECTION("lognormal: median and p99 roughly as asked") {
    const latency_model m = latency_model::lognormal(200_ms, 2_s);
    CHECK(m.p99() == 2_s);
    CHECK(m.describe() == "lognormal(p50=200ms, p99=2s)");
    std::vector<std::int64_t> us;
    for (int i = 0; i < 20'001; ++i) us.push_back(m.sample(rng).us());
    std::sort(us.begin(), us.end());
    CHECK(us.front() > 0);
    const std::int64_t median = us[us.size() / 2];
    const std::int64_t p99 = us[us.size() * 99 / 100];
    CHECK(median > 190'000);
    CHECK(median < 210'000);
    CHECK(p99 > 1'700'000);
    CHECK(p99 < 2'300'000);
  }
}
