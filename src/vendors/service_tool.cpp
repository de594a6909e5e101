#include "vendors/service_tool.hpp"

#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/checked.hpp>
#include <twice/sim/footprint.hpp>

namespace twice {

namespace {

tool_result rejection(int status, std::string_view code) {
  tool_result r;
  r.status = status;
  r.error_code = std::string(code);
  return r;
}

}  // namespace

std::string_view to_string(tool_effect e) { return e == tool_effect::write ? "write" : "read"; }

std::string_view to_string(key_handling k) {
  switch (k) {
    case key_handling::ignored:
      return "ignored";
    case key_handling::dedupe:
      return "dedupe";
    case key_handling::stored_response:
      return "stored_response";
  }
  return "?";
}

service_tool_config payment_tool_config() {
  service_tool_config c;
  c.name = "payments";
  c.effect = tool_effect::write;
  c.keys = key_handling::stored_response;
  c.latency = latency_model::lognormal(sim::duration::from_ms(300), sim::duration::from_s(2));
  c.ref_prefix = "re";
  c.moves_money = true;
  c.draws = draw_order::rates_first;
  return c;
}

service_tool_config email_tool_config() {
  service_tool_config c;
  c.name = "email";
  c.effect = tool_effect::write;
  c.latency = latency_model::lognormal(sim::duration::from_ms(150), sim::duration::from_s(1));
  c.ref_prefix = "em";
  return c;
}

service_tool_config model_tool_config() {
  service_tool_config c;
  c.name = "model";
  c.latency = latency_model::lognormal(sim::duration::from_s(4), sim::duration::from_s(20));
  return c;
}

service_tool_config read_tool_config() {
  service_tool_config c;
  c.name = "read";
  c.latency = latency_model::lognormal(sim::duration::from_ms(5), sim::duration::from_ms(50));
  return c;
}

namespace {
service_tool_config with_ref_prefix(service_tool_config c) {
  if (c.ref_prefix.empty()) c.ref_prefix = c.name;
  return c;
}
}  // namespace

service_tool::service_tool(sim::kernel& k, event_log& events, sim::random_stream rng, service_tool_config config)
    : config_(with_ref_prefix(std::move(config))),
      endpoint_(k, events, rng, config_.name, config_.client_timeout, config_.round_trip, stats_),
      desk_(k),
      pool_(config_.pool),
      ledger_(events.names(), config_.ref_prefix) {
  for (const std::uint32_t ppm : {config_.unavailable_ppm, config_.rate_limited_ppm, config_.internal_error_ppm,
                                  config_.lost_request_ppm, config_.lost_response_ppm})
    TWICE_CHECK(ppm <= ppm_denominator);
  TWICE_CHECK(config_.retry_after >= sim::duration::zero());
  TWICE_CHECK(config_.key_retention >= sim::duration::zero());
  TWICE_CHECK(!config_.moves_money || config_.effect == tool_effect::write);
  TWICE_CHECK(config_.bad_targets.empty() || config_.moves_money);
  TWICE_CHECK(!config_.optimistic_lock || (config_.effect == tool_effect::write && !config_.moves_money));
  for (const time_window& w : config_.outages) endpoint_.add_outage(w);
  for (const latency_spike& s : config_.latency_spikes) endpoint_.add_latency_spike(s);
}

void service_tool::add_outage(sim::instant begin, sim::instant end) { endpoint_.add_outage({begin, end}); }

void service_tool::add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra) {
  endpoint_.add_latency_spike({{begin, end}, extra});
}

std::uint64_t service_tool::effect_count(std::string_view target) const {
  const auto it = per_target_.find(target);
  return it == per_target_.end() ? 0 : it->second.effects;
}

