#include "vendors/payment_vendor.hpp"

#include <utility>

#include "sim/check.hpp"
#include "sim/checked.hpp"
#include "sim/footprint.hpp"

namespace twice {

namespace {

tool_result rejection(int status, std::string_view code) {
  tool_result r;
  r.status = status;
  r.error_code = std::string(code);
  return r;
}

std::string_view key_text(const std::optional<std::string>& key) { return key ? std::string_view(*key) : std::string_view(); }

}  // namespace

payment_vendor::payment_vendor(sim::kernel& k, event_log& events, sim::random_stream rng,
                               payment_vendor_config config)
    : config_(std::move(config)),
      endpoint_(k, events, rng, config_.name, config_.client_timeout, config_.round_trip, stats_),
      desk_(k),
      ledger_(events.names()) {
  TWICE_CHECK(config_.unavailable_ppm <= ppm_denominator);
  TWICE_CHECK(config_.rate_limited_ppm <= ppm_denominator);
  TWICE_CHECK(config_.internal_error_ppm <= ppm_denominator);
  TWICE_CHECK(config_.lost_request_ppm <= ppm_denominator);
  TWICE_CHECK(config_.lost_response_ppm <= ppm_denominator);
  TWICE_CHECK(config_.retry_after >= sim::duration::zero());
  TWICE_CHECK(config_.key_retention >= sim::duration::zero());
  for (const time_window& w : config_.outages) endpoint_.add_outage(w);
  for (const latency_spike& s : config_.latency_spikes) endpoint_.add_latency_spike(s);
}

void payment_vendor::add_outage(sim::instant begin, sim::instant end) { endpoint_.add_outage({begin, end}); }

void payment_vendor::add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra) {
  endpoint_.add_latency_spike({{begin, end}, extra});
}

sim::task<tool_result> payment_vendor::call(tool_call request) {
  remote_endpoint::arrival a = endpoint_.arrive();
  const request_draws draws = draw(a.rng);
  prune_expired_keys();
  const verdict v = decide(request, draws);
  trace_request(a.request_id, request, v);
  if (v != verdict::execute) co_return co_await answer_verdict(a, request, v);
  const std::uint32_t slot = start_execution(a.request_id, std::move(request), draws);
  co_return co_await endpoint_.await_execution(desk_.answers(), slot, a.request_id, a.sent_at);
}

// Always every draw, in the documented order, whatever the outcome: the
// stream is the request's own, but a fixed count keeps the order readable
// and lets a reader replay one request by hand.
payment_vendor::request_draws payment_vendor::draw(sim::random_stream& rng) const {
  request_draws d;
  d.lost_request = draw_ppm(rng, config_.lost_request_ppm);
  d.rate_limited = draw_ppm(rng, config_.rate_limited_ppm);
  d.unavailable = draw_ppm(rng, config_.unavailable_ppm);
  d.internal_error = draw_ppm(rng, config_.internal_error_ppm);
  d.lost_response = draw_ppm(rng, config_.lost_response_ppm);
  d.latency = config_.latency.sample(rng);
  return d;
}

// Keys are pruned in creation order once key_retention old. A key whose
// first request still executes (only if latency exceeds the retention) is
// kept, and so are younger keys behind it, until that execution ends.
void payment_vendor::prune_expired_keys() {
  const sim::instant now = endpoint_.now();
  for (const stored_key* k = keys_.oldest(); k != nullptr; k = keys_.oldest()) {
    if (now - k->created_at < config_.key_retention) break;
    if (k->executing) break;
    endpoint_.emit(ev::key_pruned{k->key, k->created_at});
    ++stats_.keys_pruned;
    keys_.pop_oldest();
  }
}

// Keys are looked up by their interned text; a key the run never named
// cannot be stored.
const stored_key* payment_vendor::stored(const std::string& key) const {
  const std::optional<ev::name_id> name = endpoint_.names().find(key);
  return name ? keys_.find(*name) : nullptr;
}

bool payment_vendor::knows_key(std::string_view key) const { return stored(std::string(key)) != nullptr; }

