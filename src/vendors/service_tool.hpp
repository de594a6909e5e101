#pragma once
// Any tool a slice calls ([tools.NAME]): a payment API, an email provider,
// an LLM call, a read, an upload, a charge, a webhook. One config says what
// the far side is; the built-in refund (the payment vendor), email, model
// and read tools are four such configs (payment_tool_config() ...), and a
// scenario writes its own in the same form. Built on the far-side machinery
// every tool shares (vendors/remote_endpoint.hpp): timeouts, outages,
// latency spikes, per-request randomness, traces under "vendor/<name>".
//
// A tool that moves money (moves_money: the payment vendor, Stripe's
// refunds) keeps a ledger of its effects with their amounts, which the money
// invariants compare with ours; a request with a non-positive amount fails
// Stripe's validation (400 amount_too_small, nothing stored: "If incoming
// parameters fail validation ... we don't save the idempotent result",
// docs.stripe.com/api/idempotent_requests), and a target in bad_targets
// fails during execution (400 invoice_not_found, stored under the key like
// any response of an execution that began).
//
// What the far side does with an idempotency key (`keys`):
//   ignored          the key is not looked at: every request that executes
//                    has its effect (most email providers, most webhooks);
//   dedupe           a plain dedupe window: a request whose key already had
//                    a *successful* effect less than key_retention ago is
//                    accepted (200) and does nothing, and no stored response
//                    comes back. As SQS FIFO's deduplication ID: "any
//                    messages sent with the same message deduplication ID are
//                    accepted successfully but aren't delivered during the
//                    5-minute deduplication interval" (SQS Developer Guide,
//                    "Exactly-once processing in Amazon SQS"). Nothing locks a
//                    key while its first request runs, so a retry sent while
//                    the first still executes (a client timeout below the
//                    latency) has its effect too, and so does one after the
//                    window;
//   stored_response  Stripe's idempotency layer: "Stripe saves the status
//                    code and body of the first request made with a given
//                    idempotency key after endpoint execution begins.
//                    Retries with the same key return the saved response,
//                    including 500 errors" (docs.stripe.com/api/
//                    idempotent_requests). The first request that starts
//                    executing stores its response, whatever it is; later
//                    ones get it back with replayed = true (Stripe's
//                    `Idempotent-Replayed: true` header). The same key while
//                    the first still runs is 409 idempotency_key_in_use
//                    (docs.stripe.com/error-codes), stored nothing; a
//                    different target or amount under the key is 400
//                    idempotency_error ("The idempotency layer compares
//                    incoming parameters to those of the original request
//                    and errors if they're not the same", same page).
// Rate limits, 503s and lost requests are decided before the key is looked
// at and store nothing, so a retry with the key executes: "a request that's
// rate limited with a 429 can produce a different result with the same
// idempotency key because rate limiters run before the API's idempotency
// layer" (docs.stripe.com/error-handling).
// Keys are pruned key_retention after their creation (lazily, at the next
// request): "You can remove keys from the system automatically after
// they're at least 24 hours old. We generate a new request if a key is
// reused after the original is pruned" (docs.stripe.com/api/
// idempotent_requests). A key whose first request still executes is kept,
// and younger keys behind it, until that execution ends.
//
// Network errors: "a client may time out ... or an API response never
// received as a connection is terminated prematurely" (docs.stripe.com/
// error-handling). A lost request never reaches the far side (no effect); a
// lost response means the far side acted and stored its response but the
// caller hears nothing; latency beyond client_timeout means the caller gives
// up while the far side acts later. The last two are ambiguous successes:
// the caller sees status 0, and only a retry with the same key tells.
//
// Decision order for a request, all at arrival:
//   1. lost request (network)          -> caller times out; the far side never saw it
//   2. outage window                   -> 503 unavailable
//   3. rate limited (random)           -> 429 rate_limited, retry_after
//   4. unavailable (random)            -> 503 unavailable
//   5. money, amount <= 0              -> 400 amount_too_small
//   6. the key, if one came and keys is not "ignored" (above)
//   7. capacity reached                -> 503 overloaded (executing and waiting count)
//   8. execute: a server takes it now, or it waits in the far side's queue
//      (vendors/server_pool.hpp); with stored_response its key is taken now.
//      When it ends: a target in bad_targets -> 400 invoice_not_found, no
//      effect; internal error (random) -> 500 api_error, no effect;
//      otherwise the effect happens (a write) or the answer is made (a
//      read), and with a lost response (random) the caller never hears it.
// Rejections and replays reach the caller after round_trip.
//
// An optimistically locked tool (optimistic_lock: a row per target with a
// version, as a Kubernetes object's resourceVersion or a DynamoDB condition
// expression) is a read of the version and a conditional write, two round
// trips, and `latency` is one network leg, drawn for each of the four: the
// read reaches the row a leg after the execution starts, the write a leg
// after its answer plus a leg later, and the write's answer reaches the
// caller a fourth leg after. The write fails if another write to the target
// committed after this read: 409 conflict, no effect ("the object has been
// modified; please apply your changes to the latest version and try again",
// Kubernetes' answer to a stale resourceVersion). A read sees every write
// committed at or before its instant. This is the row of Brooker's backoff
// simulator (aws-samples/aws-arch-backoff-simulator, OccServer and
// OccClient): there, the read and write are separate messages each crossing
// the network once.
//
// Rejections and replays reach the caller after round_trip.
//
// Random draws per request (from the request's own stream, see
// remote_endpoint), in one of two orders (draw_order):
//   latency_first  unavailable and the latency sample, always; then
//                  lost_request, rate_limited, internal_error and
//                  lost_response, each only when its rate is not zero (the
//                  built-in email, model and read, and tools of your own);
//   rates_first    lost_request, rate_limited, unavailable, internal_error,
//                  lost_response, always, then the latency sample (the
//                  payment vendor's order since its first version: kept so
//                  every pinned run of the refund tool stays as it was).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/sim/trace.hpp>
#include <twice/tools/tool.hpp>
#include <twice/vendors/latency_model.hpp>
#include <twice/vendors/service_tool_config.hpp>

