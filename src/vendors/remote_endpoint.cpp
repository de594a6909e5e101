#include "vendors/remote_endpoint.hpp"

#include <optional>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/sleep.hpp>

namespace twice {

remote_endpoint::remote_endpoint(sim::kernel& k, event_log& events, sim::random_stream rng, std::string name,
                                 sim::duration client_timeout, sim::duration round_trip, call_stats& stats)
    : kernel_(&k),
      events_(&events),
      rng_(rng),
      name_(std::move(name)),
      actor_("vendor/" + name_),
      actor_name_(events.name(actor_)),
      client_timeout_(client_timeout),
      round_trip_(round_trip),
      stats_(&stats) {
  // The name becomes part of a trace actor: programmer-chosen, so checked.
  TWICE_CHECK(sim::is_trace_identifier(name_));
  TWICE_CHECK(client_timeout_ >= sim::duration::zero());
  TWICE_CHECK(round_trip_ >= sim::duration::zero());
}

remote_endpoint::arrival remote_endpoint::arrive() {
  const sim::instant t = now();
  ++stats_->calls;
  stats_->requests_per_100ms.count(t);
  return arrival{next_request_id_++, t, sim::random_stream(rng_.next_u64())};
}

void remote_endpoint::add_outage(time_window window) {
  TWICE_CHECK(window.begin <= window.end);
  outages_.push_back(window);
}

void remote_endpoint::add_latency_spike(latency_spike spike) {
  TWICE_CHECK(spike.window.begin <= spike.window.end);
  TWICE_CHECK(spike.extra >= sim::duration::zero());
  spikes_.push_back(spike);
}

bool remote_endpoint::in_outage(sim::instant t) const {
  for (const time_window& w : outages_) {
    if (w.contains(t)) return true;
  }
  return false;
}

sim::duration remote_endpoint::spike_extra(sim::instant t) const {
  sim::duration extra = sim::duration::zero();
  for (const latency_spike& s : spikes_) {
    if (s.window.contains(t)) extra += s.extra;
  }
  return extra;
}

void remote_endpoint::begin_execution() {
  ++stats_->executions;
  ++executing_;
  if (executing_ > stats_->executing_peak) stats_->executing_peak = executing_;
}

void remote_endpoint::end_execution() {
  TWICE_CHECK(executing_ > 0);
  --executing_;
}

void remote_endpoint::count_rejection(int status) {
  TWICE_CHECK(status >= 300);
  ++stats_->rejections_by_status[status];
}

sim::task<tool_result> remote_endpoint::reject(std::uint64_t request_id, tool_result response) {
  emit(ev::vendor_reject{request_id, response.status, name_of(response.error_code)});
  count_rejection(response.status);
  return answer(request_id, std::move(response));
}

sim::task<tool_result> remote_endpoint::answer(std::uint64_t request_id, tool_result response) {
  if (round_trip_ <= client_timeout_) {
    co_await sim::sleep_for(round_trip_);
    co_return response;
  }
  co_await sim::sleep_for(client_timeout_);
  co_return client_timed_out(request_id);
}

sim::task<tool_result> remote_endpoint::await_execution(const answer_desk& desk, std::uint32_t slot,
                                                        std::uint64_t request_id, sim::instant sent_at) {
  std::optional<tool_result> response = co_await desk.wait(slot, sent_at + client_timeout_);
  if (!response) co_return client_timed_out(request_id);
  co_return std::move(*response);
}

sim::task<tool_result> remote_endpoint::lose(std::uint64_t request_id) {
  co_await sim::sleep_for(client_timeout_);
  co_return client_timed_out(request_id);
}

tool_result remote_endpoint::client_timed_out(std::uint64_t request_id) {
  ++stats_->client_timeouts;
  emit(ev::vendor_client_timeout{request_id});
  tool_result r;
  r.status = 0;
  r.error_code = std::string(error_codes::timeout);
  return r;
}

}  // namespace twice
