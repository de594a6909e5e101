// The workload: explicit [[job]] tables (the classic agent job, or explicit
// steps) and generated jobs from [workload], drawn from the seed's
// "workload" stream so the same file always yields the same jobs.

#include "scenario/sections.hpp"

#include "runtime/workload.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

constexpr std::int64_t jobs_max = 1'000'000;
constexpr std::size_t steps_max = 1000;
constexpr std::string_view steps_expected =
    "an array of steps like [{ tool = \"refund\", target = \"inv_17\", amount_cents = 1999 }]";

std::string count_of(std::size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

std::string place(source_pos p) {
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column);
}

// Records a job id; a duplicate is an error (the world asserts on one).
bool register_job_id(load_state& s, const std::string& id, source_pos at, const std::string& path) {
  const auto [it, fresh] = s.job_ids.emplace(id, at);
  if (!fresh) s.d.error(at, path, "duplicate job id " + quote(id) + "; first defined at " + place(it->second));
  return fresh;
}

std::optional<step_spec> load_step(const load_state& s, const doc_node& n, const std::string& path) {
  if (!n.is_table()) {
    s.d.error(n.pos, path,
              "expected a step like { tool = \"refund\", target = \"inv_17\", amount_cents = 1999 }, found " +
                  describe_found(n));
    return std::nullopt;
  }
  const table_reader r(s.d, n, path, {"tool", "target", "amount_cents"});
  step_spec step;
  bool ok = true;
  if (const doc_node* tool = r.get("tool")) {
    const auto i = read_choice_index(s.d, *tool, r.path_of("tool"), tool_names);
    if (i) step.tool = tool_names[*i];
    ok = i.has_value();
  } else {
    r.missing("tool", quoted_choices(tool_names));
    ok = false;
  }
  if (r.get("target") != nullptr) ok = r.string("target", step.target) && ok;
  if (r.get("amount_cents") != nullptr) ok = r.cents("amount_cents", step.amount_cents) && ok;
  if (!ok) return std::nullopt;
  return step;
}

bool load_steps(const load_state& s, const table_reader& r, job_spec& job) {
  const std::vector<doc_node>* items = r.array("steps", steps_expected);
  if (items == nullptr) return false;
  // The agent job's keys would be silently ignored next to explicit steps.
  for (const std::string_view key : {"invoice", "amount_cents", "email"}) {
    if (r.get(key) != nullptr)
      s.d.error(r.pos_of(key), r.path_of(key), "not used when `steps` is given; put it in the steps instead");
  }
  if (items->empty() || items->size() > steps_max) {
    s.d.error(r.pos_of("steps"), r.path_of("steps"),
              "a job needs 1 to " + std::to_string(steps_max) + " steps, found " + std::to_string(items->size()));
    return false;
  }
  bool ok = true;
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::optional<step_spec> step = load_step(s, (*items)[i], index_path(r.path_of("steps"), i));
    if (step) job.steps.push_back(std::move(*step));
    ok = ok && step.has_value();
  }
  return ok;
}

bool load_agent_job(const table_reader& r, job_spec& job) {
  std::string invoice;
  std::int64_t amount = 0;
  bool email = false;
  bool ok = true;
  if (r.get("invoice") == nullptr) {
    r.missing("invoice", "an invoice id like \"inv_17\" (or give the job `steps`)");
    ok = false;
  } else {
    ok = r.string("invoice", invoice) && ok;
  }
  if (r.get("amount_cents") == nullptr) {
    r.missing("amount_cents", "the refund in whole cents, like 1999");
    ok = false;
  } else {
    ok = r.cents("amount_cents", amount) && ok;
  }
  if (r.get("email") != nullptr) ok = r.boolean("email", email) && ok;
  if (!ok) return false;
  const sim::instant at = job.enqueue_at;
  job = agent_job(job.id, std::move(invoice), amount, email);
  job.enqueue_at = at;
  return true;
}

void load_job(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path, {"id", "invoice", "amount_cents", "email", "enqueue_at", "steps"});
  job_spec job;
  bool ok = true;
  if (r.get("id") == nullptr) {
    r.missing("id", "a job id like \"job_17\"");
    ok = false;
  } else if (!r.identifier("id", job.id)) {
    ok = false;
  }
  if (ok) {
    s.named_job_ids.push_back(job.id);
    ok = register_job_id(s, job.id, r.pos_of("id"), r.path_of("id"));
  } else {
    s.job_ids_complete = false;
  }
  if (r.get("enqueue_at") != nullptr) ok = r.instant("enqueue_at", job.enqueue_at) && ok;
  ok = (r.get("steps") != nullptr ? load_steps(s, r, job) : load_agent_job(r, job)) && ok;
  if (ok) s.world.jobs.push_back(std::move(job));
}

// ---- [workload] ----------------------------------------------------------------