payment_vendor::verdict payment_vendor::decide(const tool_call& request, const request_draws& draws) const {
  if (draws.lost_request) return verdict::lost;
  if (endpoint_.in_outage(endpoint_.now())) return verdict::outage;
  if (draws.rate_limited) return verdict::rate_limited;
  if (draws.unavailable) return verdict::unavailable;
  if (request.amount_cents <= 0) return verdict::invalid_amount;
  if (request.idempotency_key) {
    const verdict by_key = decide_by_key(request);
    if (by_key != verdict::execute) return by_key;
  }
  if (config_.capacity != 0 && endpoint_.executing() >= config_.capacity) return verdict::overloaded;
  return verdict::execute;
}

// The idempotency layer. Parameters are compared first: a different request
// reusing a key is a caller bug whether or not the first one still runs.
payment_vendor::verdict payment_vendor::decide_by_key(const tool_call& request) const {
  const stored_key* entry = stored(*request.idempotency_key);
  if (entry == nullptr) return verdict::execute;
  if (endpoint_.names().text(entry->target) != request.target || entry->amount_cents != request.amount_cents) {
    return verdict::idempotency_mismatch;
  }
  if (entry->executing) return verdict::key_in_use;
  return verdict::replay;
}

payment_vendor::refund_result payment_vendor::execution_result(const tool_call& request,
                                                               const request_draws& draws) const {
  if (config_.bad_invoices.find(request.target) != config_.bad_invoices.end()) {
    return refund_result::invoice_not_found;
  }
  if (draws.internal_error) return refund_result::internal_error;
  if (draws.lost_response) return refund_result::refund_response_lost;
  return refund_result::refund;
}

std::string_view payment_vendor::to_string(verdict v) {
  switch (v) {
    case verdict::lost: return "lost";
    case verdict::outage: return "outage";
    case verdict::rate_limited: return "rate_limited";
    case verdict::unavailable: return "unavailable";
    case verdict::invalid_amount: return "invalid_amount";
    case verdict::idempotency_mismatch: return "idempotency_mismatch";
    case verdict::key_in_use: return "key_in_use";
    case verdict::replay: return "replay";
    case verdict::overloaded: return "overloaded";
    case verdict::execute: return "execute";
  }
  TWICE_CHECK(false);
  return {};
}

void payment_vendor::trace_request(std::uint64_t request_id, const tool_call& request, verdict v) const {
  endpoint_.emit(ev::vendor_request{request_id, endpoint_.name_of(key_text(request.idempotency_key)),
                                    endpoint_.name_of(request.target), true, request.amount_cents,
                                    endpoint_.name_of(to_string(v))});
}

// Not a coroutine: `request` is only read before the returned task starts.
sim::task<tool_result> payment_vendor::answer_verdict(const remote_endpoint::arrival& a, const tool_call& request,
                                                      verdict v) {
  const std::uint64_t id = a.request_id;
  switch (v) {
    case verdict::lost: ++stats_.lost_requests; return endpoint_.lose(id);
    case verdict::outage:
    case verdict::unavailable: return endpoint_.reject(id, rejection(503, error_codes::unavailable));
    case verdict::rate_limited: {
      tool_result r = rejection(429, payment_errors::rate_limited);
      r.retry_after = config_.retry_after;
      return endpoint_.reject(id, std::move(r));
    }
    case verdict::invalid_amount: return endpoint_.reject(id, rejection(400, payment_errors::amount_too_small));
    case verdict::idempotency_mismatch:
      return endpoint_.reject(id, rejection(400, payment_errors::idempotency_error));
    case verdict::key_in_use: return endpoint_.reject(id, rejection(409, payment_errors::idempotency_key_in_use));
    case verdict::replay: return replay(id, *request.idempotency_key);
    case verdict::overloaded: return endpoint_.reject(id, rejection(503, payment_errors::overloaded));
    case verdict::execute: break;
  }
  TWICE_CHECK(false);  // executions never come here
  return endpoint_.lose(id);
}

sim::task<tool_result> payment_vendor::replay(std::uint64_t request_id, const std::string& key) {
  const stored_key* entry = stored(key);
  TWICE_CHECK(entry != nullptr);
  TWICE_CHECK(!entry->executing);
  tool_result r;
  r.status = entry->status;
  r.error_code = std::string(endpoint_.names().text(entry->error_code));
  r.ref = std::string(endpoint_.names().text(entry->ref));
  r.replayed = true;
  ++stats_.replays;
  endpoint_.emit(ev::vendor_replay{request_id, endpoint_.name_of(key), r.status, endpoint_.name_of(r.ref)});
  return endpoint_.answer(request_id, std::move(r));
}

