#include "explore/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include <twice/checks/checked_run.hpp>
#include "checks/verdict_failure.hpp"
#include "explore/variation.hpp"
#include "explore/worker_threads.hpp"
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"
#include "world/job_book.hpp"
#include <twice/sim/footprint.hpp>
#include <twice/sim/random.hpp>

namespace twice::explore {

using scenario_detail::doc_node;
using scenario_detail::key_path;
using scenario_detail::parse_document;
using scenario_detail::parse_key_path;

namespace {

// A value at its axis's key, or each key a case sets.
bool apply_value_of(doc_node& root, const sweep_axis& a, const doc_node& v) {
  if (!v.is_table()) return apply_node(root, a.path, v);
  for (const scenario_detail::doc_entry& e : v.entries)
    if (e.key != "name" && !apply_node(root, e.key, e.value)) return false;
  return true;
}

std::string axis_key(const sweep_axis& a) { return a.line == 0 ? "--vary " + a.path : "sweep.vary." + a.path; }

// Each value alone, the rest of the file as written.
void check_values(const sweep_input& in, std::vector<scenario_error>& errors) {
  for (const sweep_axis& a : in.grid.vary) {
    for (const doc_node& v : a.values) {
      doc_node doc = in.base;
      std::string problem;
      if (!apply_value_of(doc, a, v)) {
        problem = "the file has no table there to hold the value";
      } else {
        const load_result loaded = load_scenario_document(doc, in.path);
        if (!loaded.ok() && !loaded.errors.empty()) {
          const scenario_error& e = loaded.errors.front();
          problem = (e.key.empty() ? "" : e.key + ": ") + e.message;
        }
      }
      if (problem.empty()) continue;
      const std::uint32_t line = v.pos.line != 0 ? v.pos.line : a.line;
      const std::uint32_t column = v.pos.line != 0 ? v.pos.column : a.column;
      errors.push_back({in.path, line, column, axis_key(a),
                        "with " + a.path + " = " + value_text(v) + ", the scenario does not load: " + problem});
      break;  // one message per axis
    }
  }
}

// What a sweep reads of a run besides the verdicts: when each job was first
// sent and first ended, and how many attempts started.
class sweep_observer final : public event_observer {
 public:
  void on_event(const ev::event& e, const name_table&) override {
    if (const auto* s = std::get_if<ev::send>(&e.body))
      sent_.emplace(s->body, e.at);
    else if (const auto* p = std::get_if<ev::produced>(&e.body))
      sent_.emplace(p->body, e.at);
    else if (const auto* d = std::get_if<ev::job_done>(&e.body))
      ended_.emplace(d->job, e.at);
    else if (const auto* f = std::get_if<ev::job_failed>(&e.body))
      ended_.emplace(f->job, e.at);
    else if (const auto* l = std::get_if<ev::dead_letter>(&e.body))
      ended_.emplace(l->job, e.at);
    else if (const auto* r = std::get_if<ev::redrive>(&e.body))
      ended_.emplace(r->body, e.at);
    else if (std::holds_alternative<ev::attempt_start>(e.body))
      ++attempts_;
  }
  std::uint64_t footprint() const override { return sim::tree_footprint(sent_) + sim::tree_footprint(ended_); }
  std::optional<sim::duration> time_of(ev::name_id job) const {
    const auto s = sent_.find(job);
    const auto e = ended_.find(job);
    if (s == sent_.end() || e == ended_.end()) return std::nullopt;
    return e->second - s->second;
  }
  std::uint64_t attempts() const { return attempts_; }

