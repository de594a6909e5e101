#include "lint/rules.hpp"

// What the rules share (rules.hpp declares it).

namespace twice::lint_rules_detail {

std::string text(sim::duration d) { return sim::format_duration(d); }

// 2000 -> "2.0", 1500 -> "1.5", 1250 -> "1.25".
std::string ratio_text(std::uint32_t milli) {
  std::string frac = fmt::format("{:03}", milli % 1000);
  while (frac.size() > 1 && frac.back() == '0') frac.pop_back();
  return fmt::format("{}.{}", milli / 1000, frac);
}

// A third of a duration, rounded down to whole milliseconds (a setting
// someone can type).
sim::duration third_of(sim::duration d) { return sim::duration::from_ms(d.us() / 3 / 1000); }

std::string capitalized(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

std::string toml_duration(sim::duration d) { return "\"" + text(d) + "\""; }
std::string toml_word(std::string_view w) { return "\"" + std::string(w) + "\""; }
std::string toml_bool(bool b) { return b ? "true" : "false"; }
std::string toml_int(std::uint64_t n) { return std::to_string(n); }

broker_kind broker_of(const world_config& config) {
  if (config.queue.hold_until_ack) return broker_kind::sidekiq;
  if (config.runtime.celery) return broker_kind::celery;
  if (config.queue.pubsub) return broker_kind::pubsub;
  if (config.runtime.kafka) return broker_kind::kafka;
  return config.queue.fifo ? broker_kind::sqs_fifo : broker_kind::sqs;
}

std::string_view lease_word(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
    case broker_kind::kafka:
      return "";
    case broker_kind::pubsub:
      return "ack deadline";
    case broker_kind::celery:
      return "Redis visibility timeout";
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      return "visibility timeout";
  }
  return "visibility timeout";
}

bool death_redelivers(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return config.queue.super_fetch;
    case broker_kind::celery:
      return config.runtime.celery->acks_late;
    default:
      return true;
  }
}

std::string after_death(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return config.queue.super_fetch
                 ? "the job is recovered only at a later process start, once the dead process's heartbeat has "
                   "expired (super_fetch)"
                 : "the job is lost with the process (Sidekiq's BasicFetch)";
    case broker_kind::celery:
      return config.runtime.celery->acks_late
                 ? fmt::format("the task comes back after the Redis visibility timeout ({}), at the next restore sweep",
                               text(config.queue.visibility_timeout))
                 : std::string("the task is lost: it was acked when received (acks_late off)");
    case broker_kind::kafka:
      return fmt::format(
          "the record is read again after the group's session timeout ({}) and a rebalance, from the "
          "last committed offset",
          text(config.runtime.kafka->group.session_timeout));
    case broker_kind::pubsub:
      return fmt::format("the message comes back after the ack deadline ({})", text(visibility(config)));
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      break;
  }
  return fmt::format("the message comes back after the visibility timeout ({})", text(visibility(config)));
}

std::string step_repeats_after(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return config.queue.super_fetch
                 ? "a retry after a timeout or an error, a crash (super_fetch recovers the job), or a shutdown that "
                   "pushes the job back (Sidekiq's TERM timeout)"
                 : "a retry after a timeout or an error, or a shutdown that pushes the job back (Sidekiq's TERM "
                   "timeout)";
    case broker_kind::celery:
      if (!config.runtime.celery->acks_late) return "a retry after a timeout or an error (Task.retry)";
      break;
    case broker_kind::kafka:
      return "a crash before the offset commit (the record is read again after a rebalance) or a retry in place "
             "after a timeout";
    default:
      break;
  }
  return "a crash before the ack (" + after_death(config) + ") or a retry after a timeout";
}

std::string_view interruptions(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return config.queue.super_fetch ? "a crash, a shutdown that pushes the job back"
                                      : "a shutdown that pushes the job back";
    case broker_kind::celery:
      return config.runtime.celery->acks_late ? "a crash, a visibility timeout that ran out" : "an error";
    case broker_kind::kafka:
      return "a crash, a rebalance";
    case broker_kind::pubsub:
      return "a crash, an ack deadline that ran out";
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      break;
  }
  return "a crash, an expired lease";
}

std::string_view redeliveries(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sidekiq:
      return "a retry, a job pushed back at a shutdown";
    case broker_kind::celery:
      return "a retry, a task restored after the visibility timeout";
    case broker_kind::kafka:
      return "a record read again after a rebalance";
    case broker_kind::pubsub:
      return "a nack, a crash, an ack deadline that ran out";
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      break;
  }
  return "a nack, a crash, a lease that ran out";
}

std::string_view redrive_setting(const world_config& config) {
  switch (broker_of(config)) {
    case broker_kind::sqs:
    case broker_kind::sqs_fifo:
      return key::max_receive_count;
    case broker_kind::pubsub:
      return "pubsub.max_delivery_attempts";
    default:
      return "";
  }
}

std::string first_effect(const world_config& config) {
  std::vector<std::string_view> writes{tool_name::refund, tool_name::email};
  for (const service_tool_config& t : config.tools)
    if (t.effect == tool_effect::write) writes.push_back(t.name);
  for (const world_config::registered_tool& t : config.registered_tools)
    if (t.writes) writes.push_back(t.name);
  const std::optional<tool_use> use = find_use(config, writes);
  if (!use) return "";
  if (use->spec.tool == tool_name::refund) return "the vendor's refund";
  if (moves_money(config, use->spec.tool)) return fmt::format("the {0} through the {0} tool", use->spec.tool);
  if (use->spec.tool == tool_name::email) return "the email's send";
  return fmt::format("the {} tool's effect", use->spec.tool);
}