#include "vendors/key_store.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/remote_endpoint.hpp"
#include "vendors/server_pool.hpp"

namespace twice {

// One effect the far side had (a write tool's).
struct tool_effect_record {
  std::string target;
  sim::instant at;
  std::uint64_t request_id = 0;
  std::string reference;  // the caller's name for the request (job:step:tool)
};

struct service_tool_stats : call_stats {
  std::uint64_t effects = 0;       // a money tool's are its ledger's rows
  std::int64_t moved_cents = 0;    // a money tool's: the ledger's total
  std::uint64_t deduplicated = 0;  // accepted under a key seen before, no effect (dedupe)
  std::uint64_t replays = 0;       // stored responses replayed (stored_response)
  std::uint64_t lost_requests = 0;
  std::uint64_t lost_responses = 0;
  std::uint64_t keys_pruned = 0;
};

class service_tool final : public tool {
 public:
  // The tool must outlive every run of `k` (kernel callbacks point at it).
  service_tool(sim::kernel& k, event_log& events, sim::random_stream rng, service_tool_config config);
  service_tool(const service_tool&) = delete;
  service_tool& operator=(const service_tool&) = delete;

  std::string_view name() const override { return config_.name; }
  bool writes() const override { return config_.effect == tool_effect::write; }
  bool accepts_key() const override { return config_.keys != key_handling::ignored; }
  bool moves_money() const override { return config_.moves_money; }
  sim::task<tool_result> call(tool_call request) override;

  // Fault injection from outside.
  void add_outage(sim::instant begin, sim::instant end);
  void add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra);

