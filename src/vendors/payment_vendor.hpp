#pragma once
// A payment API in the shape of Stripe's refunds with idempotency keys. The
// model keeps the vendor's own ledger, so a run can compare it with the
// local one: the double refund is two rows here for one job.
//
// What Stripe documents, and how we model it:
//   * "Stripe saves the status code and body of the first request made with
//     a given idempotency key after endpoint execution begins. Retries with
//     the same key return the saved response, including 500 errors."
//     (docs.stripe.com/api/idempotent_requests). Here: the first request with
//     a key that *starts executing* stores its response whatever it is (200,
//     500, or the 400 invoice_not_found found during execution); later ones
//     with that key get it back with replayed = true (Stripe's
//     `Idempotent-Replayed: true` header) and the same ref; no new refund.
//   * "If incoming parameters fail validation, or the request conflicts with
//     another request that's executing concurrently, we don't save the
//     idempotent result because no API endpoint initiates the execution."
//     (same page). Here: the same key while its first request still executes
//     is 409 idempotency_key_in_use (docs.stripe.com/error-codes), stored
//     nothing; a non-positive amount fails validation with 400
//     amount_too_small, stored nothing.
//   * "The idempotency layer compares incoming parameters to those of the
//     original request and errors if they're not the same" (same page): 400
//     idempotency_error (the error type Stripe names in docs.stripe.com/api/
//     errors). Parameters are (target, amount).
//   * "a request that's rate limited with a 429 can produce a different
//     result with the same idempotency key because rate limiters run before
//     the API's idempotency layer" (docs.stripe.com/error-handling). Here:
//     429, 503 (outage, random, overload) and lost requests are decided
//     before the idempotency layer and store nothing, so a retry with the key
//     executes.
//   * "You can remove keys from the system automatically after they're at
//     least 24 hours old. We generate a new request if a key is reused after
//     the original is pruned." (docs.stripe.com/api/idempotent_requests).
//     Here: a key whose first request arrived key_retention or more ago is
//     pruned (lazily, when the next request arrives) and reuse executes anew.
//   * Requests without a key always execute anew: that is the double refund.
//   * Network errors: "a client may time out ... or an API response never
//     received as a connection is terminated prematurely" (docs.stripe.com/
//     error-handling). Here: a lost request never reaches the vendor (no
//     effect); a lost response means the vendor committed and stored its
//     response but the caller hears nothing; latency beyond client_timeout
//     means the caller gives up while the vendor commits later. The last two
//     are ambiguous successes: the caller sees status 0, the ledger has the
//     refund, and only a retry with the same key tells (it replays the ref).
//
// Decision order for a request (one arrival, all decided at arrival except
// the execution's result, which is fixed at arrival and applied at commit):
//   1. lost request (network)           -> caller times out; vendor never saw it
//   2. outage window                    -> 503 unavailable
//   3. rate limited (random)            -> 429 rate_limited, retry_after
//   4. unavailable (random)             -> 503 unavailable
//   5. amount <= 0                      -> 400 amount_too_small
//   6. idempotency layer (key present and stored):
//        different (target, amount)     -> 400 idempotency_error
//        first request still executing  -> 409 idempotency_key_in_use
//        otherwise                      -> replay the stored response
//   7. capacity reached                 -> 503 overloaded
//   8. execute: stores "executing" under the key, finishes at
//      arrival + latency (+ spikes open at arrival) with, in this order:
//        target in bad_invoices         -> 400 invoice_not_found (stored)
//        internal error (random)        -> 500 api_error (stored, no refund)
//        otherwise                      -> refund committed, 200 ref "re_<n>";
//                                          with a lost response (random) the
//                                          caller never hears it.
// Rejections and replays reach the caller after round_trip.
//
// Random draws: one from the vendor's stream per request (see
// remote_endpoint); from the request's own stream, always all of them, in
// this order: lost_request, rate_limited, unavailable, internal_error,
// lost_response (one bernoulli each), then the latency sample.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"
#include "tools/tool.hpp"
#include "vendors/key_store.hpp"
#include "vendors/latency_model.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/remote_endpoint.hpp"

