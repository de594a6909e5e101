// What interrupts the story: [[fault]] rules at named points of a slice,
// [[crash]] at a time, [[deploy]] rollouts and [[queue_fault]] broker
// misbehaviour. Each reference to a worker or a job must name one that exists:
// a rule that can never match would let a scenario "pass" for the wrong reason.

#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

constexpr duration_limits day_limits{duration::zero(), duration::from_s(24 * 3600)};
constexpr std::string_view point_names[] = {"before_tool",      "after_tool", "before_checkpoint",
                                            "after_checkpoint", "before_ack", "after_ack"};

// Reads `worker` (an index) and checks it names a worker.
bool load_worker_index(const load_state& s, const table_reader& r, std::uint32_t& out) {
  const doc_node* n = r.get("worker");
  if (n == nullptr) return false;
  std::uint32_t index = 0;
  if (!r.integer("worker", index, {0, 9'999, " (workers are numbered from 0)"})) return false;
  if (!check_worker_ref(s, *n, r.path_of("worker"), index)) return false;
  out = index;
  return true;
}

// Reads `job` and checks it names a job.
bool load_job_ref(const load_state& s, const table_reader& r, std::string& out) {
  const doc_node* n = r.get("job");
  if (n == nullptr) return false;
  std::string id;
  if (!r.identifier("job", id) || !check_job_ref(s, *n, r.path_of("job"), id)) return false;
  out = std::move(id);
  return true;
}

bool require(const table_reader& r, std::string_view key, std::string_view expected) {
  if (r.get(key) != nullptr) return true;
  r.missing(key, expected);
  return false;
}

void load_point_fault(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path,
                       {"point", "tool", "step", "job", "attempt", "worker", "action", "probability", "max_times"});
  static const named<point_action> actions[] = {{"crash", point_action::crash}, {"error", point_action::error}};
  point_fault f;
  bool ok = require(r, "point", quoted_choices(point_names));
  if (const doc_node* n = r.get("point")) {
    const auto i = read_choice_index(s.d, *n, r.path_of("point"), point_names);
    if (i) f.point = point_names[*i];
    ok = i.has_value() && ok;
  }
  if (const doc_node* n = r.get("tool")) {
    const std::optional<std::string_view> name = read_tool_name(s, *n, r.path_of("tool"));
    if (name) f.tool = *name;
    ok = name.has_value() && ok;
  }
  if (r.get("step") != nullptr) ok = r.integer("step", f.step, {1, 1000, " (steps are numbered from 1)"}) && ok;
  // Only the tool points carry a tool and a step: elsewhere the rule could never match.
  const bool tool_point = f.point == "before_tool" || f.point == "after_tool";
  for (const std::string_view key : {"tool", "step"}) {
    if (!f.point.empty() && !tool_point && r.get(key) != nullptr) {
      s.d.error(r.pos_of(key), r.path_of(key),
                "only before_tool and after_tool are about a tool or a step; at " + f.point + " this rule never fires");
      ok = false;
    }
  }
  if (r.get("job") != nullptr) ok = load_job_ref(s, r, f.job) && ok;
  if (r.get("attempt") != nullptr) {
    std::uint32_t attempt = 0;
    const bool read = r.integer("attempt", attempt, {0, 10'000, " (attempts are numbered from 0)"});
    if (read) f.attempt = attempt;
    ok = read && ok;
  }
  if (r.get("worker") != nullptr) {
    std::uint32_t index = 0;
    const bool read = load_worker_index(s, r, index);
    if (read) f.worker = "worker/" + std::to_string(index);
    ok = read && ok;
  }
  if (r.get("action") != nullptr) ok = r.choice("action", f.action, actions) && ok;
  if (r.get("probability") != nullptr) ok = r.ppm("probability", f.probability_ppm) && ok;
  if (r.get("max_times") != nullptr) ok = r.integer("max_times", f.max_times, {0, 1'000'000, " (0: no limit)"}) && ok;
  if (ok) s.world.point_faults.push_back(std::move(f));
}

void load_crash(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path, {"at", "worker", "restart"});
  timed_crash c;
  bool ok = require(r, "at", "a time since the start like \"45s\"");
  ok = require(r, "worker", "a worker index like 0") && ok;
  if (r.get("at") != nullptr) ok = r.instant("at", c.at) && ok;
  if (r.get("worker") != nullptr) ok = load_worker_index(s, r, c.worker) && ok;
  if (r.get("restart") != nullptr) ok = r.boolean("restart", c.restart) && ok;
  if (ok) s.world.crashes.push_back(c);
}

void load_deploy(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path,
                       {"at", "sha", "strategy", "batch_size", "batch_interval", "grace_period", "startup"});
  static const named<deploy_strategy> strategies[] = {{"drain", deploy_strategy::drain},
                                                      {"rolling_kill", deploy_strategy::rolling_kill}};
  deploy_spec d;
  bool ok = require(r, "at", "a time since the start like \"45s\"");
  if (r.get("at") != nullptr) ok = r.instant("at", d.at) && ok;
  if (r.get("sha") != nullptr) ok = r.identifier("sha", d.sha) && ok;
  if (r.get("strategy") != nullptr) ok = r.choice("strategy", d.strategy, strategies) && ok;
  if (r.get("batch_size") != nullptr) ok = r.integer("batch_size", d.batch_size, {1, 10'000}) && ok;
  if (r.get("batch_interval") != nullptr) ok = r.duration("batch_interval", d.batch_interval, day_limits) && ok;
  if (r.get("grace_period") != nullptr) ok = r.duration("grace_period", d.grace_period, day_limits) && ok;
  if (r.get("startup") != nullptr) ok = r.duration("startup", d.startup, day_limits) && ok;
  if (ok) s.world.deploys.push_back(std::move(d));
}

// A rule names one job's message (with `nth`), or fires by probability on
// any message: the model ignores the other field, so giving it is a mistake.
void load_queue_fault(load_state& s, const table_reader::item& item) {
  const table_reader r(s.d, *item.table, item.path, {"kind", "job", "nth", "probability", "resend_after"});
  static const named<queue_fault::kind> kinds[] = {{"duplicate_delivery", queue_fault::kind::duplicate_delivery},
                                                   {"lose_delete", queue_fault::kind::lose_delete},
                                                   {"send_timeout", queue_fault::kind::send_timeout}};
  queue_fault f;
  bool ok = require(r, "kind", "\"duplicate_delivery\", \"lose_delete\" or \"send_timeout\"");
  if (r.get("kind") != nullptr) ok = r.choice("kind", f.what, kinds) && ok;
  const bool has_job = r.get("job") != nullptr;
  if (has_job) ok = load_job_ref(s, r, f.job) && ok;
  if (r.get("nth") != nullptr) {
    ok = r.integer("nth", f.nth, {1, 10'000}) && ok;
    if (!has_job) {
      s.d.error(r.pos_of("nth"), r.path_of("nth"),
                "`nth` counts one job's receives, deletes or sends; give the `job` too");
      ok = false;
    }
  }
  if (r.get("resend_after") != nullptr) {
    ok = r.duration("resend_after", f.resend_after, day_limits) && ok;
    if (ok && f.what != queue_fault::kind::send_timeout) {
      s.d.error(
          r.pos_of("resend_after"), r.path_of("resend_after"),
          "`resend_after` is when the producer sends again after a send_timeout; this rule is a " +
              std::string(f.what == queue_fault::kind::duplicate_delivery ? "duplicate_delivery" : "lose_delete"));
      ok = false;
    }
  }
  bool probability_ok = true;
  if (r.get("probability") != nullptr) {
    probability_ok = r.ppm("probability", f.probability_ppm);
    ok = probability_ok && ok;
    if (has_job) {
      s.d.error(r.pos_of("probability"), r.path_of("probability"),
                "a rule with `job` fires on its nth receive, delete or send; `probability` is for rules without `job`");
      ok = false;
    }
  }
  if (!has_job && f.probability_ppm == 0 && probability_ok) {
    s.d.error(r.pos_of("probability"), r.get("probability") != nullptr ? r.path_of("probability") : item.path,
              "a rule without `job` needs a `probability` above 0 (or give a `job` and `nth`)");
    ok = false;
  }
  if (ok) s.world.queue_faults.push_back(std::move(f));
}

}  // namespace

bool check_worker_ref(const load_state& s, const doc_node& n, const std::string& path, std::uint32_t index) {
  if (!s.worker_count || index < *s.worker_count) return true;  // an unknown count was reported already
  const std::uint32_t count = *s.worker_count;
  s.d.error(n.pos, path,
            "worker " + std::to_string(index) + " does not exist: workers.count is " + std::to_string(count) +
                ", so workers are numbered 0 to " + std::to_string(count - 1));
  return false;
}

bool check_job_ref(const load_state& s, const doc_node& n, const std::string& path, const std::string& id) {
  if (s.job_ids.contains(id) || !s.job_ids_complete) return true;
  if (s.world.workload && generated_ordinal(*s.world.workload, id)) return true;
  // Suggestions come from the [[job]] ids only, and from a bounded number
  // of them: generated ids follow a pattern the user can see.
  constexpr std::size_t candidates_max = 1000;
  std::vector<std::string_view> candidates;
  for (std::size_t i = 0; i < s.named_job_ids.size() && i < candidates_max; ++i)
    candidates.push_back(s.named_job_ids[i]);
  s.d.error(n.pos, path, "no job has the id " + quote(id) + did_you_mean(id, candidates));
  return false;
}

void load_faults(const table_reader& root, load_state& s) {
  for (const auto& item : root.tables("fault")) load_point_fault(s, item);
  for (const auto& item : root.tables("crash")) load_crash(s, item);
  for (const auto& item : root.tables("deploy")) load_deploy(s, item);
  for (const auto& item : root.tables("queue_fault")) load_queue_fault(s, item);
}

}  // namespace twice::scenario_detail