 private:
  std::map<ev::name_id, sim::instant> sent_, ended_;  // first of each
  std::uint64_t attempts_ = 0;
};

struct run_figures {
  bool loaded = false;
  std::vector<scenario_error> errors;
  bool all_ended = false;
  std::int64_t makespan_us = 0;
  std::vector<std::int64_t> job_times_us;
  std::uint64_t jobs = 0, dead_lettered = 0, attempts = 0, calls = 0;
  std::vector<std::pair<std::string, std::uint64_t>> calls_by_tool;
  std::vector<std::string> violated;
  std::vector<std::string> unjudged;
  // Each verdict against [expect]: the invariants and the reasons of those
  // it ignores (the same for every seed of a cell, so kept of seed 0 only),
  // and each verdict not as [expect] asked, with why.
  std::vector<std::pair<std::string, std::optional<std::string>>> checks;
  std::vector<std::pair<std::string, std::string>> failures;
};

std::uint64_t seed_of(std::uint64_t root, std::uint32_t k) {
  if (k == 0) return root;
  // 63 bits: a seed the scenario file can write as a plain integer.
  return sim::random_root(root).stream("sweep.seed." + std::to_string(k)).next_u64() >> 1;
}

// The values of cell `index`, the last axis varying fastest.
std::vector<std::size_t> choice_of(const std::vector<sweep_axis>& axes, std::size_t index) {
  std::vector<std::size_t> out(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    out[a] = index % axes[a].values.size();
    index /= axes[a].values.size();
  }
  return out;
}

run_figures run_cell(const sweep_input& in, std::size_t cell, std::uint64_t world_seed, bool first_seed) {
  doc_node doc = in.base;
  const std::vector<std::size_t> choice = choice_of(in.grid.vary, cell);
  for (std::size_t a = 0; a < choice.size(); ++a)
    apply_value_of(doc, in.grid.vary[a], in.grid.vary[a].values[choice[a]]);
  set_seed(doc, world_seed);
  load_result loaded = load_scenario_document(doc, in.path);
  run_figures out;
  if (!loaded.ok()) {
    out.errors = std::move(loaded.errors);
    return out;
  }
  out.loaded = true;
  world_config config = loaded.value->world;
  config.trace_retention = sim::trace_recorder::retention::digest_only;
  world w(std::move(config));
  sweep_observer seen;
  checked_run_options options;
  options.observers = {&seen};
  const checked_result checked = run_with_checkers(w, options);
  out.all_ended = checked.result.all_jobs_ended;
  out.makespan_us = (checked.result.story_end - sim::instant::epoch()).us();
  const name_table& names = w.events().names();
  w.jobs().for_each_end([&](std::string_view id, job_end end) {
    ++out.jobs;
    if (end == job_end::dead_lettered) ++out.dead_lettered;
    if (end == job_end::open) return;
    if (const std::optional<ev::name_id> name = names.find(id))
      if (const std::optional<sim::duration> t = seen.time_of(*name)) out.job_times_us.push_back(t->us());
  });
  out.attempts = seen.attempts();
  for (const world::tool_calls& t : w.tool_stats()) {
    out.calls_by_tool.emplace_back(std::string(t.name), t.stats->calls);
    out.calls += t.stats->calls;
  }
  const expectations& expect = loaded.value->expect;
  for (const verdict& v : checked.verdicts) {
    if (!v.held)
      out.violated.push_back(v.name);
    else if (!v.judged)
      out.unjudged.push_back(v.name);
    const auto ignored = std::find_if(expect.ignore.begin(), expect.ignore.end(),
                                      [&](const ignored_invariant& i) { return i.name == v.name; });
    if (first_seed)
      out.checks.emplace_back(v.name, ignored != expect.ignore.end() ? std::optional(ignored->reason) : std::nullopt);
    if (ignored != expect.ignore.end()) continue;
    if (std::optional<std::string> failure = verdict_failure(v, expect.expects_violated(v.name)))
      out.failures.emplace_back(v.name, std::move(*failure));
  }
  return out;
}

// A value as --vary reads it back: as written, unless that reads as
// something else (the string "10" as a number), then a TOML string; a
// float keeps a point so it stays one. (--vary splits at commas: a string
// value holding one has no --vary that gives it.)
std::string vary_text(const doc_node& v) {
  const std::string text = value_text(v);
  if (v.type == doc_node::kind::floating) return text.find_first_of(".ein") == std::string::npos ? text + ".0" : text;
  if (v.type != doc_node::kind::string) return text;
  const scenario_detail::parsed_document parsed = parse_document("v = " + text, "--vary");
  const doc_node* read = parsed.ok ? parsed.root.find("v") : nullptr;
  if (read == nullptr || read->is_table() || read->is_array() || read->type == doc_node::kind::date_time ||
      (read->type == doc_node::kind::string && read->text == text))
    return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

// Student's t at 97.5% for `df` degrees of freedom (a table: no libm).
double t975(std::size_t df) {
  static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                     2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                     2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df <= 30) return table[df - 1];
  if (df <= 40) return 2.021;
  if (df <= 60) return 2.000;
  if (df <= 120) return 1.980;
  return 1.960;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (const double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

sweep_cell gather(const sweep_input& in, std::size_t cell, const std::vector<run_figures>& runs) {
  sweep_cell out;
  const std::vector<std::size_t> choice = choice_of(in.grid.vary, cell);
  for (std::size_t a = 0; a < in.grid.vary.size(); ++a) {
    const doc_node& v = in.grid.vary[a].values[choice[a]];
    out.values.push_back(value_text(v));
    if (!v.is_table()) {
      out.vary_arguments.push_back(in.grid.vary[a].path + "=" + vary_text(v));
      continue;
    }
    for (const scenario_detail::doc_entry& e : v.entries)  // a case: the keys it sets
      if (e.key != "name") out.vary_arguments.push_back(e.key + "=" + vary_text(e.value));
  }
  if (!runs.empty())
    for (const auto& [name, ignored] : runs.front().checks) {
      sweep_check c{name, ignored, {}};
      for (std::size_t k = 0; k < runs.size(); ++k)
        for (const auto& [failed, why] : runs[k].failures)
          if (failed == name) c.failed.emplace_back(static_cast<std::uint32_t>(k), why);
      out.checks.push_back(std::move(c));
    }
  std::vector<std::int64_t> makespans, job_times, calls_milli;
  std::vector<double> retries, dead_letters;
  std::map<std::string, std::size_t> broken, unjudged;
  std::vector<std::pair<std::string, std::vector<double>>> by_tool;
  for (const run_figures& r : runs) {
    ++out.runs;
    if (r.all_ended) ++out.runs_all_ended;
    makespans.push_back(r.makespan_us);
    job_times.insert(job_times.end(), r.job_times_us.begin(), r.job_times_us.end());
    const std::uint64_t jobs = std::max<std::uint64_t>(r.jobs, 1);
    calls_milli.push_back(static_cast<std::int64_t>(r.calls * 1000 / jobs));
    retries.push_back(static_cast<double>(r.attempts > r.jobs ? r.attempts - r.jobs : 0));
    dead_letters.push_back(static_cast<double>(r.dead_lettered));
    for (const std::string& v : r.violated) ++broken[v];
    for (const std::string& v : r.unjudged) ++unjudged[v];
    for (std::size_t t = 0; t < r.calls_by_tool.size(); ++t) {
      if (by_tool.size() <= t) by_tool.emplace_back(r.calls_by_tool[t].first, std::vector<double>{});
      by_tool[t].second.push_back(static_cast<double>(r.calls_by_tool[t].second) / static_cast<double>(jobs));
    }
  }
  out.makespan_us = stat_of(std::move(makespans));
  out.job_time_us = stat_of(std::move(job_times));
  out.calls_per_job_milli = stat_of(std::move(calls_milli));
  out.retries = mean_of(retries);
  out.dead_letters = mean_of(dead_letters);
  for (const auto& [tool, values] : by_tool) out.calls_per_job_by_tool.emplace_back(tool, mean_of(values));
  for (const std::string_view name : invariant_names()) {
    if (const auto it = broken.find(std::string(name)); it != broken.end())
      out.violated.emplace_back(it->first, it->second);
    if (const auto it = unjudged.find(std::string(name)); it != unjudged.end())
      out.unjudged.emplace_back(it->first, it->second);
  }
  return out;
}

}  // namespace

std::string verdicts_text(const sweep_cell& c) {
  if (c.violated.empty() && c.unjudged.empty()) return "none";
  std::string out;
  for (const auto& [name, runs] : c.violated)
    out += (out.empty() ? "" : ", ") + fmt::format("{} {}/{}", name, runs, c.runs);
  std::string unjudged;
  for (const auto& [name, runs] : c.unjudged)
    unjudged += (unjudged.empty() ? "" : ", ") + fmt::format("{} {}/{}", name, runs, c.runs);
  if (!unjudged.empty()) out += (out.empty() ? "" : "; ") + ("unjudged: " + unjudged);
  return out;
}

std::string value_text(const doc_node& v) {
  switch (v.type) {
    case doc_node::kind::string:
      return v.text;
    case doc_node::kind::integer:
      return std::to_string(v.integer);
    case doc_node::kind::floating:
      return fmt::format("{}", v.floating);
    case doc_node::kind::boolean:
      return v.boolean ? "true" : "false";
    case doc_node::kind::table:
      return v.find("name") != nullptr ? v.find("name")->text : "?";  // a case
    default:
      return "?";
  }
}

std::optional<sweep_axis> parse_vary_argument(std::string_view text, std::string& problem) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    problem = "expected KEY=V1,V2,... like retry.jitter=none,full";
    return std::nullopt;
  }
  const std::string key(text.substr(0, eq));
  const std::optional<key_path> path = parse_key_path(key);
  if (!path) {
    problem = "`" + key + "` is not a key path like \"retry.jitter\" or \"crash[0].at\"";
    return std::nullopt;
  }
  sweep_axis axis(path->to_string(), 0, 0);
  std::string_view rest = text.substr(eq + 1);
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string one(rest.substr(0, comma));
    if (one.empty()) {
      problem = "an empty value in `" + std::string(text) + "`";
      return std::nullopt;
    }
    // As a TOML scalar if it reads as one (10, 0.25, true, "quoted"), else as a string.
    const scenario_detail::parsed_document parsed = parse_document("v = " + one, "--vary");
    const doc_node* v = parsed.ok ? parsed.root.find("v") : nullptr;
    doc_node value = v != nullptr && !v->is_table() && !v->is_array() && v->type != doc_node::kind::date_time
                         ? *v
                         : scenario_detail::make_string(one);
    value.pos = {};
    for (const doc_node& seen : axis.values)
      if (value_text(seen) == value_text(value) && seen.type == value.type) {
        problem = "the value " + one + " is given twice";
        return std::nullopt;
      }
    axis.values.push_back(std::move(value));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return axis;
}

sweep_stat stat_of(std::vector<std::int64_t> values) {
  sweep_stat s;
  s.n = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const auto rank = [&](std::size_t percent) { return values[(percent * values.size() + 99) / 100 - 1]; };
  s.p50 = rank(50);
  s.p99 = rank(99);
  s.max = values.back();
  double sum = 0;
  for (const std::int64_t v : values) sum += static_cast<double>(v);
  s.mean = sum / static_cast<double>(s.n);
  if (s.n >= 2) {
    double squares = 0;
    for (const std::int64_t v : values)
      squares += (static_cast<double>(v) - s.mean) * (static_cast<double>(v) - s.mean);
    const double sd = std::sqrt(squares / static_cast<double>(s.n - 1));
    s.ci95 = t975(s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

std::size_t cell_count(const std::vector<sweep_axis>& axes) {
  std::size_t n = 1;
  for (const sweep_axis& a : axes) n *= a.values.size();
  return n;
}

sweep_prepared prepare_sweep_text(std::string_view text, const std::string& path, std::vector<sweep_axis> axes,
                                  std::optional<std::uint32_t> seeds, std::optional<std::uint64_t> root_seed) {
  sweep_prepared out;
  load_result loaded = load_scenario_text(text, path);
  if (!loaded.ok()) {
    out.errors = std::move(loaded.errors);
    return out;
  }
  sweep_input in;
  in.path = path;
  in.name = loaded.value->name;
  in.root_seed = root_seed.value_or(loaded.value->world.seed);
  in.grid = loaded.value->sweep;
  if (!axes.empty()) in.grid.vary = std::move(axes);
  if (seeds) in.grid.seeds = *seeds;
  in.base = parse_document(text, path).root;
  scenario_detail::remove_node(in.base, key_path{{{"sweep", std::nullopt}}});
  scenario_detail::remove_node(in.base, key_path{{{"explore", std::nullopt}}});
  // No key varied is one cell, the file as written: under --seeds N (or the
  // [sweep] table's seeds) a look at the spread of seeds alone. With neither,
  // nothing says what to sweep.
  if (in.grid.vary.empty() && !seeds && !loaded.value->sweep.present)
    out.errors.push_back({path,
                          0,
                          0,
                          {},
                          "nothing to sweep: give --vary KEY=V1,V2,..., --seeds N (the file as written under N seeds) "
                          "or a [sweep] table in the file"});
  else if (cell_count(in.grid.vary) * in.grid.seeds > 1'000'000)
    out.errors.push_back({path,
                          0,
                          0,
                          {},
                          fmt::format("{} cells of {} seeds is more than a million runs; sweep fewer values",
                                      cell_count(in.grid.vary), in.grid.seeds)});
  else
    check_values(in, out.errors);
  if (out.errors.empty()) out.input = std::move(in);
  return out;
}

sweep_prepared prepare_sweep_file(const std::string& path, std::vector<sweep_axis> axes,
                                  std::optional<std::uint32_t> seeds, std::optional<std::uint64_t> root_seed) {
  load_result loaded = load_scenario_file(path);
  if (!loaded.ok()) return {std::nullopt, std::move(loaded.errors)};
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return prepare_sweep_text(text.str(), path, std::move(axes), seeds, root_seed);
}

sweep_result run_sweep(const sweep_input& in, unsigned jobs,
                       const std::function<void(const sweep_progress&)>& on_progress) {
  const auto start = std::chrono::steady_clock::now();
  sweep_result out;
  out.axes = in.grid.vary;
  out.seeds = in.grid.seeds;
  out.root_seed = in.root_seed;
  for (std::uint32_t k = 0; k < out.seeds; ++k) out.world_seeds.push_back(seed_of(in.root_seed, k));
  const std::size_t cells = cell_count(out.axes);
  const std::size_t total = cells * out.seeds;
  // Run i is cell i / seeds under seed i % seeds; slot i is written by the
  // one thread that ran it.
  std::vector<run_figures> runs(total);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    while (!stop.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= total) break;
      runs[i] = run_cell(in, i / out.seeds, out.world_seeds[i % out.seeds], i % out.seeds == 0);
      if (!runs[i].loaded) stop = true;
      ++done;
    }
  };
  const unsigned threads = static_cast<unsigned>(std::clamp<std::size_t>(jobs, 1, total));
  std::function<void()> poll;
  if (on_progress) poll = [&] { on_progress({done.load(), total}); };
  run_on_threads(threads, work, poll);
  for (std::size_t i = 0; i < total; ++i) {
    if (runs[i].loaded) continue;
    if (runs[i].errors.empty()) continue;  // not run: a bad cell stopped the sweep
    out.bad_cell = i / out.seeds;
    out.bad_cell_errors = runs[i].errors;
    out.wall = std::chrono::steady_clock::now() - start;
    return out;
  }
  for (std::size_t c = 0; c < cells; ++c)
    out.cells.push_back(
        gather(in, c,
               std::vector<run_figures>(runs.begin() + static_cast<std::ptrdiff_t>(c * out.seeds),
                                        runs.begin() + static_cast<std::ptrdiff_t>((c + 1) * out.seeds))));
  out.wall = std::chrono::steady_clock::now() - start;
  return out;
}

}  // namespace twice::explore
