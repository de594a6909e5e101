// The workload: job types ([[job_type]]), explicit [[job]] tables (the
// classic agent job, a job type, or explicit steps) and generated jobs from
// [workload], drawn from the seed's "workload" stream so the same file
// always yields the same jobs.

#include "scenario/sections.hpp"

#include <algorithm>
#include <initializer_list>

#include <twice/world/registry.hpp>

#include "runtime/workload.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

constexpr std::int64_t jobs_max = 1'000'000;
constexpr std::size_t steps_max = 1000;  // calls per job: batches count an item each
constexpr std::string_view steps_expected =
    "an array of steps like [{ tool = \"refund\", target = \"inv_17\", amount_cents = 1999 }]";
constexpr named<progress_mode> progress_modes[] = {
    {"per_step", progress_mode::per_step}, {"per_item", progress_mode::per_item}, {"none", progress_mode::none}};

std::string count_of(std::size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

std::string place(source_pos p) { return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column); }

// Records a job id; a duplicate is an error (the world asserts on one).
bool register_job_id(load_state& s, const std::string& id, source_pos at, const std::string& path) {
  const auto [it, fresh] = s.job_ids.emplace(id, at);
  if (!fresh) s.d.error(at, path, "duplicate job id " + quote(id) + "; first defined at " + place(it->second));
  return fresh;
}

std::optional<step_template> load_step(const load_state& s, const doc_node& n, const std::string& path) {
  if (!n.is_table()) {
    s.d.error(n.pos, path,
              "expected a step like { tool = \"refund\", target = \"inv_17\", amount_cents = 1999 }, found " +
                  describe_found(n));
    return std::nullopt;
  }
  const table_reader r(s.d, n, path, {"tool", "target", "amount_cents", "items"});
  step_template step;
  bool ok = true;
  if (const doc_node* tool = r.get("tool")) {
    const std::optional<std::string_view> name = read_tool_name(s, *tool, r.path_of("tool"));
    if (name) step.tool = std::string(*name);
    ok = name.has_value();
  } else {
    r.missing("tool", quoted_choices(s.tool_names));
    ok = false;
  }
  if (r.get("target") != nullptr) ok = r.string("target", step.target) && ok;
  if (r.get("amount_cents") != nullptr) ok = r.cents("amount_cents", step.amount_cents) && ok;
  if (r.get("items") != nullptr)
    ok = r.integer("items", step.items, {1, static_cast<std::int64_t>(steps_max), " calls"}) && ok;
  if (!ok) return std::nullopt;
  return step;
}

// A job's `steps` and `progress` (a [[job_type]], or a [[job]] that lists
// its own steps): into `type`.
bool load_steps(const load_state& s, const table_reader& r, job_type& type) {
  bool ok = true;
  if (r.get("progress") != nullptr) ok = r.choice("progress", type.progress, progress_modes);
  const std::vector<doc_node>* items = r.array("steps", steps_expected);
  if (items == nullptr) return false;
  if (items->empty() || items->size() > steps_max) {
    s.d.error(r.pos_of("steps"), r.path_of("steps"),
              "a job needs 1 to " + std::to_string(steps_max) + " steps, found " + std::to_string(items->size()));
    return false;
  }
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::optional<step_template> step = load_step(s, (*items)[i], index_path(r.path_of("steps"), i));
    if (step) type.steps.push_back(std::move(*step));
    ok = ok && step.has_value();
  }
  if (ok && type.call_count() > static_cast<std::int64_t>(steps_max)) {
    s.d.error(r.pos_of("steps"), r.path_of("steps"),
              "a job makes at most " + std::to_string(steps_max) + " calls (every item of a batch is one), found " +
                  std::to_string(type.call_count()));
    return false;
  }
  return ok;
}

// Keys that belong to one way of saying what a job does, given with
// another: each is an error. True when none was given.
bool reject_keys(const load_state& s, const table_reader& r, std::initializer_list<std::string_view> keys,
                 std::string_view why) {
  bool none = true;
  for (const std::string_view key : keys) {
    if (r.get(key) == nullptr) continue;
    s.d.error(r.pos_of(key), r.path_of(key), std::string(why));
    none = false;
  }
  return none;
}

