#include "vendors/latency_model.hpp"

#include "sim/duration_text.hpp"
#include "sim/sleep.hpp"

namespace twice {

// ---- latency_model -----------------------------------------------------------

latency_model latency_model::fixed(sim::duration value) {
  TWICE_CHECK(value >= sim::duration::zero());
  latency_model m;
  m.shape_ = shape::fixed;
  m.first_ = value;
  return m;
}

latency_model latency_model::uniform(sim::duration lo, sim::duration hi) {
  TWICE_CHECK(lo >= sim::duration::zero());
  TWICE_CHECK(lo <= hi);
  latency_model m;
  m.shape_ = shape::uniform;
  m.first_ = lo;
  m.second_ = hi;
  return m;
}

latency_model latency_model::lognormal(sim::duration p50, sim::duration p99) {
  TWICE_CHECK(p50 > sim::duration::zero());
  TWICE_CHECK(p50 <= p99);
  latency_model m;
  m.shape_ = shape::lognormal;
  m.first_ = p50;
  m.second_ = p99;
  // Computed once: every sample then costs one normal draw and one exp.
  m.params_us_ = sim::lognormal_from_median_p99(static_cast<double>(p50.us()), static_cast<double>(p99.us()));
  return m;
}

sim::duration latency_model::sample(sim::random_stream& rng) const {
  switch (shape_) {
    case shape::fixed: return first_;
    case shape::uniform: return sim::uniform_duration(rng, first_, second_);
    case shape::lognormal: return sim::lognormal_duration(rng, params_us_);
  }
  TWICE_CHECK(false);
  return sim::duration::zero();
}

sim::duration latency_model::p99() const {
  switch (shape_) {
    case shape::fixed: return first_;
    case shape::uniform: {
      // floor(0.99 * span) in integers, split so span * 99 cannot overflow.
      const std::int64_t span = (second_ - first_).us();
      return first_ + sim::duration::from_us(span / 100 * 99 + span % 100 * 99 / 100);
    }
    case shape::lognormal: return second_;
  }
  TWICE_CHECK(false);
  return sim::duration::zero();
}

std::string latency_model::describe() const {
  switch (shape_) {
    case shape::fixed: return "fixed(" + sim::format_duration(first_) + ")";
    case shape::uniform:
      return "uniform(" + sim::format_duration(first_) + ".." + sim::format_duration(second_) + ")";
    case shape::lognormal:
      return "lognormal(p50=" + sim::format_duration(first_) + ", p99=" + sim::format_duration(second_) + ")";
  }
  TWICE_CHECK(false);
  return {};
}

// ---- faults ----------------------------------------------------------------

bool draw_ppm(sim::random_stream& rng, std::uint32_t ppm) {
  TWICE_CHECK(ppm <= ppm_denominator);
  return sim::bernoulli(rng, ppm, ppm_denominator);
}

// ---- remote_endpoint -----------------------------------------------------------

remote_endpoint::remote_endpoint(sim::kernel& k, sim::trace_recorder& trace, sim::random_stream rng, std::string name,
                                 sim::duration client_timeout, sim::duration round_trip, call_stats& stats)
    : kernel_(&k),
      trace_(&trace),
      rng_(rng),
      name_(std::move(name)),
      actor_("vendor/" + name_),
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
  ++stats_->requests_per_100ms[t.us() / request_bucket_width.us()];
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

void remote_endpoint::record(std::string_view kind, std::initializer_list<sim::field> fields) const {
  trace_->record(now(), actor_, kind, fields);
}

void remote_endpoint::count_rejection(int status) {
  TWICE_CHECK(status >= 300);
  ++stats_->rejections_by_status[status];
}

sim::task<tool_result> remote_endpoint::reject(std::uint64_t request_id, tool_result response) {
  record("reject", {{"req", static_cast<std::int64_t>(request_id)},
                    {"status", std::int64_t{response.status}},
                    {"error_code", response.error_code}});
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

sim::task<tool_result> remote_endpoint::lose(std::uint64_t request_id) {
  co_await sim::sleep_for(client_timeout_);
  co_return client_timed_out(request_id);
}

tool_result remote_endpoint::client_timed_out(std::uint64_t request_id) {
  ++stats_->client_timeouts;
  record("client_timeout", {{"req", static_cast<std::int64_t>(request_id)}});
  tool_result r;
  r.status = 0;
  r.error_code = std::string(error_codes::timeout);
  return r;
}

}  // namespace twice