sim::task<tool_result> service_tool::call(tool_call request) {
  remote_endpoint::arrival a = endpoint_.arrive();
  const request_draws draws = draw(a.rng);
  if (accepts_key()) prune_expired_keys();
  const verdict v = decide(request, draws);
  endpoint_.emit(ev::vendor_request{a.request_id, endpoint_.name_of(request.idempotency_key.value_or("")),
                                    endpoint_.name_of(request.target), moves_money() || request.amount_cents != 0,
                                    request.amount_cents, endpoint_.name_of(to_string(v))});
  if (v != verdict::execute) co_return co_await answer_verdict(a, request, v);
  const std::uint32_t slot = admit(a.request_id, std::move(request), draws);
  co_return co_await endpoint_.await_execution(desk_.answers(), slot, a.request_id, a.sent_at);
}

service_tool::request_draws service_tool::draw(sim::random_stream& rng) const {
  request_draws d;
  if (config_.draws == draw_order::rates_first) {
    // Every draw, whatever the outcome: a fixed count lets a reader replay
    // one request by hand.
    d.lost_request = draw_ppm(rng, config_.lost_request_ppm);
    d.rate_limited = draw_ppm(rng, config_.rate_limited_ppm);
    d.unavailable = draw_ppm(rng, config_.unavailable_ppm);
    d.internal_error = draw_ppm(rng, config_.internal_error_ppm);
    d.lost_response = draw_ppm(rng, config_.lost_response_ppm);
    d.latency = config_.latency.sample(rng);
    return d;
  }
  d.unavailable = draw_ppm(rng, config_.unavailable_ppm);
  d.latency = config_.latency.sample(rng);
  if (config_.optimistic_lock) {
    // Four legs: to the read, back, to the write (the execution), and back.
    d.read_leg = d.latency;
    d.latency = d.latency + config_.latency.sample(rng) + config_.latency.sample(rng);
    d.answer_leg = config_.latency.sample(rng);
  }
  // A rate of zero draws nothing: most tools set none of these, and the
  // request's stream ends here, so skipping changes no other draw.
  auto maybe = [&](std::uint32_t ppm) { return ppm != 0 && draw_ppm(rng, ppm); };
  d.lost_request = maybe(config_.lost_request_ppm);
  d.rate_limited = maybe(config_.rate_limited_ppm);
  d.internal_error = maybe(config_.internal_error_ppm);
  d.lost_response = maybe(config_.lost_response_ppm);
  return d;
}

// In creation order once key_retention old; a key whose first request still
// executes is kept, and younger keys behind it (above).
void service_tool::prune_expired_keys() {
  const sim::instant now = endpoint_.now();
  for (const stored_key* k = keys_.oldest(); k != nullptr; k = keys_.oldest()) {
    if (now - k->created_at < config_.key_retention) break;
    if (k->executing) break;
    if (!k->forgotten) {
      endpoint_.emit(ev::key_pruned{k->key, k->created_at});
      ++stats_.keys_pruned;
    }
    keys_.pop_oldest();
  }
}

const stored_key* service_tool::stored(const std::string& key) const {
  const std::optional<ev::name_id> name = endpoint_.names().find(key);
  return name ? keys_.find(*name) : nullptr;
}

bool service_tool::knows_key(std::string_view key) const { return stored(std::string(key)) != nullptr; }

service_tool::verdict service_tool::decide(const tool_call& request, const request_draws& draws) const {
  if (draws.lost_request) return verdict::lost;
  if (endpoint_.in_outage(endpoint_.now())) return verdict::outage;
  if (draws.rate_limited) return verdict::rate_limited;
  if (draws.unavailable) return verdict::unavailable;
  if (moves_money() && request.amount_cents <= 0) return verdict::invalid_amount;
  if (request.idempotency_key && accepts_key()) {
    const verdict by_key = decide_by_key(request);
    if (by_key != verdict::execute) return by_key;
  }
  if (config_.capacity != 0 && held_ >= config_.capacity) return verdict::overloaded;
  return verdict::execute;
}