namespace twice {

namespace payment_errors {
inline constexpr std::string_view rate_limited = "rate_limited";                      // 429
inline constexpr std::string_view overloaded = "overloaded";                          // 503, capacity
inline constexpr std::string_view idempotency_key_in_use = "idempotency_key_in_use";  // 409
inline constexpr std::string_view idempotency_error = "idempotency_error";            // 400
inline constexpr std::string_view amount_too_small = "amount_too_small";              // 400
inline constexpr std::string_view invoice_not_found = "invoice_not_found";            // 400
inline constexpr std::string_view api_error = "api_error";                            // 500
}  // namespace payment_errors

struct payment_vendor_config {
  std::string name = "payments";
  latency_model latency = latency_model::lognormal(sim::duration::from_ms(300), sim::duration::from_s(2));
  // Error probabilities, parts per million (exact ratios).
  std::uint32_t unavailable_ppm = 0;     // 503 before any effect
  std::uint32_t rate_limited_ppm = 0;    // 429 before any effect, with retry_after
  std::uint32_t internal_error_ppm = 0;  // 500 after execution starts (stored, no refund)
  std::uint32_t lost_request_ppm = 0;    // timeout before effect: the request never arrives
  std::uint32_t lost_response_ppm = 0;   // timeout after commit: the response never arrives
  sim::duration retry_after = sim::duration::from_s(1);
  sim::duration client_timeout = sim::duration::from_s(30);  // how long a caller waits
  sim::duration round_trip = sim::duration::from_ms(10);     // answers that execute nothing
  std::set<std::string, std::less<>> bad_invoices;           // answered 400 invoice_not_found
  sim::duration key_retention = sim::duration::from_s(24 * 3600);
  std::uint32_t capacity = 0;  // max executions at once; above it 503 overloaded; 0 = unlimited
  std::vector<time_window> outages;           // every request 503 inside
  std::vector<latency_spike> latency_spikes;  // extra latency for executions arriving inside
};

struct payment_vendor_stats : call_stats {
  std::uint64_t refunds_committed = 0;
  std::int64_t refunded_cents = 0;
  std::uint64_t replays = 0;
  std::uint64_t lost_requests = 0;
  std::uint64_t lost_responses = 0;
  std::uint64_t keys_pruned = 0;
};

class payment_vendor final : public tool {
 public:
  // The vendor must outlive every run of `k` (kernel callbacks point at it).
  payment_vendor(sim::kernel& k, event_log& events, sim::random_stream rng,
                 payment_vendor_config config = {});
  payment_vendor(const payment_vendor&) = delete;
  payment_vendor& operator=(const payment_vendor&) = delete;

  std::string_view name() const override { return config_.name; }
  bool writes() const override { return true; }
  bool accepts_key() const override { return true; }
  bool moves_money() const override { return true; }
  // target = invoice id, amount_cents = refund amount.
  sim::task<tool_result> call(tool_call request) override;

  // Fault injection from outside (a schedule may add windows mid-run).
  void add_outage(sim::instant begin, sim::instant end);
  void add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra);

  const payment_vendor_config& config() const { return config_; }
  const refund_ledger& ledger() const { return ledger_; }
  const payment_vendor_stats& stats() const { return stats_; }
  // Bytes held (sim/footprint.hpp): the ledger and the stored keys.
  std::uint64_t footprint() const;
  // Keys currently stored (executing or answered, not yet pruned).
  bool knows_key(std::string_view key) const;
  std::size_t stored_keys() const { return keys_.size(); }
  // Execution records allocated (bounded by the peak in flight, not by calls).
  std::size_t request_records() const { return desk_.records_allocated(); }

 private:
  enum class verdict : std::uint8_t {
    lost,
    outage,
    rate_limited,
    unavailable,
    invalid_amount,
    idempotency_mismatch,
    key_in_use,
    replay,
    overloaded,
    execute,
  };
  enum class refund_result : std::uint8_t { refund, refund_response_lost, internal_error, invoice_not_found };

  struct request_draws {
    bool lost_request = false;
    bool rate_limited = false;
    bool unavailable = false;
    bool internal_error = false;
    bool lost_response = false;
    sim::duration latency = sim::duration::zero();
  };

  struct execution {
    std::uint64_t request_id = 0;
    tool_call request;
    refund_result result = refund_result::refund;
  };

  static std::string_view to_string(verdict v);
  request_draws draw(sim::random_stream& rng) const;
  void prune_expired_keys();
  verdict decide(const tool_call& request, const request_draws& draws) const;
  verdict decide_by_key(const tool_call& request) const;
  refund_result execution_result(const tool_call& request, const request_draws& draws) const;
  void trace_request(std::uint64_t request_id, const tool_call& request, verdict v) const;
  sim::task<tool_result> answer_verdict(const remote_endpoint::arrival& a, const tool_call& request, verdict v);
  sim::task<tool_result> replay(std::uint64_t request_id, const std::string& key);
  const stored_key* stored(const std::string& key) const;
  std::uint32_t start_execution(std::uint64_t request_id, tool_call request, const request_draws& draws);
  static void on_execution_done(sim::kernel& k, void* ctx, std::uint64_t slot);
  void finish_execution(std::uint32_t slot);
  tool_result commit_refund(const execution& e);
  tool_result execution_error(const execution& e, int status, std::string_view code);

  payment_vendor_config config_;
  payment_vendor_stats stats_;  // before endpoint_, which keeps a reference to it
  remote_endpoint endpoint_;
  response_desk<execution> desk_;
  refund_ledger ledger_;
  key_store keys_;
};

}  // namespace twice