// The known job type `key` names ([[job_type]] names and "agent"); an
// unknown name is an error that lists them. nullopt (and `agent` set) for
// the agent job.
bool read_type_ref(const load_state& s, const table_reader& r, std::string_view key, const job_type*& out,
                   bool& agent) {
  std::string name;
  if (!r.string(key, name)) return false;
  if (name == agent_type_name) {
    agent = true;
    return true;
  }
  if (const auto it = s.job_types.find(name); it != s.job_types.end()) {
    out = &it->second;
    return true;
  }
  // Defined but did not load: that table's own error says why.
  if (s.job_type_names.contains(name)) return false;
  std::string known = quote(std::string(agent_type_name));
  for (const auto& [n, at] : s.job_type_names) known += ", " + quote(n);
  s.d.error(r.pos_of(key), r.path_of(key), "unknown job type " + quote(name) + "; expected one of " + known);
  return false;
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
  const table_reader r(s.d, *item.table, item.path,
                       {"id", "type", "invoice", "amount_cents", "email", "enqueue_at", "steps", "progress", "tenant"});
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
  const job_type* type = nullptr;
  std::optional<job_type> own;  // a job that lists its own steps
  bool agent = r.get("steps") == nullptr;
  if (r.get("type") != nullptr) {
    reject_keys(s, r, {"steps", "progress"}, "not used when `type` is given; the job type says it");
    agent = false;
    ok = read_type_ref(s, r, "type", type, agent) && ok;
    if (type != nullptr)
      reject_keys(s, r, {"invoice", "amount_cents", "email"}, "not used with a [[job_type]]; its steps say it");
    if (!ok) return;
  }
  if (agent) {
    if (r.get("progress") != nullptr)
      s.d.error(r.pos_of("progress"), r.path_of("progress"),
                "the agent job records every step; give `steps` to choose");
    ok = load_agent_job(r, job) && ok;
  } else if (type == nullptr) {
    // The agent job's keys would be silently ignored next to explicit steps.
    reject_keys(s, r, {"invoice", "amount_cents", "email"},
                "not used when `steps` is given; put it in the steps instead");
    own.emplace();
    if (load_steps(s, r, *own))
      type = &*own;
    else
      ok = false;
  }
  if (!ok) return;
  if (type != nullptr) {
    const sim::instant at = job.enqueue_at;
    job = make_job(*type, job.id);
    job.enqueue_at = at;
  }
  // The job's own tenant, over its type's.
  if (r.get("tenant") != nullptr && !r.identifier("tenant", job.tenant)) return;
  s.world.jobs.push_back(std::move(job));
}

// ---- [[job_type]] --------------------------------------------------------------

// handler = "grant_points": a handler the program registered
// (world/registry.hpp) runs this type's jobs in place of the built-in one.
bool load_handler_name(load_state& s, const table_reader& r, const std::string& type) {
  std::string name;
  if (!r.string("handler", name)) return false;
  if (!registry::has_handler(name)) {
    const std::vector<std::string> registered = registry::handler_names();
    const std::vector<std::string_view> known(registered.begin(), registered.end());
    std::string hint = did_you_mean(name, known);
    if (hint.empty())
      hint = known.empty() ? "; this program registers none (a program of your own that links twice registers its "
                             "handlers with twice::registry::add_handler, then runs twice::main)"
                           : "; registered: " + join(known);
    s.d.error(r.pos_of("handler"), r.path_of("handler"), "no handler is registered as " + quote(name) + hint);
    return false;
  }
  // A split hands a step to a job of its own, which carries no type: the
  // default handler would run it.
  if (!s.world.runtime.rules.split_tool.empty()) {
    s.d.error(r.pos_of("handler"), r.path_of("handler"),
              "the split discipline hands steps to jobs the built-in handler runs; it does not combine with a "
              "registered handler yet");
    return false;
  }
  s.world.handlers_by_type[type] = name;
  return true;
}

