// The payment vendor's idempotency layer against a model of Stripe's rules,
// for any sequence of refunds with or without keys: the first request under
// a key executes and its response is stored; a later one with the same
// parameters gets 409 while the first still executes and a replay of the
// stored response after; one with other parameters (invoice or amount) is a
// 400 idempotency_error, whenever it comes.

#include <rapidcheck/catch.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>
#include <twice/vendors/latency_model.hpp>

#include "vendors/service_tool.hpp"

using namespace twice;
using sim::duration;
using sim::instant;

namespace {

// Every execution takes this long. Not a whole number of milliseconds, so
// no request (sent on the millisecond) arrives at the instant one ends.
constexpr duration latency = duration::from_us(100'500);

struct request_plan {
  std::int64_t gap_ms = 1;           // after the previous request (>= 1: one at a time)
  std::optional<std::uint32_t> key;  // key number, or none
  std::uint32_t invoice = 0;
  std::int64_t amount_cents = 100;
};

void showValue(const request_plan& r, std::ostream& os) {
  os << "+" << r.gap_ms << "ms in_" << r.invoice << " " << r.amount_cents << " cents key ";
  if (r.key)
    os << "k" << *r.key;
  else
    os << "(none)";
}

rc::Gen<request_plan> gen_request() {
  return rc::gen::apply(
      [](std::int64_t gap, rc::Maybe<std::uint32_t> key, std::uint32_t invoice, std::int64_t amount) {
        request_plan r;
        r.gap_ms = gap;
        if (key) r.key = *key;
        r.invoice = invoice;
        r.amount_cents = amount;
        return r;
      },
      rc::gen::inRange<std::int64_t>(1, 250), rc::gen::maybe(rc::gen::inRange<std::uint32_t>(0, 2)),
      rc::gen::inRange<std::uint32_t>(0, 2), rc::gen::element<std::int64_t>(100, 200));
}

tool_call as_call(const request_plan& r) {
  tool_call c{"in_" + std::to_string(r.invoice), r.amount_cents, std::nullopt};
  if (r.key) c.idempotency_key = "k" + std::to_string(*r.key);
  return c;
}

sim::task<void> send_at(instant at, service_tool& v, tool_call request, std::optional<tool_result>& out) {
  co_await sim::sleep_until(at);
  out = co_await v.call(std::move(request));
}

// What the vendor must answer, request by request.
struct expected_answer {
  int status = 200;
  std::string error_code;
  std::string ref;  // for a 200
  bool replayed = false;
};

std::vector<expected_answer> model(const std::vector<request_plan>& plan) {
  struct stored {
    std::string invoice;
    std::int64_t amount_cents;
    instant done_at;
    std::string ref;
  };
  std::map<std::uint32_t, stored> keys;
  std::vector<expected_answer> out;
  std::uint32_t executions = 0;
  instant t = instant::epoch();
  for (const request_plan& r : plan) {
    t = t + duration::from_ms(r.gap_ms);
    const std::string invoice = "in_" + std::to_string(r.invoice);
    expected_answer a;
    const auto it = r.key ? keys.find(*r.key) : keys.end();
    if (it == keys.end()) {
      a.ref = "re_" + std::to_string(++executions);  // refs number the commits, in execution order
      if (r.key) keys.emplace(*r.key, stored{invoice, r.amount_cents, t + latency, a.ref});
    } else if (it->second.invoice != invoice || it->second.amount_cents != r.amount_cents) {
      a.status = 400;
      a.error_code = "idempotency_error";
    } else if (t < it->second.done_at) {
      a.status = 409;
      a.error_code = "idempotency_key_in_use";
    } else {
      a.ref = it->second.ref;
      a.replayed = true;
    }
    out.push_back(a);
  }
  return out;
}

}  // namespace

TEST_CASE("the vendor's idempotency layer answers as Stripe's rules say", "[properties][vendor]") {
  rc::prop("each refund's answer is the model's; the ledger holds the executions", [] {
    const auto plan = *rc::gen::resize(20, rc::gen::container<std::vector<request_plan>>(gen_request()));
    sim::kernel k;
    event_log events{k};
    service_tool_config config = payment_tool_config();
    config.latency = latency_model::fixed(latency);
    service_tool vendor(k, events, sim::random_stream(7), config);
    std::deque<std::optional<tool_result>> answers(plan.size());
    instant t = instant::epoch();
    for (std::size_t i = 0; i < plan.size(); ++i) {
      t = t + duration::from_ms(plan[i].gap_ms);
      k.spawn(send_at(t, vendor, as_call(plan[i]), answers[i]), "caller");
    }
    k.run();

    const std::vector<expected_answer> expected = model(plan);
    std::size_t executions = 0;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      RC_LOG() << "request " << i << ": expected " << expected[i].status << " " << expected[i].error_code << " "
               << expected[i].ref << (expected[i].replayed ? " (replay)" : "") << "\n";
      RC_ASSERT(answers[i].has_value());
      const tool_result& got = *answers[i];
      RC_ASSERT(got.status == expected[i].status);
      RC_ASSERT(got.error_code == expected[i].error_code);
      RC_ASSERT(got.replayed == expected[i].replayed);
      if (got.ok()) RC_ASSERT(got.ref == expected[i].ref);
      executions += expected[i].status == 200 && !expected[i].replayed;
    }
    RC_ASSERT(vendor.ledger().size() == executions);
  });
}