service_tool::verdict service_tool::decide_by_key(const tool_call& request) const {
  const stored_key* entry = stored(*request.idempotency_key);
  if (entry == nullptr) return verdict::execute;
  if (config_.keys == key_handling::dedupe) return verdict::deduplicated;
  if (endpoint_.names().text(entry->target) != request.target || entry->amount_cents != request.amount_cents)
    return verdict::idempotency_mismatch;
  if (entry->executing) return verdict::key_in_use;
  return verdict::replay;
}

std::string_view service_tool::to_string(verdict v) {
  switch (v) {
    case verdict::lost:
      return "lost";
    case verdict::outage:
      return "outage";
    case verdict::rate_limited:
      return "rate_limited";
    case verdict::unavailable:
      return "unavailable";
    case verdict::invalid_amount:
      return "invalid_amount";
    case verdict::idempotency_mismatch:
      return "idempotency_mismatch";
    case verdict::key_in_use:
      return "key_in_use";
    case verdict::replay:
      return "replay";
    case verdict::deduplicated:
      return "deduplicated";
    case verdict::overloaded:
      return "overloaded";
    case verdict::execute:
      return "execute";
  }
  TWICE_CHECK(false);
  return {};
}

// Not a coroutine: `request` is only read before the returned task starts.
sim::task<tool_result> service_tool::answer_verdict(const remote_endpoint::arrival& a, const tool_call& request,
                                                    verdict v) {
  const std::uint64_t id = a.request_id;
  switch (v) {
    case verdict::lost:
      ++stats_.lost_requests;
      return endpoint_.lose(id);
    case verdict::outage:
    case verdict::unavailable:
      return endpoint_.reject(id, rejection(503, error_codes::unavailable));
    case verdict::rate_limited: {
      tool_result r = rejection(429, tool_errors::rate_limited);
      r.retry_after = config_.retry_after;
      return endpoint_.reject(id, std::move(r));
    }
    case verdict::invalid_amount:
      return endpoint_.reject(id, rejection(400, tool_errors::amount_too_small));
    case verdict::idempotency_mismatch:
      return endpoint_.reject(id, rejection(400, tool_errors::idempotency_error));
    case verdict::key_in_use:
      return endpoint_.reject(id, rejection(409, tool_errors::idempotency_key_in_use));
    case verdict::replay:
      return replay(id, *request.idempotency_key);
    case verdict::deduplicated: {
      // Accepted, nothing done, nothing stored to give back.
      ++stats_.deduplicated;
      tool_result r;
      r.status = 200;
      r.replayed = true;
      return endpoint_.answer(id, std::move(r));
    }
    case verdict::overloaded:
      return endpoint_.reject(id, rejection(503, tool_errors::overloaded));
    case verdict::execute:
      break;
  }
  TWICE_CHECK(false);  // executions never come here
  return endpoint_.lose(id);
}

sim::task<tool_result> service_tool::replay(std::uint64_t request_id, const std::string& key) {
  const stored_key* entry = stored(key);
  TWICE_CHECK(entry != nullptr && !entry->executing);
  tool_result r;
  r.status = entry->status;
  r.error_code = std::string(endpoint_.names().text(entry->error_code));
  r.ref = std::string(endpoint_.names().text(entry->ref));
  r.replayed = true;
  ++stats_.replays;
  endpoint_.emit(ev::vendor_replay{request_id, endpoint_.name_of(key), r.status, endpoint_.name_of(r.ref)});
  return endpoint_.answer(request_id, std::move(r));
}

std::uint32_t service_tool::admit(std::uint64_t request_id, tool_call request, const request_draws& draws) {
  const sim::instant now = endpoint_.now();
  if (config_.keys == key_handling::stored_response && request.idempotency_key) {
    // Taken as the request enters: a concurrent retry now gets 409.
    keys_.add({.key = endpoint_.name_of(*request.idempotency_key),
               .target = endpoint_.name_of(request.target),
               .amount_cents = request.amount_cents,
               .created_at = now});
  }
  ++held_;
  const bool bad_target = config_.bad_targets.find(request.target) != config_.bad_targets.end();
  const std::uint32_t slot = desk_.open(execution{.request_id = request_id,
                                                  .request = std::move(request),
                                                  .service = draws.latency,
                                                  .bad_target = bad_target,
                                                  .internal_error = draws.internal_error,
                                                  .lost_response = draws.lost_response,
                                                  .read_leg = draws.read_leg,
                                                  .answer_leg = draws.answer_leg,
                                                  .read_at = {},
                                                  .answer = {}});
  if (pool_.take())
    start_execution(slot);
  else
    pool_.wait({slot, now});
  return slot;
}