void load_job_type(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path, {"name", "progress", "steps", "tenant", "handler"});
  job_type type;
  if (r.get("name") == nullptr) {
    r.missing("name", "a job type name like \"newsletter\"");
    return;
  }
  if (!r.identifier("name", type.name)) return;
  if (type.name == agent_type_name) {
    s.d.error(r.pos_of("name"), r.path_of("name"),
              quote(type.name) + " is the built-in agent job; choose another name");
    return;
  }
  const auto [it, fresh] = s.job_type_names.emplace(type.name, r.pos_of("name"));
  if (!fresh) {
    s.d.error(r.pos_of("name"), r.path_of("name"),
              "duplicate job type " + quote(type.name) + "; first defined at " + place(it->second));
    return;
  }
  if (r.get("steps") == nullptr) {
    r.missing("steps", steps_expected);
    return;
  }
  if (r.get("tenant") != nullptr && !r.identifier("tenant", type.tenant)) return;
  if (r.get("handler") != nullptr && !load_handler_name(s, r, type.name)) return;
  if (load_steps(s, r, type)) s.job_types.emplace(type.name, std::move(type));
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
    r.diag().error(n->pos, path,
                   "the upper bound " + std::to_string(*hi) + " is below the lower bound " + std::to_string(*lo));
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

// types = [{ type = "newsletter", weight = 3 }, { type = "agent" }]
bool load_mix(const load_state& s, const table_reader& r, workload_spec& w) {
  constexpr std::string_view expected = "an array like [{ type = \"newsletter\", weight = 3 }, { type = \"agent\" }]";
  const std::vector<doc_node>* items = r.array("types", expected);
  if (items == nullptr) return false;
  constexpr std::size_t mix_max = 1000;
  if (items->empty() || items->size() > mix_max) {
    s.d.error(r.pos_of("types"), r.path_of("types"),
              "expected 1 to " + std::to_string(mix_max) + " job types, found " + std::to_string(items->size()));
    return false;
  }
  bool ok = true;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const doc_node& n = (*items)[i];
    const std::string path = index_path(r.path_of("types"), i);
    if (!n.is_table()) {
      s.d.error(n.pos, path, "expected " + std::string(expected) + ", found " + describe_found(n));
      ok = false;
      continue;
    }
    const table_reader t(s.d, n, path, {"type", "weight"});
    weighted_type entry;
    const job_type* type = nullptr;
    bool agent = false;
    if (t.get("type") == nullptr) {
      t.missing("type", "a [[job_type]] name, or \"agent\"");
      ok = false;
    } else if (read_type_ref(s, t, "type", type, agent)) {
      if (type != nullptr) entry.type = *type;
    } else {
      ok = false;
    }
    if (t.get("weight") != nullptr) ok = t.integer("weight", entry.weight, {1, 1'000'000, ""}) && ok;
    w.types.push_back(std::move(entry));
  }
  return ok;
}

std::optional<workload_spec> read_workload(const load_state& s, const table_reader& r) {
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
  const bool mix_given = r.get("types") != nullptr;
  if (mix_given) ok = load_mix(s, r, w) && ok;
  const bool any_agent =
      !mix_given || std::any_of(w.types.begin(), w.types.end(), [](const weighted_type& t) { return !t.type; });
  if (any_agent) {
    ok = load_amounts(r, w) && ok;
    if (r.get("email_probability") != nullptr) ok = r.ppm("email_probability", w.email_ppm) && ok;
  } else if (ok) {
    ok = reject_keys(s, r, {"amount_cents", "email_probability"}, "only agent jobs use it, and `types` has none");
  }
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
      {"count", "start", "interval", "rate", "arrival", "types", "amount_cents", "email_probability", "id_prefix"});
  const std::optional<workload_spec> w = read_workload(s, r);
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
  for (const auto& item : root.tables("job_type")) load_job_type(s, item);
  const std::vector<table_reader::item> items = root.tables("job");
  for (const auto& item : items) load_job(s, item);
  // Something under `job` that is not a job table: its id, if any, is unknown.
  if (const doc_node* n = root.get("job"); n != nullptr && (!n->is_array() || n->items.size() != items.size()))
    s.job_ids_complete = false;
  load_workload(root, s);
}

}  // namespace twice::scenario_detail