  const service_tool_config& config() const { return config_; }
  const service_tool_stats& stats() const { return stats_; }
  // The first effect_sample_max effects, in order (a write tool's but a
  // money tool's): a sample for tests and debugging, bounded so that a long
  // run's memory does not grow with every email. How many there were is
  // stats().effects.
  static constexpr std::size_t effect_sample_max = 64;
  const std::vector<tool_effect_record>& effects() const { return effects_; }
  // A money tool's effects, with their amounts (empty for any other tool).
  const refund_ledger& ledger() const { return ledger_; }
  // Keys currently stored (executing or answered, not yet pruned).
  bool knows_key(std::string_view key) const;
  // How many effects `target` had.
  std::uint64_t effect_count(std::string_view target) const;
  std::size_t request_records() const { return desk_.records_allocated(); }
  std::size_t stored_keys() const { return keys_.size(); }
  // Bytes held (sim/footprint.hpp): the effects, the keys, and the requests
  // in flight or waiting (a storm's abandoned requests queue here).
  std::uint64_t footprint() const;

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
    deduplicated,
    overloaded,
    execute,
  };
  struct request_draws {
    bool unavailable = false;
    sim::duration latency = sim::duration::zero();     // optimistic_lock: the first three legs
    sim::duration read_leg = sim::duration::zero();    // optimistic_lock: until the read
    sim::duration answer_leg = sim::duration::zero();  // optimistic_lock: the write's answer
    bool lost_request = false;
    bool rate_limited = false;
    bool internal_error = false;
    bool lost_response = false;
  };
  struct execution {
    std::uint64_t request_id = 0;
    tool_call request;
    sim::duration service;  // its sampled latency; a spike open when it starts adds to it
    bool bad_target = false;
    bool internal_error = false;
    bool lost_response = false;
    sim::duration read_leg = sim::duration::zero();    // optimistic_lock (request_draws)
    sim::duration answer_leg = sim::duration::zero();  // optimistic_lock
    sim::instant read_at;                              // optimistic_lock: when it read the version
    tool_result answer;                                // held while answer_leg runs
  };
  // A target's row: its effects, and when the last one committed (the
  // version an optimistic write compares).
  struct target_row {
    std::uint64_t effects = 0;
    sim::instant last_write;
  };

  static std::string_view to_string(verdict v);
  request_draws draw(sim::random_stream& rng) const;
  void prune_expired_keys();
  const stored_key* stored(const std::string& key) const;
  verdict decide(const tool_call& request, const request_draws& draws) const;
  verdict decide_by_key(const tool_call& request) const;
  sim::task<tool_result> answer_verdict(const remote_endpoint::arrival& a, const tool_call& request, verdict v);
  sim::task<tool_result> replay(std::uint64_t request_id, const std::string& key);
  // Opens the request's answer slot; a server starts it now, or it waits.
  std::uint32_t admit(std::uint64_t request_id, tool_call request, const request_draws& draws);
  void start_execution(std::uint32_t slot);
  static void on_execution_done(sim::kernel& k, void* ctx, std::uint64_t slot);
  void finish_execution(std::uint32_t slot);
  static void on_answer_arrives(sim::kernel& k, void* ctx, std::uint64_t slot);
  bool version_moved(const execution& e) const;
  tool_result complete(const execution& e);
  tool_result execution_error(const execution& e, int status, std::string_view code);
  tool_result commit_effect(const execution& e);
  tool_result commit_money(const execution& e);
  void store_response(const execution& e, const tool_result& response);
  void serve_next();

  service_tool_config config_;
  service_tool_stats stats_;  // before endpoint_, which keeps a reference to it
  remote_endpoint endpoint_;
  response_desk<execution> desk_;
  server_pool pool_;
  key_store keys_;
  std::uint32_t held_ = 0;                   // requests executing or waiting (capacity counts these)
  std::vector<tool_effect_record> effects_;  // the first effect_sample_max
  refund_ledger ledger_;
  // Every write tool's: effect_done carries the target's count, and
  // optimistic_lock reads its last write.
  std::map<std::string, target_row, std::less<>> per_target_;
  std::vector<server_pool::waiting> dropped_;  // scratch for release()
};

}  // namespace twice