// A latency spike lengthens the executions that start inside it: what is
// slow is the far side while the spike lasts, so a request queued through
// the spike and started after it runs at the normal speed. (Without
// servers a request starts as it arrives.)
void service_tool::start_execution(std::uint32_t slot) {
  execution& e = desk_.work(slot);
  const sim::instant now = endpoint_.now();
  e.read_at = now + e.read_leg;
  const sim::duration total = e.service + endpoint_.spike_extra(now);
  endpoint_.begin_execution();
  endpoint_.emit(ev::vendor_execute{e.request_id, total});
  endpoint_.kernel().schedule_at(now + total, &service_tool::on_execution_done, this, slot);
}

void service_tool::on_execution_done(sim::kernel&, void* ctx, std::uint64_t slot) {
  static_cast<service_tool*>(ctx)->finish_execution(static_cast<std::uint32_t>(slot));
}

void service_tool::finish_execution(std::uint32_t slot) {
  endpoint_.end_execution();
  --held_;
  const execution& e = desk_.work(slot);
  tool_result response = complete(e);
  store_response(e, response);
  if (e.lost_response && response.ok()) {
    ++stats_.lost_responses;
    endpoint_.emit(ev::vendor_response_lost{e.request_id, endpoint_.name_of(response.ref)});
    desk_.drop(slot);  // `e` is gone from here on
  } else if (e.answer_leg > sim::duration::zero()) {
    // The server is free now; the answer is still on its way back.
    desk_.work(slot).answer = std::move(response);
    endpoint_.kernel().schedule_at(endpoint_.now() + e.answer_leg, &service_tool::on_answer_arrives, this, slot);
  } else {
    desk_.deliver(slot, std::move(response));
  }
  serve_next();
}

void service_tool::on_answer_arrives(sim::kernel&, void* ctx, std::uint64_t slot) {
  auto* self = static_cast<service_tool*>(ctx);
  const auto s = static_cast<std::uint32_t>(slot);
  self->desk_.deliver(s, std::move(self->desk_.work(s).answer));
}

// A write committed to the target after this execution read its version.
bool service_tool::version_moved(const execution& e) const {
  const auto it = per_target_.find(e.request.target);
  return it != per_target_.end() && it->second.effects != 0 && it->second.last_write > e.read_at;
}

tool_result service_tool::complete(const execution& e) {
  if (e.bad_target) return execution_error(e, 400, tool_errors::invoice_not_found);
  if (e.internal_error) return execution_error(e, 500, tool_errors::api_error);
  if (config_.optimistic_lock && version_moved(e)) return execution_error(e, 409, tool_errors::conflict);
  if (moves_money()) return commit_money(e);
  if (writes()) return commit_effect(e);
  endpoint_.emit(ev::vendor_answered{e.request_id});
  tool_result r;
  r.status = 200;
  return r;
}

tool_result service_tool::execution_error(const execution& e, int status, std::string_view code) {
  endpoint_.count_rejection(status);
  endpoint_.emit(ev::vendor_execution_error{e.request_id, status, endpoint_.name_of(code),
                                            endpoint_.name_of(e.request.idempotency_key.value_or(""))});
  return rejection(status, code);
}

