#include "world/world_state.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include <twice/sim/footprint.hpp>
#include <twice/world/registry.hpp>

#include "broker/consumer_lag.hpp"
#include "faults/deploy.hpp"
#include "world/handler_by_type.hpp"
#include "world/sampler.hpp"

namespace twice {

world_state::world_state(world_config config, handler* custom_handler)
    : config_(std::move(config)),
      events_(kernel_, config_.trace_retention),
      random_(config_.seed),
      book_(config_.jobs, config_.workload, config_.runtime.rules.split_tool) {
  events_.add_observer(this);
  if (config_.queue.fifo) {
    // The dead-letter queue of a FIFO queue is a FIFO queue (SQS refuses
    // another), deduplicating as its source does.
    TWICE_CHECK(config_.message_group != message_group_source::none);
    config_.queue.content_based_deduplication = config_.deduplication == deduplication_source::content;
    config_.dead_letter.fifo = true;
    config_.dead_letter.content_based_deduplication = config_.queue.content_based_deduplication;
  }
  queue_ = std::make_unique<queue>(kernel_, events_, ids_, config_.queue);
  if (config_.queue.hold_until_ack && config_.queue.scheduled_poll_average > sim::duration::zero())
    queue_->set_scheduled_poller(random_.stream("queue/scheduled_poller"));
  job_queue_actors_.push_back(events_.name(queue_->actor()));
  if (config_.dead_letter_queue) {
    dlq_ = std::make_unique<queue>(kernel_, events_, ids_, config_.dead_letter);
    // super_fetch sends its poison pills to the dead set without a redrive policy.
    if (config_.queue.max_receive_count > 0 || config_.queue.super_fetch) queue_->set_dead_letter(dlq_.get());
  }
  if (config_.runtime.kafka) {
    group_ = std::make_unique<consumer_group>(kernel_, events_, config_.runtime.kafka->group);
    topic_ = std::make_unique<kafka_topic>(kernel_, events_, ids_, config_.queue.name,
                                           config_.runtime.kafka->group.partitions);
    topic_->set_watcher(&group_->changed());
  }
  if (config_.tenant_queues) {
    any_job_visible_ = std::make_unique<sim::condition>(kernel_);
    queue_->set_watcher(any_job_visible_.get());
    for (const std::string& tenant : story_tenants(config_)) {
      queue_config qc = config_.queue;
      qc.name += "-" + tenant;
      auto q = std::make_unique<queue>(kernel_, events_, ids_, qc);
      job_queue_actors_.push_back(events_.name(q->actor()));
      if (dlq_ && (qc.max_receive_count > 0 || qc.super_fetch)) q->set_dead_letter(dlq_.get());
      q->set_watcher(any_job_visible_.get());
      tenant_queues_.emplace(tenant, std::move(q));
    }
  }
  store_ = std::make_unique<store>(kernel_, events_, config_.store);
  payments_ = std::make_unique<service_tool>(kernel_, events_, random_.stream("vendor/payments"), config_.payments);
  email_ = std::make_unique<service_tool>(kernel_, events_, random_.stream("tool/email"), config_.email);
  model_ = std::make_unique<service_tool>(kernel_, events_, random_.stream("tool/model"), config_.model);
  read_ = std::make_unique<service_tool>(kernel_, events_, random_.stream("tool/read"), config_.read);
  add_tool("refund", payments_.get());
  add_tool("email", email_.get());
  add_tool("model", model_.get());
  add_tool("read", read_.get());
  for (const service_tool_config& c : config_.tools) {
    TWICE_CHECK(tools_.find(c.name) == tools_.end());  // the loader refuses a built-in's name
    own_tools_.push_back(std::make_unique<service_tool>(kernel_, events_, random_.stream("tool/" + c.name), c));
    add_tool(c.name, own_tools_.back().get());
  }

  for (const world_config::registered_tool& t : config_.registered_tools) {
    TWICE_CHECK(tools_.find(t.name) == tools_.end());  // the loader refuses a name taken
    std::unique_ptr<tool> made = registry::make_tool(t.implementation, {t.name, random_.stream("tool/" + t.name)});
    // The loader refuses the name first; a config built by hand gets this.
    if (made == nullptr)
      throw std::invalid_argument("tool " + t.name + ": no tool is registered as \"" + t.implementation + "\"");
    registered_tools_.push_back(std::make_unique<counted_tool>(kernel_, std::move(made)));
    add_tool(t.name, registered_tools_.back().get());
  }

  default_handler_ = std::make_unique<agent_handler>();
  handler_ = custom_handler != nullptr ? custom_handler : default_handler_.get();
  if (!config_.handlers_by_type.empty()) {
    handler_by_type_ = std::make_unique<handler_by_type>(config_.handlers_by_type, *handler_);
    handler_ = handler_by_type_.get();
  }
  faults_ = std::make_unique<scripted_faults>(config_.point_faults, config_.queue_faults, random_);
  queue_->set_faults(faults_.get());
  for (auto& [tenant, q] : tenant_queues_) q->set_faults(faults_.get());

  const std::string& split_tool = config_.runtime.rules.split_tool;
  // A loaded job's rows exist from the start, a generated job's from its
  // arrival (schedule_next_arrival).
  for (const job_spec& spec : config_.jobs) seed_rows(spec);
  open_jobs_ = book_.story_jobs();

  services_ = std::unique_ptr<runtime_services>(new runtime_services{
      kernel_, events_, *queue_, dlq_.get(), *store_, *handler_, *faults_, config_.runtime, book_, tools_});
  services_->topic = topic_.get();
  services_->group = group_.get();
  if (config_.tenant_queues) {
    // The queue for jobs without a tenant is Sidekiq's "default", weight 1.
    services_->job_queues.push_back({queue_.get(), 1});
    for (auto& [tenant, q] : tenant_queues_) {
      const auto w = config_.tenant_queues->weights.find(tenant);
      services_->job_queues.push_back({q.get(), w == config_.tenant_queues->weights.end() ? 1u : w->second});
    }
    services_->any_job_visible = any_job_visible_.get();
  }
  if (config_.runtime.rules.checkpoint == checkpoint_mode::outbox)
    relay_ = std::make_unique<outbox_relay>(*services_, config_.relay_poll_interval);
  const auto make_worker = [this](runtime_services& services, std::uint32_t i) {
    const std::string name = "worker/" + std::to_string(i);
    return std::make_unique<worker>(services, i, config_.sha, random_.stream(name + "/backoff"),
                                    random_.stream(name + "/fetch"));
  };
  for (std::uint32_t i = 0; i < config_.workers; ++i) workers_.push_back(make_worker(*services_, i));
  if (!split_tool.empty()) {
    split_queue_ = std::make_unique<queue>(kernel_, events_, ids_, config_.split.queue);
    if (dlq_ && config_.split.queue.max_receive_count > 0) split_queue_->set_dead_letter(dlq_.get());
    split_queue_->set_faults(faults_.get());
    split_runtime_ = config_.runtime;
    split_runtime_.visibility_timeout.reset();  // the split queue's own
    split_services_ = std::unique_ptr<runtime_services>(new runtime_services{
        kernel_, events_, *split_queue_, dlq_.get(), *store_, *handler_, *faults_, split_runtime_, book_, tools_});
    services_->split_queue = split_queue_.get();
    split_services_->parent_queue = queue_.get();
    for (std::uint32_t i = config_.workers; i < config_.workers + config_.split.workers; ++i)
      workers_.push_back(make_worker(*split_services_, i));
  }
  if (config_.dead_letter_redrive) {
    TWICE_CHECK(dlq_ != nullptr);
    // A split-out job's dead letters go back to the split queue, every other to the job queue.
    const auto source_of = [this](std::string_view job) -> queue& {
      const job_spec spec = book_.spec_of(job);
      return split_queue_ && spec.then ? *split_queue_ : queue_for(spec.tenant);
    };
    redrive_ = std::make_unique<dead_letter_redrive>(kernel_, events_, *store_, *dlq_, source_of,
                                                     *config_.dead_letter_redrive);
    dlq_actor_ = events_.name(dlq_->actor());
  }
  if (config_.runtime.orphan_rescue) {
    // A rescued job's new message goes where its first went: a split-out
    // job's to the split queue (no group there), any other as the producer sends it.
    const auto requeue = [this](std::string_view job) {
      const job_spec spec = book_.spec_of(job);
      if (split_queue_ && spec.then)
        split_queue_->send(std::string(job));
      else
        send_job(job, spec.tenant);
    };
    rescue_ = std::make_unique<orphan_rescue>(*services_, *config_.runtime.orphan_rescue, requeue);
  }
}

world_state::~world_state() {
  // A run stopped by a budget leaves slices in flight; killing them records
  // their end, which no observer of the run (often destroyed before the
  // world) should see.
  events_.detach_observers();
  // Processes first: their frames refer to the models below.
  rescue_.reset();
  redrive_.reset();
  relay_.reset();
  workers_.clear();
}

void world_state::add_tool(std::string step_name, tool* t) {
  TWICE_CHECK(t != nullptr);
  tools_[std::move(step_name)] = t;
}

// A job's row, and the rows of the jobs split out of it (they exist from
// the start, so a handed-off step finds them; they are not jobs of the
// story: their parents are).
void world_state::seed_rows(const job_spec& spec) {
  job_row row;
  row.job_id = spec.id;
  store_->seed_job(row);
  for (const job_spec& child : book_.children_of(spec)) {
    job_row child_row;
    child_row.job_id = child.id;
    store_->seed_job(child_row);
  }
}

// Job `index`'s arrival (in job order) sends its message and schedules the
// next arrival into the place reserved for it at the start, so the order
// is the one scheduling every arrival up front would give, while the event
// queue holds one arrival and the world one generated job ahead.
void world_state::enqueue_callback(sim::kernel& k, void* ctx, std::uint64_t index) {
  auto* w = static_cast<world_state*>(ctx);
  std::string id;
  std::string tenant;
  if (index < w->config_.jobs.size()) {
    id = w->config_.jobs[index].id;
    tenant = w->config_.jobs[index].tenant;
    ++w->loaded_next_;
  } else {
    const generated_job g = *w->generated_next_;
    TWICE_CHECK(index == w->config_.jobs.size() + static_cast<std::uint64_t>(g.ordinal));
    job_spec spec = w->book_.add_arrival(g);
    w->seed_rows(spec);
    id = std::move(spec.id);
    tenant = std::move(spec.tenant);
    w->generated_next_.reset();
    if (!w->generator_->done()) w->generated_next_ = w->generator_->next();
  }
  w->send_job(id, tenant);
  w->schedule_next_arrival(k);
}

// The producer's send. It names a message group only when told to (SQS
// fair queues need nothing else: "include a message group ID"); a FIFO
// queue needs one, and a deduplication id unless it deduplicates by content.
void world_state::send_job(std::string_view id, const std::string& tenant, bool again) {
  if (topic_) {
    faults_->note_message(topic_->produce(std::string(id)).id, id);
    return;
  }
  send_request request;
  request.body = std::string(id);
  switch (config_.message_group) {
    case message_group_source::none:
      break;
    case message_group_source::tenant:
      request.group = tenant.empty() && config_.queue.fifo ? request.body : tenant;
      break;
    case message_group_source::job:
      request.group = request.body;
      break;
  }
  if (config_.queue.fifo) {
    switch (config_.deduplication) {
      case deduplication_source::job_id:
        request.deduplication_id = request.body;
        break;
      case deduplication_source::content:
        break;
      case deduplication_source::per_send:
        request.deduplication_id = fmt::format("{}#{}", id, ++fifo_sends_);
        break;
    }
  }
  const send_result sent = queue_for(tenant).send_message(std::move(request));
  TWICE_CHECK(sent.status == queue_status::ok);  // the loader checks what a scenario sets
  if (!sent.deduplicated) faults_->note_message(sent.id, id);
  if (again) events_.emit(events_.name("producer"), ev::resent{sent.id, events_.name(id), sent.deduplicated});
  if (const std::optional<sim::duration> after = faults_->send_times_out(id)) {
    events_.emit(events_.name("producer"), ev::send_timeout{sent.id, events_.name(id), *after});
    resends_.emplace(resends_made_, resend{std::string(id), tenant});
    kernel_.schedule_at(kernel_.now() + *after, resend_callback, this, resends_made_++);
  }
}

// The producer's retry of a send that timed out: the same job, sent as the
// producer sends any job (its deduplication id is whatever the producer
// makes for a send: the same for job_id and content, a new one per_send).
void world_state::resend_callback(sim::kernel&, void* ctx, std::uint64_t index) {
  auto* w = static_cast<world_state*>(ctx);
  const auto it = w->resends_.find(index);
  TWICE_CHECK(it != w->resends_.end());
  const resend r = std::move(it->second);
  w->resends_.erase(it);
  w->send_job(r.job, r.tenant, true);
}

queue& world_state::queue_for(std::string_view tenant) {
  if (queue* q = tenant_queue(tenant)) return *q;
  return *queue_;
}

queue* world_state::tenant_queue(std::string_view tenant) {
  const auto it = tenant_queues_.find(tenant);
  return it == tenant_queues_.end() ? nullptr : it->second.get();
}

std::vector<const queue*> world_state::job_queues() const {
  std::vector<const queue*> out{queue_.get()};
  for (const auto& [tenant, q] : tenant_queues_) out.push_back(q.get());
  return out;
}

void world_state::for_each_held_message(const std::function<void(const world::held_message&)>& fn) const {
  auto queue_messages = [&fn](const queue& q, bool dead_letter) {
    q.for_each_message([&](const queue::held_view& m) { fn({m.body, dead_letter, m.retention_ends}); });
  };
  for (const queue* q : job_queues()) queue_messages(*q, false);
  if (split_queue_) queue_messages(*split_queue_, false);
  if (dlq_) queue_messages(*dlq_, true);
  if (topic_)
    for (std::uint32_t p = 0; p < topic_->partitions(); ++p)
      for (std::int64_t o = group_->committed(p).value_or(0); o < topic_->end_offset(p); ++o)
        fn({topic_->at(p, o).body, false, std::nullopt});
  for (const auto& [n, r] : resends_) fn({r.job, false, std::nullopt});
}

// The earlier of the two heads; on a tie the loaded job, which comes first
// in job order.
void world_state::schedule_next_arrival(sim::kernel& k) {
  const job_spec* loaded = nullptr;
  std::size_t loaded_index = 0;
  if (loaded_next_ < config_.jobs.size()) {
    loaded_index = loaded_order_.empty() ? loaded_next_ : loaded_order_[loaded_next_];
    loaded = &config_.jobs[loaded_index];
  }
  if (generated_next_ && (loaded == nullptr || generated_next_->enqueue_at < loaded->enqueue_at)) {
    const std::size_t index = config_.jobs.size() + static_cast<std::size_t>(generated_next_->ordinal);
    k.schedule_reserved(generated_next_->enqueue_at, arrivals_seq_ + index, enqueue_callback, this, index);
  } else if (loaded != nullptr) {
    k.schedule_reserved(loaded->enqueue_at, arrivals_seq_ + loaded_index, enqueue_callback, this, loaded_index);
  }
}

void world_state::crash_callback(sim::kernel&, void* ctx, std::uint64_t index) {
  auto* w = static_cast<world_state*>(ctx);
  const timed_crash& c = w->config_.crashes.at(index);
  TWICE_CHECK(c.worker < w->workers_.size());
  w->workers_[c.worker]->crash("scheduled crash", c.restart);
}

world_result world_state::run() {
  for (auto& w : workers_) w->start();
  if (relay_) relay_->start();
  if (rescue_) rescue_->start();
  // Job i's arrival takes place i of a reserved block: the order every
  // arrival scheduled here, in job order, would have.
  arrivals_seq_ = kernel_.reserve_sequence(book_.story_jobs());
  const auto arrives_before = [this](std::size_t a, std::size_t b) {
    return config_.jobs[a].enqueue_at < config_.jobs[b].enqueue_at;
  };
  bool in_order = true;  // a hand-written list may not be
  for (std::size_t i = 1; i < config_.jobs.size() && in_order; ++i) in_order = !arrives_before(i, i - 1);
  if (!in_order) {
    TWICE_CHECK(config_.jobs.size() <= UINT32_MAX);
    loaded_order_.resize(config_.jobs.size());
    for (std::size_t i = 0; i < loaded_order_.size(); ++i) loaded_order_[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(loaded_order_.begin(), loaded_order_.end(), arrives_before);
  }
  if (config_.workload) {
    generator_.emplace(config_.seed, *config_.workload);
    if (!generator_->done()) generated_next_ = generator_->next();
  }
  schedule_next_arrival(kernel_);
  for (std::size_t i = 0; i < config_.crashes.size(); ++i)
    kernel_.schedule_at(config_.crashes[i].at, crash_callback, this, i);
  std::vector<worker*> pods;
  for (auto& w : workers_) pods.push_back(w.get());
  for (const deploy_spec& d : config_.deploys)
    deploys_.push_back(kernel_.spawn(run_deploy(d, pods), "deploy/" + d.sha));
  // A Kafka topic is sampled as its consumer group's lag.
  if (config_.sample_interval > sim::duration::zero())
    sampler_ = kernel_.spawn(sample_every(kernel_, events_,
                                          topic_ ? consumer_lag_counts(kernel_, *topic_, *group_, dlq_.get())
                                                 : queue_counts(job_queues(), dlq_.get()),
                                          config_.sample_interval, config_.counter_lag),
                             "sampler");
  if (open_jobs_ == 0) shut_down();  // an empty workload: nothing will ever be recorded

  const sim::run_limits limits{.until = sim::instant::epoch() + config_.time_limit, .max_events = config_.event_budget};
  const sim::run_result story = run_kernel(limits);
  world_result out;
  out.reason = story.reason;
  if (story.reason == sim::stop_reason::stopped) {
    // The story is over; let what the models still have scheduled happen (a
    // vendor commit after a client timeout, a dead letter's retention
    // expiry), within what is left of the budgets.
    const sim::run_result settle = run_kernel(
        {.until = limits.until, .max_events = config_.event_budget - std::min(config_.event_budget, story.events)});
    out.settle_reason = settle.reason;
  }
  out.all_jobs_ended = open_jobs_ == 0;
  // A story cut short by a budget (with jobs open, or with every job ended
  // and a message still in flight) ends when the run stopped.
  out.story_end = open_jobs_ == 0 && shutting_down_ ? story_end_ : kernel_.now();
  out.now = kernel_.now();
  out.events = kernel_.events_dispatched();
  out.trace_digest = events_.digest();
  out.footprint_peak = footprint_peak_;
  return out;
}

world_progress world_state::progress() const {
  return {kernel_.now(), kernel_.events_dispatched(), book_.story_jobs() - open_jobs_, book_.story_jobs()};
}

// One kernel run, in slices: a hook watching is called every
// progress_every_ events, and the memory held is measured every
// memory_check_every. A kernel run stopped by its slice's budget resumes
// exactly where it stopped, so slicing changes nothing in the schedule.
sim::run_result world_state::run_kernel(sim::run_limits limits) {
  const bool measure = config_.memory_budget > 0;
  if (!progress_hook_ && !measure) return kernel_.run(limits);
  const std::uint64_t hook_every = progress_hook_ ? progress_every_ : UINT64_MAX;
  std::uint64_t next_hook = hook_every;
  std::uint64_t next_measure = measure ? memory_check_every : UINT64_MAX;
  sim::run_result total;
  while (true) {
    const std::uint64_t slice_end = std::min({limits.max_events, next_hook, next_measure});
    const sim::run_result slice = kernel_.run({.until = limits.until, .max_events = slice_end - total.events});
    total.events += slice.events;
    total.reason = slice.reason;
    total.now = slice.now;
    // Only a slice's own budget is resumed; a stop, the time limit,
    // quiescence or the run's budget ends the run as it would have.
    if (slice.reason != sim::stop_reason::event_budget || total.events >= limits.max_events) break;
    if (total.events >= next_measure) {
      next_measure += memory_check_every;
      const std::uint64_t held = held_bytes();
      footprint_peak_ = std::max(footprint_peak_, held);
      if (held > config_.memory_budget) {
        total.reason = sim::stop_reason::memory_budget;
        break;
      }
    }
    if (total.events >= next_hook) {
      next_hook += hook_every;
      progress_hook_(progress());
    }
  }
  return total;
}

std::uint64_t world_state::held_bytes() const {
  std::uint64_t bytes = kernel_.footprint() + events_.footprint() + queue_->footprint() + store_->footprint() +
                        payments_->footprint() + email_->footprint() + model_->footprint() + read_->footprint() +
                        book_.footprint();
  bytes += sim::tree_footprint(resends_);
  for (const auto& [n, r] : resends_) bytes += sim::footprint_of(r.job) + sim::footprint_of(r.tenant);
  for (const auto& t : own_tools_) bytes += t->footprint();
  if (dlq_) bytes += dlq_->footprint();
  if (topic_) bytes += topic_->footprint() + group_->footprint();
  for (const auto& [tenant, q] : tenant_queues_) bytes += q->footprint();
  if (split_queue_) bytes += split_queue_->footprint();
  return bytes;
}

void world_state::mark_end(std::string_view job, job_end how) {
  if (!book_.mark_end(job, how)) return;
  TWICE_CHECK(open_jobs_ > 0);
  --open_jobs_;
}

// The world learns how jobs end from the same trace the checkers read, so
// an end the broker decides (a redrive to the dead-letter queue) counts too.
// The story is over once every job has ended, the queue holds nothing more
// and no slice runs: a message still in flight or coming back (a lost ack, a
// duplicate, a slow overlapping worker) is part of the story — it is how a
// job that already ended runs twice.
void world_state::on_event(const ev::event& e, const name_table& names) {
  note_end(e);
  if (const auto* r = std::get_if<ev::receive>(&e.body);
      r && std::find(job_queue_actors_.begin(), job_queue_actors_.end(), e.actor) != job_queue_actors_.end())
    book_.note_received(names.text(r->body), e.at);
  if (const auto* f = std::get_if<ev::fetched>(&e.body)) book_.note_received(names.text(f->body), e.at);
  // A delivery the tenant's limiter gave straight back served nothing: the wait goes on.
  if (const auto* o = std::get_if<ev::tenant_over_limit>(&e.body)) book_.forget_received(names.text(o->job), e.at);
  if (const auto* q = std::get_if<ev::queue_sample>(&e.body)) queue_peaks_.note(e.at, *q);
  if (redrive_) {
    if (e.actor == dlq_actor_) {
      if (const auto* s = std::get_if<ev::send>(&e.body)) redrive_->note_arrival(names.text(s->body));
      if (const auto* r = std::get_if<ev::redrive_in>(&e.body)) redrive_->note_arrival(names.text(r->body));
      if (std::holds_alternative<ev::retention_expired>(e.body) || std::holds_alternative<ev::moved_out>(e.body))
        redrive_->note_departure();
    }
    // Redriven back: the job is open again until it ends anew.
    if (const auto* m = std::get_if<ev::moved_out>(&e.body); m && book_.reopen_dead_lettered(names.text(m->body)))
      ++open_jobs_;
  }
  if (!shutdown_scheduled_ && story_over()) {
    shutdown_scheduled_ = true;
    // Not from inside the observer: the shutdown itself writes records.
    kernel_.schedule_at(kernel_.now(), shutdown_callback, this);
  }
}

bool world_state::story_over() const {
  if (open_jobs_ != 0 || !resends_.empty() || queue_->size() != 0 || services_->slices_in_flight != 0) return false;
  for (const auto& [tenant, q] : tenant_queues_)
    if (q->size() != 0) return false;
  if (redrive_ && redrive_->pending()) return false;
  // A record not yet committed is read again after a rebalance: the story
  // goes on until the group has committed every record.
  if (topic_)
    for (std::uint32_t p = 0; p < topic_->partitions(); ++p)
      if (group_->committed(p).value_or(0) < topic_->end_offset(p)) return false;
  if (split_queue_ && (split_queue_->size() != 0 || split_services_->slices_in_flight != 0)) return false;
  if (!relay_) return true;
  // Checked only once everything else is quiet, so the scan is rare.
  for (const auto& [id, row] : store_->outbox())
    if (!row.sent) return false;
  return true;
}

void world_state::note_end(const ev::event& e) {
  const name_table& names = events_.names();
  if (const auto* d = std::get_if<ev::job_done>(&e.body)) mark_end(names.text(d->job), job_end::done);
  if (const auto* f = std::get_if<ev::job_failed>(&e.body)) mark_end(names.text(f->job), job_end::failed);
  if (const auto* l = std::get_if<ev::dead_letter>(&e.body)) mark_end(names.text(l->job), job_end::dead_lettered);
  if (const auto* r = std::get_if<ev::redrive>(&e.body)) mark_end(names.text(r->body), job_end::dead_lettered);
}

void world_state::shutdown_callback(sim::kernel&, void* ctx, std::uint64_t) {
  static_cast<world_state*>(ctx)->shut_down();
}

void world_state::shut_down() {
  if (shutting_down_) return;
  shutting_down_ = true;
  story_end_ = kernel_.now();
  events_.emit(events_.name("world"), ev::all_jobs_ended{static_cast<std::int64_t>(book_.spec_count())});
  kernel_.request_stop();  // run() reports the story's end, then lets the models settle
  for (sim::process_id d : deploys_) kernel_.kill(d);
  if (sampler_.valid()) kernel_.kill(sampler_);
  if (relay_) relay_->stop();  // a deploy still under way stops with the story
  if (rescue_) rescue_->stop();
  for (auto& w : workers_) w->stop(ev::stop_reason::shutdown);
  // Every pod stopped at once: the group neither expires their sessions nor rebalances after.
  if (group_) group_->stop();
}

}  // namespace twice
