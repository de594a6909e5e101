#include <twice/explore/explore.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "explore/probe.hpp"
#include "explore/shrink.hpp"
#include "explore/variation.hpp"
#include "explore/worker_threads.hpp"
#include <twice/checks/situations.hpp>
#include <twice/sim/distributions.hpp>
#include <twice/sim/random.hpp>
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"
#include "scenario/words.hpp"
#include "sim/count_text.hpp"

namespace twice::explore {
namespace {

using namespace scenario_detail;
using clock = std::chrono::steady_clock;

std::string range_key(const explore_range& r) { return child_path("explore.vary", r.path); }

// Each bound alone, the rest of the file as written: a bound the scenario
// cannot take is the range's mistake, reported where the range is written.
void check_bounds(const explore_input& in, std::vector<scenario_error>& errors) {
  for (const explore_range& r : in.spec.vary) {
    for (const bool upper : {false, true}) {
      const std::int64_t bound = upper ? r.hi : r.lo;
      doc_node doc = *in.base;
      const std::string which = upper ? "the upper bound " : "the lower bound ";
      std::string problem;
      if (!apply_value(doc, r.path, r.kind, bound)) {
        problem = "the file has no table there to hold the value";
      } else {
        const load_result loaded = load_scenario_text(write_document(doc), in.path);
        if (!loaded.ok() && !loaded.errors.empty()) {
          const scenario_error& e = loaded.errors.front();
          problem = (e.key.empty() ? "" : e.key + ": ") + e.message;
        }
      }
      if (problem.empty()) continue;
      errors.push_back({in.path, r.line, r.column, range_key(r),
                        "with " + which + value_text(r.kind, bound) + ", the scenario does not load: " + problem});
      break;  // one message per range
    }
  }
}

struct run_brief {
  bool loaded = false;
  std::vector<scenario_error> errors;
  run_record record;
};

run_brief do_run(const explore_input& in, const run_plan& plan) {
  probe_result r = probe_document(plan.doc, in.path);
  run_brief out;
  out.loaded = r.loaded;
  out.errors = std::move(r.errors);
  out.record.index = plan.index;
  out.record.world_seed = plan.world_seed;
  out.record.reached = r.reached;
  for (const verdict& v : r.verdicts)
    if (!v.held && !in.expect.expects_violated(v.name) && !in.expect.ignores(v.name))
      out.record.violated.push_back(v.name);
  return out;
}

// The progress of every batch of one exploration, shared by its threads.
struct run_counters {
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> violating{0};
  std::atomic<bool> stop{false};  // the deadline passed, or a run did not load
};

// Runs `count` plans (`plan_of(j)`, made on the thread that runs it) on
// `jobs` threads into results[offset + j]; slot j is written by the one
// thread that ran it, and unfinished runs are left empty.
void run_batch(const explore_input& in, std::size_t count, const std::function<run_plan(std::size_t)>& plan_of,
               const explore_options& options, std::size_t total, std::vector<std::optional<run_brief>>& results,
               std::size_t offset, run_counters& c) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    while (!c.stop.load()) {
      if (options.deadline && clock::now() >= *options.deadline) {
        c.stop = true;
        break;
      }
      const std::size_t j = next.fetch_add(1);
      if (j >= count) break;
      run_brief brief = do_run(in, plan_of(j));
      if (!brief.loaded) c.stop = true;  // bad input: no point going on
      if (!brief.record.violated.empty()) ++c.violating;
      results[offset + j] = std::move(brief);
      ++c.done;
    }
  };
  const unsigned threads = static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(options.jobs == 0 ? 1 : options.jobs, count)));
  std::function<void()> poll;
  if (options.on_progress) poll = [&] { options.on_progress({c.done.load(), total, c.violating.load()}); };
  run_on_threads(threads, work, poll);
}

// The shard's runs: the j-th is run part.index + j * part.count.
std::vector<std::optional<run_brief>> run_all(const explore_input& in, std::uint64_t root_seed,
                                              const explore_options& options, shard part) {
  const std::size_t mine = part.index < options.runs ? (options.runs - part.index + part.count - 1) / part.count : 0;
  std::vector<std::optional<run_brief>> results(mine);
  run_counters counters;
  run_batch(
      in, mine, [&](std::size_t j) { return plan_run(*in.base, in.spec, root_seed, part.index + j * part.count); },
      options, mine, results, 0, counters);
  return results;
}

