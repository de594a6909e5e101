#include "vendors/simple_tools.hpp"

#include <utility>

#include "sim/check.hpp"
#include "sim/footprint.hpp"

namespace twice {

namespace {

tool_result ok_result(std::string ref) {
  tool_result r;
  r.status = 200;
  r.ref = std::move(ref);
  return r;
}

}  // namespace

// ---- simple_tool -------------------------------------------------------------

simple_tool::simple_tool(sim::kernel& k, event_log& events, sim::random_stream rng,
                         simple_tool_config config)
    : config_(std::move(config)),
      endpoint_(k, events, rng, config_.name, config_.client_timeout, config_.round_trip, stats_),
      desk_(k),
      pool_(config_.pool) {
  TWICE_CHECK(config_.unavailable_ppm <= ppm_denominator);
  for (const time_window& w : config_.outages) endpoint_.add_outage(w);
  for (const latency_spike& s : config_.latency_spikes) endpoint_.add_latency_spike(s);
}

void simple_tool::add_outage(sim::instant begin, sim::instant end) { endpoint_.add_outage({begin, end}); }

void simple_tool::add_latency_spike(sim::instant begin, sim::instant end, sim::duration extra) {
  endpoint_.add_latency_spike({{begin, end}, extra});
}

sim::task<tool_result> simple_tool::call(tool_call request) {
  remote_endpoint::arrival a = endpoint_.arrive();
  // Both draws always, in this order (see the header).
  const bool unavailable = draw_ppm(a.rng, config_.unavailable_ppm);
  const sim::duration latency = config_.latency.sample(a.rng);
  const bool outage = endpoint_.in_outage(a.sent_at);
  const std::string_view verdict = outage ? "outage" : unavailable ? "unavailable" : "execute";
  endpoint_.emit(ev::vendor_request{a.request_id, endpoint_.name_of(request.idempotency_key.value_or("")),
                                    endpoint_.name_of(request.target), false, 0, endpoint_.name_of(verdict)});
  if (outage || unavailable) {
    tool_result r;
    r.status = 503;
    r.error_code = std::string(error_codes::unavailable);
    co_return co_await endpoint_.reject(a.request_id, std::move(r));
  }
  const std::uint32_t slot = admit(a.request_id, std::move(request), latency);
  co_return co_await endpoint_.await_execution(desk_.answers(), slot, a.request_id, a.sent_at);
}

std::uint32_t simple_tool::admit(std::uint64_t request_id, tool_call request, sim::duration latency) {
  const sim::instant now = endpoint_.now();
  const std::uint32_t slot = desk_.open(execution{request_id, std::move(request), latency, now});
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
void simple_tool::start_execution(std::uint32_t slot) {
  const execution& e = desk_.work(slot);
  const sim::instant now = endpoint_.now();
  const sim::duration total = e.service + endpoint_.spike_extra(now);
  endpoint_.begin_execution();
  endpoint_.emit(ev::vendor_execute{e.request_id, total});
  endpoint_.kernel().schedule_at(now + total, &simple_tool::on_execution_done, this, slot);
}

void simple_tool::on_execution_done(sim::kernel&, void* ctx, std::uint64_t slot) {
  static_cast<simple_tool*>(ctx)->finish_execution(static_cast<std::uint32_t>(slot));
}

void simple_tool::finish_execution(std::uint32_t slot) {
  endpoint_.end_execution();
  const execution& e = desk_.work(slot);
  tool_result response = complete(e.request_id, e.request);
  desk_.deliver(slot, std::move(response));
  // The server takes the next request, after dropping those that waited too long.
  dropped_.clear();
  const std::optional<server_pool::waiting> next = pool_.release(endpoint_.now(), dropped_);
  for (const server_pool::waiting& w : dropped_) {
    const execution& stale = desk_.work(w.slot);
    endpoint_.emit(ev::vendor_dropped{stale.request_id, endpoint_.now() - w.arrived});
    endpoint_.count_rejection(503);
    tool_result r;
    r.status = 503;
    r.error_code = std::string(error_codes::unavailable);
    desk_.deliver(w.slot, std::move(r));
  }
  if (next) start_execution(next->slot);
}

// ---- email_provider ------------------------------------------------------------

simple_tool_config email_provider::default_config() {
  simple_tool_config c;
  c.name = "email";
  c.latency = latency_model::lognormal(sim::duration::from_ms(150), sim::duration::from_s(1));
  return c;
}

email_provider::email_provider(sim::kernel& k, event_log& events, sim::random_stream rng,
                               simple_tool_config config)
    : simple_tool(k, events, rng, std::move(config)) {}

std::uint64_t email_provider::sent_count(std::string_view recipient) const {
  const auto it = per_recipient_.find(recipient);
  return it == per_recipient_.end() ? 0 : it->second;
}

tool_result email_provider::complete(std::uint64_t request_id, const tool_call& request) {
  sent_.push_back(sent_email{request.target, endpoint().now(), request_id, request.reference});
  const std::uint64_t count = ++per_recipient_[request.target];
  const std::string ref = "em_" + std::to_string(sent_.size());
  endpoint().emit(ev::email_sent{request_id, endpoint().name_of(ref), endpoint().name_of(request.target),
                                 endpoint().name_of(request.reference), static_cast<std::int64_t>(count)});
  return ok_result(ref);
}

// ---- model_tool ----------------------------------------------------------------

simple_tool_config model_tool::default_config() {
  simple_tool_config c;
  c.name = "model";
  c.latency = latency_model::lognormal(sim::duration::from_s(4), sim::duration::from_s(20));
  return c;
}

model_tool::model_tool(sim::kernel& k, event_log& events, sim::random_stream rng,
                       simple_tool_config config)
    : simple_tool(k, events, rng, std::move(config)) {}

tool_result model_tool::complete(std::uint64_t request_id, const tool_call&) {
  endpoint().emit(ev::vendor_answered{request_id});
  return ok_result({});
}

// ---- read_tool -------------------------------------------------------------------

simple_tool_config read_tool::default_config() {
  simple_tool_config c;
  c.name = "read";
  c.latency = latency_model::lognormal(sim::duration::from_ms(5), sim::duration::from_ms(50));
  return c;
}

read_tool::read_tool(sim::kernel& k, event_log& events, sim::random_stream rng, simple_tool_config config)
    : simple_tool(k, events, rng, std::move(config)) {}

tool_result read_tool::complete(std::uint64_t request_id, const tool_call&) {
  endpoint().emit(ev::vendor_answered{request_id});
  return ok_result({});
}

// An email's recipient and reference: ~64 bytes of text.
std::uint64_t email_provider::footprint() const {
  return sim::footprint_of(sent_) + sent_.size() * 64 + sim::tree_footprint(per_recipient_) + requests_footprint();
}

}  // namespace twice