std::optional<tool_use> find_use(const world_config& config, std::initializer_list<std::string_view> tools) {
  return find_use(config, std::vector<std::string_view>(tools));
}

std::optional<tool_use> find_use(const world_config& config, const std::vector<std::string_view>& tools) {
  std::optional<tool_use> use;
  std::size_t jobs = 0;
  for_each_job(config, [&](const job_spec& job) {
    bool calls = false;
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
      if (std::find(tools.begin(), tools.end(), job.steps[i].tool) == tools.end()) continue;
      calls = true;
      if (!use) use = tool_use{job.id, i + 1, job.steps[i], 0};
    }
    if (calls) jobs += 1;
  });
  if (use) use->jobs = jobs;
  return use;
}

// "job_1 step 3", "job_1 step 3 (and 4 other jobs)".
std::string where(const tool_use& use) {
  std::string out = fmt::format("{} step {}", use.job, use.step);
  if (use.jobs == 2) out += " (and 1 other job)";
  if (use.jobs > 2) out += fmt::format(" (and {} other jobs)", use.jobs - 1);
  return out;
}

std::string stable_key(const tool_use& use) { return fmt::format("{}:step_{}:{}", use.job, use.step, use.spec.tool); }

sim::duration visibility(const world_config& config) {
  return config.runtime.visibility_timeout.value_or(config.queue.visibility_timeout);
}

std::string_view visibility_setting(const world_config& config) {
  if (config.queue.pubsub) return "pubsub.ack_deadline";
  return config.runtime.visibility_timeout ? key::runtime_visibility : key::queue_visibility;
}

bool redrive_active(const world_config& config) {
  return config.dead_letter_queue && config.queue.max_receive_count > 0;
}

// ---- what bounds a job's deliveries ----------------------------------------------
// As the runtime (src/runtime/worker.cpp) and the broker (src/broker/queue.cpp)
// do it. The runtime counts an attempt on the job row in the transaction that
// starts a slice, before the handler runs, and a delivery that finds
// retry.maximum_attempts used up dead-letters the job. That bounds a message
// whose slice crashes or loses its lease on every delivery, and a job that
// fails and is retried. discipline.reset_attempts_on_reenqueue sets the
// counter back to 0 on every delivery (a nack, a crash, a lease that ran
// out): then nothing that crosses deliveries is counted. Failures retried
// inside one slice (discipline.retry = "in_slice") still count up, and with
// one attempt allowed the first failure dead-letters the job without a
// nack. The broker's redrive counts receives: it bounds every path that
// redelivers the message, but not retries slept inside one slice.

// Whether the attempt counter bounds a message whose slice crashes or loses
// its lease on every delivery.
// A runtime that counts only recorded failures (count_attempts = at_failure)
// never counts a slice that died with its process.
bool crash_loops_counted(const world_config& config) {
  return config.runtime.retry.maximum_attempts != 0 && !config.runtime.rules.reset_attempts_on_reenqueue &&
         config.runtime.count_attempts == attempt_counting::at_start;
}

// Whether the counter bounds a job whose slices keep failing: a reset undoes
// the count only when a failure is re-enqueued (a nack with attempts left).
bool failures_counted(const world_config& config) {
  const discipline& rules = config.runtime.rules;
  const std::uint32_t attempts = config.runtime.retry.maximum_attempts;
  if (attempts == 0) return false;
  return !(rules.reset_attempts_on_reenqueue && rules.retry == retry_mode::nack && attempts != 1);
}

std::vector<called_tool> called_tools(const world_config& config) {
  std::vector<called_tool> out = {
      {tool_name::refund, &config.payments, &config.payments.latency, config.payments.client_timeout, true}};
  for (const service_tool_config* t : service_tools(config))
    out.push_back({t->name, t, &t->latency, t->client_timeout, t->effect == tool_effect::write});
  std::stable_partition(out.begin(), out.end(), [](const called_tool& t) { return t.writes; });
  return out;
}

longest_slice longest_slice_of(const world_config& config) {
  const std::vector<called_tool> tools = called_tools(config);
  longest_slice out;
  bool any = false;
  for_each_job(config, [&](const job_spec& job) {
    sim::duration total;
    for (const step_spec& step : job.steps)
      for (const called_tool& t : tools)
        if (t.step_name == step.tool) total = total + t.hold();
    if (!any || out.length < total) out = {job.id, total};
    any = true;
  });
  return out;
}

bool moves_money(const world_config& config, std::string_view tool) {
  if (tool == tool_name::refund) return true;
  for (const service_tool_config& t : config.tools)
    if (t.name == tool) return t.moves_money;
  for (const world_config::registered_tool& t : config.registered_tools)
    if (t.name == tool) return t.moves_money;
  return false;
}

std::vector<std::string_view> own_write_tools(const world_config& config, bool keyed) {
  std::vector<std::string_view> out;
  for (const service_tool_config& t : config.tools)
    if (t.effect == tool_effect::write && (t.keys != key_handling::ignored) == keyed) out.push_back(t.name);
  for (const world_config::registered_tool& t : config.registered_tools)
    if (t.writes && t.accepts_key == keyed) out.push_back(t.name);
  return out;
}

}  // namespace twice::lint_rules_detail