tool_result service_tool::commit_effect(const execution& e) {
  if (effects_.size() < effect_sample_max)
    effects_.push_back(tool_effect_record{e.request.target, endpoint_.now(), e.request_id, e.request.reference});
  ++stats_.effects;
  target_row& row = per_target_[e.request.target];
  row.last_write = endpoint_.now();
  const std::uint64_t count = ++row.effects;
  tool_result r;
  r.status = 200;
  r.ref = config_.ref_prefix + "_" + std::to_string(stats_.effects);
  endpoint_.emit(ev::effect_done{e.request_id, endpoint_.name_of(r.ref), endpoint_.name_of(e.request.target),
                                 endpoint_.name_of(e.request.reference), static_cast<std::int64_t>(count)});
  return r;
}

tool_result service_tool::commit_money(const execution& e) {
  // Names one at a time, in a fixed order (the row's id, its key, its
  // target), so each gets the same id under every compiler: the digest
  // hashes names by text, but tables keyed by name id iterate in id order.
  const std::string id = ledger_.id_of(ledger_.size());
  const ev::name_id id_name = endpoint_.name_of(id);
  refund_ledger::row row;
  row.key = endpoint_.name_of(e.request.idempotency_key.value_or(""));
  row.invoice = endpoint_.name_of(e.request.target);
  row.amount_cents = e.request.amount_cents;
  row.has_key = e.request.idempotency_key.has_value();
  row.committed_at = endpoint_.now();
  row.request_id = e.request_id;
  ++stats_.effects;
  // Checked: the rows are bounded only by the event budget, and a world
  // built in C++ may ask for any positive amount.
  stats_.moved_cents =
      sim::checked_add(stats_.moved_cents, row.amount_cents, "the vendor's total overflows int64 cents");
  ledger_.push(row);
  endpoint_.emit(ev::vendor_commit{e.request_id, id_name, row.key, row.amount_cents, row.invoice});
  tool_result r;
  r.status = 200;
  r.ref = id;
  return r;
}

// What the key keeps once the execution ended: Stripe's layer the response,
// whatever it is; a dedupe window only a success (the key of a failed
// request is free for its retry).
void service_tool::store_response(const execution& e, const tool_result& response) {
  if (!e.request.idempotency_key) return;
  const ev::name_id key = endpoint_.name_of(*e.request.idempotency_key);
  if (config_.keys == key_handling::stored_response) {
    stored_key* entry = keys_.find(key);
    TWICE_CHECK(entry != nullptr && entry->executing);  // never pruned while executing
    entry->executing = false;
    entry->status = response.status;
    entry->error_code = endpoint_.name_of(response.error_code);
    entry->ref = endpoint_.name_of(response.ref);
  } else if (config_.keys == key_handling::dedupe && response.ok() && keys_.find(key) == nullptr) {
    // Two requests that ran at once both had their effect; the window
    // counts from the first.
    keys_.add({.key = key, .created_at = endpoint_.now(), .executing = false, .status = 200});
  }
}

// The server takes the next request, after dropping those that waited too long.
void service_tool::serve_next() {
  dropped_.clear();
  const std::optional<server_pool::waiting> next = pool_.release(endpoint_.now(), dropped_);
  for (const server_pool::waiting& w : dropped_) {
    const execution& stale = desk_.work(w.slot);
    --held_;
    endpoint_.emit(ev::vendor_dropped{stale.request_id, endpoint_.now() - w.arrived});
    endpoint_.count_rejection(503);
    // It never executed: Stripe stores nothing for a request no endpoint began.
    if (config_.keys == key_handling::stored_response && stale.request.idempotency_key)
      keys_.forget(endpoint_.name_of(*stale.request.idempotency_key));
    desk_.deliver(w.slot, rejection(503, error_codes::unavailable));
  }
  if (next) start_execution(next->slot);
}

// A sampled effect's target and reference: ~64 bytes of text. (A ledger
// row's texts are the name table's, counted with the event log.)
std::uint64_t service_tool::footprint() const {
  return ledger_.footprint() + sim::footprint_of(effects_) + effects_.size() * 64 + sim::tree_footprint(per_target_) +
         keys_.footprint() + desk_.records_allocated() * (sizeof(execution) + 64) + pool_.footprint();
}

}  // namespace twice
