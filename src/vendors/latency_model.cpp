#include "vendors/latency_model.hpp"

#include <algorithm>
#include <iterator>
#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sim/duration_text.hpp"
#include "sim/signal.hpp"
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

// ---- answer_desk -------------------------------------------------------------

struct answer_desk::state {
  struct slot_record {
    std::optional<sim::signal> answered;  // re-made per use: a signal is one-shot
    tool_result response;
    bool in_use = false;
    bool far_side_done = false;
    bool caller_attached = false;
  };

  explicit state(sim::kernel& k) : kernel(&k) {}

  slot_record& live(std::uint32_t slot) {
    TWICE_CHECK(slot < records.size());
    TWICE_CHECK(records[slot].in_use);
    return records[slot];
  }

  void release_if_done(std::uint32_t slot) {
    slot_record& r = live(slot);
    if (!r.far_side_done || r.caller_attached) return;
    r.answered.reset();
    r.response = tool_result{};
    r.in_use = false;
    free_slots.push_back(slot);
  }

  sim::kernel* kernel;
  std::deque<slot_record> records;  // deque: stable addresses while it grows
  std::vector<std::uint32_t> free_slots;
};

namespace {

// Lives in the caller's frame: destroyed on return *and* when the caller is
// killed, so the slot learns the caller is gone either way.
class caller_ticket {
 public:
  caller_ticket(std::shared_ptr<answer_desk::state> s, std::uint32_t slot) : state_(std::move(s)), slot_(slot) {
    answer_desk::state::slot_record& r = state_->live(slot_);
    TWICE_CHECK(!r.caller_attached);
    r.caller_attached = true;
  }
  caller_ticket(const caller_ticket&) = delete;
  caller_ticket& operator=(const caller_ticket&) = delete;
  ~caller_ticket() {
    state_->live(slot_).caller_attached = false;
    state_->release_if_done(slot_);
  }

 private:
  std::shared_ptr<answer_desk::state> state_;
  std::uint32_t slot_;
};

sim::task<std::optional<tool_result>> wait_for_answer(std::shared_ptr<answer_desk::state> s, std::uint32_t slot,
                                                      sim::instant deadline) {
  const caller_ticket ticket(s, slot);
  const bool answered = co_await s->live(slot).answered->wait_until(deadline);
  if (!answered) co_return std::nullopt;
  co_return s->live(slot).response;
}

}  // namespace

answer_desk::answer_desk(sim::kernel& k) : state_(std::make_shared<state>(k)) {}

std::uint32_t answer_desk::open() {
  state& s = *state_;
  std::uint32_t slot = 0;
  if (!s.free_slots.empty()) {
    slot = s.free_slots.back();
    s.free_slots.pop_back();
  } else {
    TWICE_CHECK(s.records.size() < UINT32_MAX);
    slot = static_cast<std::uint32_t>(s.records.size());
    s.records.emplace_back();
  }
  state::slot_record& r = s.records[slot];
  TWICE_CHECK(!r.in_use);
  r.answered.emplace(*s.kernel);
  r.in_use = true;
  r.far_side_done = false;
  r.caller_attached = false;
  return slot;
}

void answer_desk::deliver(std::uint32_t slot, tool_result response) {
  state::slot_record& r = state_->live(slot);
  TWICE_CHECK(!r.far_side_done);
  r.response = std::move(response);
  r.far_side_done = true;
  r.answered->trigger();  // the caller resumes later, at this instant
  state_->release_if_done(slot);
}

void answer_desk::drop(std::uint32_t slot) {
  state::slot_record& r = state_->live(slot);
  TWICE_CHECK(!r.far_side_done);
  r.far_side_done = true;
  state_->release_if_done(slot);
}

sim::task<std::optional<tool_result>> answer_desk::wait(std::uint32_t slot, sim::instant deadline) const {
  return wait_for_answer(state_, slot, deadline);
}

std::size_t answer_desk::slots_allocated() const { return state_->records.size(); }

// ---- remote_endpoint -----------------------------------------------------------

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

void request_buckets::count(sim::instant t) {
  const std::int64_t index = t.us() / request_bucket_width.us();
  TWICE_CHECK(index >= current_.index);
  if (index != current_.index) current_ = bucket{index, 0};
  ++current_.requests;
  // Counts only grow, so the current bucket climbs the list one place at a
  // time: it is in the list already, or enters it by passing the shortest.
  auto in_list = std::find_if(tallest_.begin(), tallest_.end(), [&](const bucket& b) { return b.index == index; });
  if (in_list == tallest_.end()) {
    if (tallest_.size() == kept && tallest_.back().requests >= current_.requests) return;
    if (tallest_.size() == kept) tallest_.pop_back();
    in_list = tallest_.insert(tallest_.end(), current_);
  }
  in_list->requests = current_.requests;
  // Above every shorter bucket; below any the same height, which got there first.
  while (in_list != tallest_.begin() && std::prev(in_list)->requests < in_list->requests) {
    std::iter_swap(in_list, std::prev(in_list));
    --in_list;
  }
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
