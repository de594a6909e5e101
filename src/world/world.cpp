#include <twice/world/world.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "world/world_state.hpp"

namespace twice {

std::size_t job_count(const world_config& c) {
  return c.jobs.size() + (c.workload ? static_cast<std::size_t>(c.workload->count) : 0);
}

std::vector<const service_tool_config*> service_tools(const world_config& c) {
  std::vector<const service_tool_config*> out = {&c.email, &c.model, &c.read};
  for (const service_tool_config& t : c.tools) out.push_back(&t);
  return out;
}

std::vector<service_tool_config*> service_tools(world_config& c) {
  std::vector<service_tool_config*> out = {&c.email, &c.model, &c.read};
  for (service_tool_config& t : c.tools) out.push_back(&t);
  return out;
}

std::vector<std::string> story_tenants(const world_config& c) {
  std::set<std::string> tenants;
  for (const job_spec& job : c.jobs)
    if (!job.tenant.empty()) tenants.insert(job.tenant);
  if (c.workload)
    for (const weighted_type& t : c.workload->types)
      if (t.type && !t.type->tenant.empty()) tenants.insert(t.type->tenant);
  return {tenants.begin(), tenants.end()};
}

bool story_calls(const world_config& c, std::string_view tool) {
  const auto calls = [tool](const std::vector<step_spec>& steps) {
    return std::any_of(steps.begin(), steps.end(), [tool](const step_spec& s) { return s.tool == tool; });
  };
  for (const job_spec& job : c.jobs)
    if (calls(job.steps)) return true;
  if (!c.workload || c.workload->count == 0) return false;
  const workload_spec& w = *c.workload;
  for (std::size_t i = 0; i < std::max<std::size_t>(w.types.size(), 1); ++i) {
    if (!is_agent(w, static_cast<std::uint16_t>(i))) {
      const job_type& t = *w.types[i].type;
      if (std::any_of(t.steps.begin(), t.steps.end(), [tool](const step_template& s) { return s.tool == tool; }))
        return true;
      continue;
    }
    // The agent job (runtime/job.hpp): read, model, refund, and its email.
    const job_spec agent = agent_job("", "", 0, w.email_ppm > 0);
    if (calls(agent.steps)) return true;
  }
  return false;
}

void for_each_job(const world_config& c, const std::function<void(const job_spec&)>& fn) {
  for (const job_spec& spec : c.jobs) fn(spec);
  if (!c.workload) return;
  for (workload_generator gen(c.seed, *c.workload); !gen.done();) fn(generated_spec(*c.workload, gen.next()));
}

std::string_view end_name(const world_result& r) {
  switch (r.reason) {
    case sim::stop_reason::stopped:
      return "all_jobs_ended";
    case sim::stop_reason::time_limit:
      return "time_limit";
    case sim::stop_reason::event_budget:
      return "event_budget";
    case sim::stop_reason::memory_budget:
      return "memory_budget";
    case sim::stop_reason::quiescent:
      return r.all_jobs_ended ? "all_jobs_ended" : "stuck";
  }
  return "unknown";
}

std::string_view describe_end(const world_result& r) {
  const std::string_view name = end_name(r);
  if (name == "all_jobs_ended") return "every job ended";
  if (name == "time_limit")
    return r.all_jobs_ended ? "TIME LIMIT reached with every job ended and messages in flight"
                            : "TIME LIMIT reached with jobs open";
  if (name == "event_budget") return "EVENT BUDGET spent with jobs open";
  if (name == "memory_budget") return "MEMORY BUDGET spent with jobs open";
  return "STUCK: nothing left to happen, jobs still open";
}

std::string describe_settling(const world_result& r) {
  if (r.reason != sim::stop_reason::stopped || r.now == r.story_end) return {};
  const std::string at = fmt::format("{}.{:06}s", r.now.us() / 1'000'000, r.now.us() % 1'000'000);
  switch (r.settle_reason) {
    case sim::stop_reason::time_limit:
      return "settling ran on to " + at + ", where [budget] time_limit stopped it";
    case sim::stop_reason::event_budget:
      return "settling ran on to " + at + ", where [budget] events stopped it";
    case sim::stop_reason::memory_budget:
      return "settling ran on to " + at + ", where [budget] memory stopped it";
    default:
      return "settling ran on to " + at + ", when nothing was left to happen";
  }
}

world::world(world_config config, handler* custom_handler)
    : state_(std::make_unique<world_state>(std::move(config), custom_handler)) {}

world::~world() = default;

world_result world::run() { return state_->run(); }

const world_config& world::config() const { return state_->config_; }
std::uint64_t world::held_bytes() const { return state_->held_bytes(); }
sim::kernel& world::kernel() { return state_->kernel_; }
event_log& world::events() { return state_->events_; }
const event_log& world::events() const { return state_->events_; }
queue& world::jobs_queue() { return *state_->queue_; }
queue* world::tenant_queue(std::string_view tenant) { return state_->tenant_queue(tenant); }
queue* world::dead_letter_queue() { return state_->dlq_.get(); }
const kafka_topic* world::topic() const { return state_->topic_.get(); }
const consumer_group* world::group() const { return state_->group_.get(); }
queue* world::split_queue() { return state_->split_queue_.get(); }
store& world::db() { return *state_->store_; }
const store& world::db() const { return *state_->store_; }
service_tool& world::payments() { return *state_->payments_; }
const service_tool& world::payments() const { return *state_->payments_; }
service_tool& world::email() { return *state_->email_; }
worker& world::worker_at(std::size_t i) { return *state_->workers_.at(i); }
std::size_t world::worker_count() const { return state_->workers_.size(); }
const job_book& world::jobs() const { return state_->book_; }
const queue_peaks& world::queue_health() const { return state_->queue_peaks_; }
void world::add_tool(std::string step_name, tool* t) { state_->add_tool(std::move(step_name), t); }

void world::for_each_held_message(const std::function<void(const held_message&)>& fn) const {
  state_->for_each_held_message(fn);
}

void world::on_progress(std::uint64_t every_events, world_progress_hook hook) {
  TWICE_CHECK(every_events > 0);
  state_->progress_every_ = every_events;
  state_->progress_hook_ = std::move(hook);
}

world::refusals world::refused() const {
  refusals out{state_->services_->retries_refused_by_budget, state_->services_->calls_refused_by_breaker};
  if (state_->split_services_) {
    out.retries_by_budget += state_->split_services_->retries_refused_by_budget;
    for (const auto& [tool, n] : state_->split_services_->calls_refused_by_breaker) out.calls_by_breaker[tool] += n;
  }
  return out;
}

std::vector<world::tool_calls> world::tool_stats() const {
  std::vector<tool_calls> out = {{"refund", &state_->payments_->stats()},
                                 {"email", &state_->email_->stats()},
                                 {"model", &state_->model_->stats()},
                                 {"read", &state_->read_->stats()}};
  for (const auto& t : state_->own_tools_) out.push_back({t->name(), &t->stats()});
  for (std::size_t i = 0; i < state_->registered_tools_.size(); ++i)
    out.push_back({state_->config_.registered_tools[i].name, &state_->registered_tools_[i]->stats()});
  return out;
}

const tool* world::tool_named(std::string_view name) const {
  const auto it = state_->tools_.find(name);
  return it == state_->tools_.end() ? nullptr : it->second;
}

std::vector<world::money_tool> world::money_tools() const {
  std::vector<money_tool> out{{"refund", state_->payments_.get()}};
  for (const auto& t : state_->own_tools_)
    if (t->moves_money()) out.push_back({t->name(), t.get()});
  return out;
}

const service_tool* world::own_tool(std::string_view name) const {
  for (const auto& t : state_->own_tools_)
    if (t->name() == name) return t.get();
  return nullptr;
}

}  // namespace twice