// amount_cents = 1999 | [100, 5000]
bool load_amounts(const table_reader& r, workload_spec& w) {
  const doc_node* n = r.get("amount_cents");
  if (n == nullptr) {
    r.missing("amount_cents", "an amount in cents like 1999, or a range like [100, 5000]");
    return false;
  }
  const std::string path = r.path_of("amount_cents");
  if (!n->is_array()) {
    const auto v = read_cents(r.diag(), *n, path);
    if (v) w.amount_lo = w.amount_hi = *v;
    return v.has_value();
  }
  if (n->items.size() != 2) {
    r.diag().error(n->pos, path,
                   "expected a range of two amounts like [100, 5000], found " + count_of(n->items.size()));
    return false;
  }
  const auto lo = read_cents(r.diag(), n->items[0], index_path(path, 0));
  const auto hi = read_cents(r.diag(), n->items[1], index_path(path, 1));
  if (!lo || !hi) return false;
  if (*hi < *lo) {
    r.diag().error(n->pos, path, "the upper bound " + std::to_string(*hi) + " is below the lower bound " +
                                     std::to_string(*lo));
    return false;
  }
  w.amount_lo = *lo;
  w.amount_hi = *hi;
  return true;
}

// interval = "100ms" | rate = 10 (jobs per second): one or neither.
bool load_spacing(const table_reader& r, workload_spec& w) {
  const bool has_interval = r.get("interval") != nullptr;
  const bool has_rate = r.get("rate") != nullptr;
  if (has_interval && has_rate) {
    r.diag().error(r.pos_of("rate"), r.path_of("rate"), "give either `interval` or `rate`, not both");
    return false;
  }
  if (has_interval) return r.duration("interval", w.interval, {duration::from_us(1), duration::from_s(24 * 3600)});
  if (!has_rate) return true;
  std::int64_t rate = 0;
  if (!r.integer("rate", rate, {1, 1'000'000, " jobs per second"})) return false;
  w.interval = duration::from_us(1'000'000 / rate);  // rounded down to a whole microsecond
  return true;
}

std::optional<workload_spec> read_workload(const table_reader& r) {
  static const named<arrival_kind> arrivals[] = {{"even", arrival_kind::even}, {"poisson", arrival_kind::poisson}};
  workload_spec w;
  bool ok = true;
  if (r.get("count") == nullptr) {
    r.missing("count", "the number of jobs to generate, like 100");
    ok = false;
  } else {
    ok = r.integer("count", w.count, {0, jobs_max}) && ok;
  }
  if (r.get("start") != nullptr) ok = r.instant("start", w.start) && ok;
  ok = load_spacing(r, w) && ok;
  if (r.get("arrival") != nullptr) ok = r.choice("arrival", w.arrival, arrivals) && ok;
  ok = load_amounts(r, w) && ok;
  if (r.get("email_probability") != nullptr) ok = r.ppm("email_probability", w.email_ppm) && ok;
  if (r.get("id_prefix") != nullptr) ok = r.identifier("id_prefix", w.id_prefix) && ok;
  if (!ok) return std::nullopt;
  w.last = sim::instant::epoch() + instant_offset_max;
  // Even arrivals end at start + (count - 1) * interval: keep it on the clock.
  const std::int64_t span_max = (instant_offset_max - (w.start - sim::instant::epoch())).us();
  if (w.arrival == arrival_kind::even && w.count > 1 && w.interval.us() > span_max / (w.count - 1)) {
    r.diag().error(r.pos_of("count"), r.path_of("count"),
                   std::to_string(w.count) + " jobs every " + sim::format_duration(w.interval) +
                       " would arrive past the ten-year limit");
    return std::nullopt;
  }
  return w;
}

// The jobs themselves are generated as they arrive (runtime/workload.hpp);
// here only their ids are checked against the [[job]] ids, the first
// clash (in generation order) reported.
void check_generated_ids(load_state& s, const table_reader& r, const workload_spec& w) {
  std::optional<std::int64_t> first;
  const source_pos* defined = nullptr;
  for (const auto& [id, at] : s.job_ids) {
    const std::optional<std::int64_t> ordinal = generated_ordinal(w, id);
    if (ordinal && (!first || *ordinal < *first)) {
      first = ordinal;
      defined = &at;
    }
  }
  if (!first) return;
  s.d.error(r.pos_of("id_prefix"), r.path_of("id_prefix"),
            "generates the job id " + quote(generated_job_id(w, *first)) + ", already defined at " + place(*defined) +
                "; choose another id_prefix");
}

void load_workload(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("workload");
  if (t == nullptr) return;
  const table_reader r(
      s.d, *t, "workload",
      {"count", "start", "interval", "rate", "arrival", "amount_cents", "email_probability", "id_prefix"});
  const std::optional<workload_spec> w = read_workload(r);
  if (!w) {
    s.job_ids_complete = false;  // its ids are unknown: references to them are not checked
    return;
  }
  if (static_cast<std::int64_t>(s.world.jobs.size()) + w->count > jobs_max) {
    s.d.error(r.pos_of("count"), "workload.count",
              "the scenario would have more than " + std::to_string(jobs_max) + " jobs");
    s.job_ids_complete = false;
    return;
  }
  check_generated_ids(s, r, *w);
  s.world.workload = *w;
}

}  // namespace

void load_jobs(const table_reader& root, load_state& s) {
  const std::vector<table_reader::item> items = root.tables("job");
  for (const auto& item : items) load_job(s, item);
  // Something under `job` that is not a job table: its id, if any, is unknown.
  if (const doc_node* n = root.get("job"); n != nullptr && (!n->is_array() || n->items.size() != items.size()))
    s.job_ids_complete = false;
  load_workload(root, s);
}

}  // namespace twice::scenario_detail