std::uint32_t payment_vendor::start_execution(std::uint64_t request_id, tool_call request,
                                              const request_draws& draws) {
  const sim::instant now = endpoint_.now();
  if (request.idempotency_key) {
    // "Once execution begins" the key is taken: a concurrent retry now gets 409.
    keys_.add({.key = endpoint_.name_of(*request.idempotency_key),
               .target = endpoint_.name_of(request.target),
               .amount_cents = request.amount_cents,
               .created_at = now});
  }
  const refund_result result = execution_result(request, draws);
  const sim::duration latency = draws.latency + endpoint_.spike_extra(now);
  endpoint_.begin_execution();
  endpoint_.emit(ev::vendor_execute{request_id, latency});
  const std::uint32_t slot = desk_.open(execution{request_id, std::move(request), result});
  endpoint_.kernel().schedule_at(now + latency, &payment_vendor::on_execution_done, this, slot);
  return slot;
}

void payment_vendor::on_execution_done(sim::kernel&, void* ctx, std::uint64_t slot) {
  static_cast<payment_vendor*>(ctx)->finish_execution(static_cast<std::uint32_t>(slot));
}

void payment_vendor::finish_execution(std::uint32_t slot) {
  endpoint_.end_execution();
  const execution& e = desk_.work(slot);
  tool_result response;
  switch (e.result) {
    case refund_result::invoice_not_found: response = execution_error(e, 400, payment_errors::invoice_not_found); break;
    case refund_result::internal_error: response = execution_error(e, 500, payment_errors::api_error); break;
    case refund_result::refund:
    case refund_result::refund_response_lost: response = commit_refund(e); break;
  }
  if (e.request.idempotency_key) {
    stored_key* entry = keys_.find(endpoint_.name_of(*e.request.idempotency_key));
    TWICE_CHECK(entry != nullptr);  // never pruned while executing
    TWICE_CHECK(entry->executing);
    entry->executing = false;
    entry->status = response.status;
    entry->error_code = endpoint_.name_of(response.error_code);
    entry->ref = endpoint_.name_of(response.ref);
    TWICE_CHECK(!response.replayed && response.retry_after == sim::duration::zero());  // all a stored one keeps
  }
  if (e.result == refund_result::refund_response_lost) {
    ++stats_.lost_responses;
    endpoint_.emit(ev::vendor_response_lost{e.request_id, endpoint_.name_of(response.ref)});
    desk_.drop(slot);  // `e` is gone from here on
    return;
  }
  desk_.deliver(slot, std::move(response));
}

tool_result payment_vendor::commit_refund(const execution& e) {
  // Names in the order the trace has always interned them (the digest
  // numbers names by first appearance): the refund's id, its key, its invoice.
  const std::string id = refund_ledger::id_of(ledger_.size());
  const ev::name_id id_name = endpoint_.name_of(id);
  refund_ledger::row row;
  row.key = endpoint_.name_of(key_text(e.request.idempotency_key));
  row.invoice = endpoint_.name_of(e.request.target);
  row.amount_cents = e.request.amount_cents;
  row.has_key = e.request.idempotency_key.has_value();
  row.committed_at = endpoint_.now();
  row.request_id = e.request_id;
  ++stats_.refunds_committed;
  // Checked: the refunds are bounded only by the event budget, and a world
  // built in C++ may ask for any positive amount.
  stats_.refunded_cents =
      sim::checked_add(stats_.refunded_cents, row.amount_cents, "the vendor's refunded total overflows int64 cents");
  ledger_.push(row);
  endpoint_.emit(ev::vendor_commit{e.request_id, id_name, row.key, row.amount_cents, row.invoice});
  tool_result r;
  r.status = 200;
  r.ref = id;
  return r;
}

tool_result payment_vendor::execution_error(const execution& e, int status, std::string_view code) {
  endpoint_.count_rejection(status);
  endpoint_.emit(ev::vendor_execution_error{e.request_id, status, endpoint_.name_of(code),
                                            endpoint_.name_of(key_text(e.request.idempotency_key))});
  return rejection(status, code);
}

// Texts are the name table's, counted with the event log.
std::uint64_t payment_vendor::footprint() const { return ledger_.footprint() + keys_.footprint(); }

}  // namespace twice