// --guide coverage: runs in generations of options.generation. The first is
// plain swarm; in each later one, a run is plain swarm on a coin, else a
// near variant (mutate_genes) of a run of the generations before that reached
// the rarest situation reached so far. Every choice comes from run i's own
// stream "explore.guide.<i>" and the results of whole earlier generations,
// so the runs, like plain ones, do not depend on the thread count.
std::vector<std::optional<run_brief>> run_guided(const explore_input& in, std::uint64_t root_seed,
                                                 const explore_options& options, std::vector<run_genes>& genes) {
  std::vector<std::optional<run_brief>> results(options.runs);
  genes.assign(options.runs, {});
  run_counters counters;
  const std::size_t generation = std::max<std::size_t>(1, options.generation);
  const std::size_t kinds = situations().size();
  for (std::size_t start = 0; start < options.runs && !counters.stop.load(); start += generation) {
    const std::size_t count = std::min(generation, options.runs - start);
    std::vector<std::size_t> reached(kinds, 0);
    for (std::size_t i = 0; i < start; ++i)
      for (std::size_t k = 0; k < kinds; ++k) reached[k] += (results[i]->record.reached >> k) & 1U;
    std::size_t rarest = 0;
    for (std::size_t k = 0; k < kinds; ++k)
      if (reached[k] > 0 && (rarest == 0 || reached[k] < rarest)) rarest = reached[k];
    for (std::size_t i = start; i < start + count; ++i) {
      sim::random_stream rng = sim::random_root(root_seed).stream("explore.guide." + std::to_string(i));
      if (rarest == 0 || sim::bernoulli(rng, 1, 2)) {
        genes[i] = draw_genes(*in.base, in.spec, root_seed, i);
        continue;
      }
      std::vector<std::size_t> rare;  // the situations reached least, in list order
      for (std::size_t k = 0; k < kinds; ++k)
        if (reached[k] == rarest) rare.push_back(k);
      const std::size_t k =
          rare[static_cast<std::size_t>(sim::uniform_int(rng, 0, static_cast<std::int64_t>(rare.size()) - 1))];
      std::vector<std::size_t> parents;
      for (std::size_t p = 0; p < start; ++p)
        if ((results[p]->record.reached >> k) & 1U) parents.push_back(p);
      const std::size_t parent =
          parents[static_cast<std::size_t>(sim::uniform_int(rng, 0, static_cast<std::int64_t>(parents.size()) - 1))];
      genes[i] = mutate_genes(*in.base, in.spec, genes[parent], rng);
    }
    run_batch(
        in, count, [&](std::size_t j) { return plan_from_genes(*in.base, in.spec, genes[start + j], start + j); },
        options, options.runs, results, start, counters);
    for (std::size_t i = start; i < start + count; ++i)
      if (!results[i]) counters.stop = true;  // a prefix only: the next generation needs this one whole
  }
  return results;
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

std::string join_words(const std::vector<std::string>& words, std::string_view none) {
  if (words.empty()) return std::string(none);
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The repro: the shrunk scenario `doc`, its [expect] replaced by the one
// promise it breaks, under a header that says where it came from.
std::string repro_text(const explore_input& in, std::uint64_t root_seed, std::size_t runs, std::size_t shrink_runs,
                       const finding& f, doc_node doc) {
  remove_node(doc, key_path{{{"expect", std::nullopt}}});
  doc_node hold;
  hold.type = doc_node::kind::array;
  hold.items.push_back(make_string(f.invariant));
  doc_node expect = make_table(false);
  expect.entries.push_back({"hold", {}, std::move(hold)});
  doc.entries.push_back({"expect", {}, std::move(expect)});

  std::string h;
  h += "# Found by `twice explore`: the invariant " + f.invariant + " is violated.\n";
  h += "#\n";
  h += "# Explored: " + one_line(in.path) + ", root seed " + std::to_string(root_seed) + ", " + std::to_string(runs) +
       (runs == 1 ? " run" : " runs") + ".\n";
  h += "# Original: run " + std::to_string(f.run_index) + " (world seed " + std::to_string(f.world_seed) + "), " +
       describe(f.original_size) + ".\n";
  h += "# Fault kinds it kept: " + join_words(f.kinds_kept, "none") + ".\n";
  if (!f.kinds_dropped.empty()) h += "# Fault kinds swarm left out: " + join_words(f.kinds_dropped, "none") + ".\n";
  for (const auto& [path, value] : f.drawn) h += "# Drawn: " + path + " = " + value + "\n";
  h += "# Shrunk in " + std::to_string(f.shrunk.steps.size()) + (f.shrunk.steps.size() == 1 ? " step" : " steps") +
       " (" + sim::counted(f.shrunk.runs, "candidate") + " tried" +
       (f.shrunk.cut_short ? ", cut short by " + stop_reason(f.shrunk.stop, shrink_runs) : "") + "), each keeping " +
       f.invariant + " violated with the same seed:\n";
  for (const std::string& step : f.shrunk.steps) h += "#   - " + one_line(step) + "\n";
  h += "# Now: " + describe(f.shrunk_size) + ".\n";
  if (f.shrunk.cut_short) h += "# Shrinking was cut short: a smaller scenario may still show the violation.\n";
  h += "#\n";
  h += "# [expect] says the invariant must hold, so `twice run` on this file exits 1\n";
  h += "# and shows the violation. The explored file's own expectations are left out.\n\n";
  return h + write_document(doc);
}

finding make_finding(const explore_input& in, std::uint64_t root_seed, std::size_t runs, const run_plan& plan,
                     const std::string& invariant, const explore_options& options) {
  const std::size_t index = plan.index;
  finding f;
  f.invariant = invariant;
  f.run_index = index;
  f.world_seed = plan.world_seed;
  f.drawn = plan.drawn;
  f.kinds_kept = plan.kinds_kept;
  f.kinds_dropped = plan.kinds_dropped;
  const load_result original = load_scenario_text(write_document(plan.doc), in.path);
  if (original.ok()) f.original_size = size_of(original.value->world);
  shrink_outcome shrunk =
      shrink(plan.doc, invariant, in.path,
             {options.shrink_runs, options.shrink_deadline ? options.shrink_deadline : options.deadline});
  f.shrunk = shrunk;
  const load_result loaded = load_scenario_text(write_document(shrunk.doc), in.path);
  if (loaded.ok()) f.shrunk_size = size_of(loaded.value->world);
  f.repro_text = repro_text(in, root_seed, runs, options.shrink_runs, f, std::move(shrunk.doc));
  // The file as written, read back and run: what `twice run` will see.
  const probe_result check = probe_text(f.repro_text, in.path);
  f.repro_checked = check.loaded && check.violates(invariant);
  f.repro_digest = check.trace_digest;
  return f;
}

}  // namespace

prepared prepare_text(std::string_view text, const std::string& path) {
  prepared out;
  load_result loaded = load_scenario_text(text, path);
  if (!loaded.ok()) {
    out.errors = std::move(loaded.errors);
    return out;
  }
  explore_input in;
  in.path = path;
  in.text = std::string(text);
  in.name = loaded.value->name;
  in.file_seed = loaded.value->world.seed;
  in.spec = loaded.value->explore;
  in.expect = loaded.value->expect;
  doc_node base = parse_document(text, path).root;
  remove_node(base, key_path{{{"explore", std::nullopt}}});
  in.base = std::make_shared<const doc_node>(std::move(base));
  check_bounds(in, out.errors);
  if (!out.errors.empty()) return out;
  in.kinds = fault_kinds(*in.base);
  out.input = std::move(in);
  return out;
}

prepared prepare_file(const std::string& path) {
  // The loader reads (and bounds) the file; read it again only once it loaded.
  load_result loaded = load_scenario_file(path);
  if (!loaded.ok()) return {std::nullopt, std::move(loaded.errors)};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return prepare_text(text.str(), path);
}

run_set collect_runs(const explore_input& in, const explore_options& options) {
  if (options.part.count == 0 || options.part.index >= options.part.count)
    throw std::invalid_argument("a shard's index must be below its count");
  if (options.guide != guide_mode::none && options.part.count != 1)
    throw std::invalid_argument("a guided exploration picks each generation from the ones before: it has no shards");
  run_set out;
  out.root_seed = options.root_seed.value_or(in.file_seed);
  out.runs_asked = options.runs;
  out.part = options.part;
  const clock::time_point start = clock::now();
  std::vector<std::optional<run_brief>> results = options.guide == guide_mode::coverage
                                                      ? run_guided(in, out.root_seed, options, out.genes)
                                                      : run_all(in, out.root_seed, options, options.part);
  out.runs_wall = clock::now() - start;
  std::size_t done = 0;
  while (done < results.size() && results[done]) ++done;
  out.deadline_hit = done < results.size();
  for (std::size_t j = 0; j < done; ++j) {
    run_brief& r = *results[j];
    if (!r.loaded) {
      out.bad_run = r.record.index;
      out.bad_run_errors = std::move(r.errors);
      out.deadline_hit = false;
      out.runs.clear();
      return out;
    }
    out.violating_runs += !r.record.violated.empty();
    out.runs.push_back(std::move(r.record));
  }
  return out;
}

explore_result finish_exploration(const explore_input& in, const explore_options& options, std::uint64_t root_seed,
                                  std::size_t runs_asked, std::vector<run_record> runs,
                                  const std::vector<run_genes>& genes) {
  explore_result out;
  out.root_seed = root_seed;
  out.runs_asked = runs_asked;
  std::sort(runs.begin(), runs.end(), [](const run_record& a, const run_record& b) { return a.index < b.index; });
  // Counted: the prefix 0 .. n-1 every shard finished.
  while (out.runs_done < runs.size() && runs[out.runs_done].index == out.runs_done) ++out.runs_done;
  runs.resize(out.runs_done);
  out.deadline_hit = out.runs_done < runs_asked;
  out.time_limit = options.time_limit;

  for (const std::string_view name : invariant_names()) out.violations.emplace_back(std::string(name), 0);
  out.reached.assign(situations().size(), 0);
  std::vector<std::pair<std::size_t, std::string>> chosen;  // (run, invariant) to shrink, in run order
  for (const run_record& r : runs) {
    for (std::size_t i = 0; i < out.reached.size(); ++i) out.reached[i] += (r.reached >> i) & 1U;
    out.violating_runs += !r.violated.empty();
    for (const std::string& name : r.violated) {
      for (auto& [invariant, count] : out.violations) count += invariant == name;
      const bool seen = std::any_of(chosen.begin(), chosen.end(), [&](const auto& c) { return c.second == name; });
      if ((options.all && !seen) || chosen.empty()) chosen.emplace_back(r.index, name);
    }
  }
  std::erase_if(out.violations, [](const auto& v) { return v.second == 0; });
  for (const std::string& name : in.expect.reach)
    if (const auto i = situation_index(name); i && out.reached[*i] == 0) out.unreached_expected.push_back(name);
  for (const auto& [index, invariant] : chosen)
    out.findings.push_back(make_finding(in, out.root_seed, out.runs_done,
                                        genes.empty() ? plan_run(*in.base, in.spec, root_seed, index)
                                                      : plan_from_genes(*in.base, in.spec, genes.at(index), index),
                                        invariant, options));
  out.runs = std::move(runs);
  return out;
}

explore_result run_explore(const explore_input& in, const explore_options& options) {
  explore_options all_runs = options;
  all_runs.part = {};
  run_set collected = collect_runs(in, all_runs);
  if (collected.bad_run) {
    explore_result out;
    out.root_seed = collected.root_seed;
    out.runs_asked = collected.runs_asked;
    out.runs_done = *collected.bad_run;
    out.runs_wall = collected.runs_wall;
    out.bad_run = collected.bad_run;
    out.bad_run_errors = std::move(collected.bad_run_errors);
    return out;
  }
  explore_result out = finish_exploration(in, options, collected.root_seed, collected.runs_asked,
                                          std::move(collected.runs), collected.genes);
  out.runs_wall = collected.runs_wall;
  return out;
}

void limit_time(explore_options& options, std::chrono::steady_clock::time_point start, sim::duration limit) {
  const time_split split = split_time_limit(limit);
  options.time_limit = split;
  options.deadline = start + std::chrono::microseconds(split.runs.us());
  options.shrink_deadline = start + std::chrono::microseconds(split.limit.us());
}

std::string repro_file_name(std::string_view scenario_name, std::string_view invariant) {
  std::string stem(scenario_name);
  for (char& c : stem) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!keep) c = '_';
  }
  if (stem.empty() || stem.front() == '.') stem.insert(0, "scenario");
  return stem + "-" + std::string(invariant) + ".toml";
}

}  // namespace twice::explore
