#include "explore/shrink.hpp"

#include <algorithm>
#include <functional>

#include "explore/variation.hpp"
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"

namespace twice::explore {
namespace {

using namespace scenario_detail;
using sim::duration;

// The default latency of each far side (service_tool_config, the
// built-in tools' configs and a tool of your own, load_tools.cpp): its
// median is the fixed latency tried.
struct far_side {
  std::string path;
  std::string median;
};

// "tools.email", "tools.model", "tools.read", then the file's own tools.
std::vector<std::string> tool_paths(const doc_node& root) {
  std::vector<std::string> out = {"tools.email", "tools.model", "tools.read"};
  const doc_node* tools = root.find("tools");
  if (tools == nullptr || !tools->is_table()) return out;
  for (const doc_entry& e : tools->entries)
    if (e.key != "email" && e.key != "model" && e.key != "read" && parse_key_path("tools." + e.key))
      out.push_back("tools." + e.key);
  return out;
}

std::vector<far_side> far_sides(const doc_node& root) {
  std::vector<far_side> out = {
      {"vendor", "300ms"}, {"tools.email", "150ms"}, {"tools.model", "4s"}, {"tools.read", "5ms"}};
  const std::vector<std::string> tools = tool_paths(root);
  for (std::size_t i = 3; i < tools.size(); ++i) out.push_back({tools[i], "100ms"});
  return out;
}

key_path path_of(std::string_view text) { return *parse_key_path(text); }

std::optional<duration> duration_at(const doc_node& root, const std::string& path) {
  const doc_node* n = find_node(root, path_of(path));
  if (n == nullptr || n->type != doc_node::kind::string) return std::nullopt;
  const auto d = sim::parse_duration(n->text);
  if (!d.ok()) return std::nullopt;
  return d.value();
}

std::size_t array_size(const doc_node& root, std::string_view path) {
  const doc_node* n = find_node(root, path_of(path));
  return n != nullptr && n->is_array() ? n->items.size() : 0;
}

class shrinker {
 public:
  shrinker(const doc_node& failing, const std::string& invariant, const std::string& path,
           const shrink_options& options)
      : invariant_(invariant), path_(path), options_(options) {
    out_.doc = failing;
    digest_ = probe_document(failing, path_).trace_digest;
  }

  shrink_outcome run() {
    for (int pass = 0; pass < passes_max; ++pass) {
      const std::size_t before = out_.steps.size();
      remove_items();
      zero_rates();
      remove_jobs();
      simpler_workload();
      smaller_batches();
      fewer_job_types();
      fewer_tenants();
      fewer_workers();
      earlier_times();
      fixed_latencies();
      certain_rules();
      if (skipped_ != shrink_stop::finished) return cut(skipped_);
      if (out_.steps.size() == before) return std::move(out_);
    }
    return cut(shrink_stop::passes);
  }

  static constexpr int passes_max = 20;

 private:
  shrink_outcome cut(shrink_stop why) {
    out_.cut_short = true;
    out_.stop = why;
    return std::move(out_);
  }

  std::optional<shrink_stop> stopped() const {
    if (out_.runs >= options_.max_runs) return shrink_stop::candidates;
    if (options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline) return shrink_stop::deadline;
    return std::nullopt;
  }

  // Tries one candidate; keeps it (and names the step) when it still fails.
  // A change that adds a setting must also change the run: a fixed latency
  // for a tool no job calls would only make the file longer.
  // Once the budget or the deadline stops it, every candidate after is
  // refused, and the pass ends with the shrink cut short (a candidate not
  // tried is why the result may not be the smallest).
  bool attempt(const std::function<bool(doc_node&)>& change, const std::string& step, bool must_change_run = false) {
    doc_node candidate = out_.doc;
    if (!change(candidate)) return false;
    if (const std::optional<shrink_stop> stop = stopped()) {
      if (skipped_ == shrink_stop::finished) skipped_ = *stop;
      return false;
    }
    ++out_.runs;
    const probe_result r = probe_document(candidate, path_);
    if (!r.loaded || !r.violates(invariant_)) return false;
    if (must_change_run && r.trace_digest == digest_) return false;
    digest_ = r.trace_digest;
    out_.doc = std::move(candidate);
    out_.steps.push_back(step);
    return true;
  }

  bool remove_element(const std::string& array, std::size_t i, const std::string& what) {
    const std::string element = array + "[" + std::to_string(i) + "]";
    return attempt([&](doc_node& d) { return remove_node(d, path_of(element)); },
                   "removed " + element + (what.empty() ? "" : " (" + what + ")"));
  }

  // Fault rules, broker faults, crashes, deploys and windows, last first
  // (removing one leaves the indices of those before it as they were).
  void remove_items() {
    std::vector<std::string> arrays{"fault", "queue_fault", "crash", "deploy", "vendor.outage", "vendor.latency_spike"};
    for (const std::string& tool : tool_paths(out_.doc)) {
      arrays.push_back(tool + ".outage");
      arrays.push_back(tool + ".latency_spike");
    }
    for (const std::string& array : arrays) {
      for (std::size_t i = array_size(out_.doc, array); i-- > 0;) {
        const doc_node* item = find_node(out_.doc, path_of(array + "[" + std::to_string(i) + "]"));
        const std::string what =
            item != nullptr && array.find('.') == std::string::npos ? fault_kind_of(array, *item) : "";
        remove_element(array, i, what);
      }
    }
  }

  void zero_rates() {
    std::vector<std::string> rates;
    for (const std::string_view r : {"unavailable", "rate_limited", "internal_error", "lost_request", "lost_response"})
      rates.push_back("vendor.error_rates." + std::string(r));
    // Every tool's unavailable first, as before there were other rates to try.
    const std::vector<std::string> tools = tool_paths(out_.doc);
    for (const std::string& tool : tools) rates.push_back(tool + ".error_rates.unavailable");
    for (const std::string& tool : tools)
      for (const std::string_view r : {"rate_limited", "internal_error", "lost_request", "lost_response"})
        rates.push_back(tool + ".error_rates." + std::string(r));
    for (const std::string& rate : rates) {
      const doc_node* n = find_node(out_.doc, path_of(rate));
      if (n == nullptr) continue;
      const std::string was = write_inline(*n);
      if (was == "0" || was == "0.0" || was == "\"0\"") continue;
      attempt([&](doc_node& d) { return remove_node(d, path_of(rate)); }, rate + ": " + was + " -> 0");
    }
  }

  void remove_jobs() {
    for (std::size_t i = array_size(out_.doc, "job"); i-- > 0;) {
      const doc_node* id = find_node(out_.doc, path_of("job[" + std::to_string(i) + "].id"));
      remove_element("job", i, id != nullptr ? id->text : "");
    }
  }

  // Batches with fewer items.
  void smaller_batches() {
    for (const std::string_view array : {"job_type", "job"}) {
      for (std::size_t i = 0; i < array_size(out_.doc, array); ++i) {
        const std::string steps = std::string(array) + "[" + std::to_string(i) + "].steps";
        for (std::size_t j = 0; j < array_size(out_.doc, steps); ++j) {
          const std::string items = steps + "[" + std::to_string(j) + "].items";
          if (find_node(out_.doc, path_of(items)) != nullptr) smaller(items, 1);
        }
      }
    }
  }

  const doc_node* node_at(const std::string& path) const { return find_node(out_.doc, path_of(path)); }

  std::int64_t workload_count() const {
    const doc_node* n = node_at("workload.count");
    return n != nullptr && n->type == doc_node::kind::integer ? n->integer : 0;
  }

  // The generated jobs (docs/scenario-format.md, [workload]): none when
  // [[job]] tables still make one, else fewer; arriving over a shorter
  // window (from zero, closer together); with fewer random draws (even
  // arrivals, a fixed amount, no email coin). The mix and the tenants
  // shrink in fewer_job_types() and fewer_tenants().
  void simpler_workload() {
    const doc_node* workload = node_at("workload");
    if (workload == nullptr || !workload->is_table()) return;
    if (array_size(out_.doc, "job") > 0 &&
        attempt([](doc_node& d) { return remove_node(d, path_of("workload")); },
                "removed [workload] (" + std::to_string(workload_count()) + " generated jobs)"))
      return;
    smaller("workload.count", 1);
    earlier("workload.start");
    if (workload_count() > 1) {
      if (node_at("workload.rate") != nullptr)
        higher_rate();
      else
        shorter_interval();
    }
    if (const doc_node* a = node_at("workload.arrival");
        a != nullptr && a->type == doc_node::kind::string && a->text == "poisson")
      attempt([](doc_node& d) { return set_node(d, path_of("workload.arrival"), make_string("even")); },
              "workload.arrival: poisson -> even");
    if (const doc_node* amount = node_at("workload.amount_cents");
        amount != nullptr && amount->is_array() && !amount->items.empty()) {
      const doc_node lo = amount->items.front();
      attempt([&](doc_node& d) { return set_node(d, path_of("workload.amount_cents"), lo); },
              "workload.amount_cents: " + write_inline(*amount) + " -> " + write_inline(lo));
    }
    if (const doc_node* p = node_at("workload.email_probability"); p != nullptr) {
      const std::string was = write_inline(*p);
      if (was != "0" && was != "0.0")
        attempt([](doc_node& d) { return remove_node(d, path_of("workload.email_probability")); },
                "workload.email_probability: " + was + " -> 0");
    }
  }

  // The gap between arrivals halved (whole milliseconds, down to 1ms) while
  // the failure stays: the same jobs over a shorter window.
  void shorter_interval() {
    const std::string path = "workload.interval";
    duration t = duration_at(out_.doc, path).value_or(duration::from_s(1));  // the default
    for (int i = 0; i < 30; ++i) {
      const duration half = duration::from_ms(t.us() / 2'000);
      if (half < duration::from_ms(1) || half >= t) return;
      const std::string now = sim::format_duration(half);
      if (!attempt([&](doc_node& d) { return set_node(d, path_of(path), make_string(now)); },
                   path + ": " + sim::format_duration(t) + " -> " + now))
        return;
      t = half;
    }
  }

  // Arrivals per second doubled (up to the 1000000 the loader takes): the
  // same jobs over half the window.
  void higher_rate() {
    for (int i = 0; i < 30; ++i) {
      const doc_node* n = node_at("workload.rate");
      if (n == nullptr || n->type != doc_node::kind::integer) return;
      const std::int64_t was = n->integer;
      const std::int64_t now = std::min<std::int64_t>(was * 2, 1'000'000);
      if (now <= was || !attempt([&](doc_node& d) { return set_node(d, path_of("workload.rate"), make_integer(now)); },
                                 "workload.rate: " + std::to_string(was) + " -> " + std::to_string(now)))
        return;
    }
  }

  // The workload.types entries (indices) naming `type`.
  std::vector<std::size_t> mix_entries(const std::string& type) const {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < array_size(out_.doc, "workload.types"); ++k) {
      const doc_node* t = node_at("workload.types[" + std::to_string(k) + "].type");
      if (t != nullptr && t->type == doc_node::kind::string && t->text == type) out.push_back(k);
    }
    return out;
  }

  bool named_by_a_job(const std::string& type) const {
    for (std::size_t k = 0; k < array_size(out_.doc, "job"); ++k) {
      const doc_node* t = node_at("job[" + std::to_string(k) + "].type");
      if (t != nullptr && t->type == doc_node::kind::string && t->text == type) return true;
    }
    return false;
  }

  // Job types, last first: one nothing names is dropped; one the workload
  // draws among others is dropped with its workload.types entries; one a
  // [[job]] names, or the workload's only type, stays (removing it would
  // not load: no candidate is spent on it). Then the agent's share of the
  // mix, and a lone entry's weight, which draws nothing.
  void fewer_job_types() {
    for (std::size_t i = array_size(out_.doc, "job_type"); i-- > 0;) {
      const std::string element = "job_type[" + std::to_string(i) + "]";
      const doc_node* name_node = node_at(element + ".name");
      if (name_node == nullptr || name_node->type != doc_node::kind::string) continue;
      const std::string name = name_node->text;
      if (named_by_a_job(name)) continue;
      const std::vector<std::size_t> entries = mix_entries(name);
      if (!entries.empty() && entries.size() == array_size(out_.doc, "workload.types")) continue;
      attempt(
          [&](doc_node& d) {
            for (std::size_t k = entries.size(); k-- > 0;)
              if (!remove_node(d, path_of("workload.types[" + std::to_string(entries[k]) + "]"))) return false;
            return remove_node(d, path_of(element));
          },
          "removed " + element + " (" + name + ")" +
              (entries.empty()       ? ""
               : entries.size() == 1 ? " and its workload.types entry"
                                     : " and its workload.types entries"));
    }
    const std::vector<std::size_t> agent = mix_entries("agent");
    if (!agent.empty() && agent.size() < array_size(out_.doc, "workload.types")) {
      attempt(
          [&](doc_node& d) {
            for (std::size_t k = agent.size(); k-- > 0;)
              if (!remove_node(d, path_of("workload.types[" + std::to_string(agent[k]) + "]"))) return false;
            // What only agent jobs draw is an error without them.
            remove_node(d, path_of("workload.amount_cents"));
            remove_node(d, path_of("workload.email_probability"));
            return true;
          },
          "removed the agent job from workload.types");
    }
    if (const doc_node* weight = node_at("workload.types[0].weight");
        weight != nullptr && array_size(out_.doc, "workload.types") == 1) {
      const std::string was = write_inline(*weight);
      if (was != "1")
        attempt([](doc_node& d) { return remove_node(d, path_of("workload.types[0].weight")); },
                "workload.types[0].weight: " + was + " -> 1 (the only type)");
    }
  }

  // Tenants, the last named first: every `tenant = T` of the job types and
  // jobs removed (and T's [tenants] weight), so its jobs take no part in the
  // tenant figures. A tenant the violation needs stays.
  void fewer_tenants() {
    std::vector<std::string> tenants;  // in order of first appearance
    std::vector<std::string> holders;  // "job_type[1]", "job[0]": where a tenant is named
    for (const std::string_view array : {"job_type", "job"})
      for (std::size_t i = 0; i < array_size(out_.doc, array); ++i) {
        const std::string element = std::string(array) + "[" + std::to_string(i) + "]";
        const doc_node* t = node_at(element + ".tenant");
        if (t == nullptr || t->type != doc_node::kind::string) continue;
        holders.push_back(element);
        if (std::find(tenants.begin(), tenants.end(), t->text) == tenants.end()) tenants.push_back(t->text);
      }
    for (std::size_t i = tenants.size(); i-- > 0;) {
      const std::string tenant = tenants[i];
      std::string where;
      for (const std::string& h : holders) {
        const doc_node* t = node_at(h + ".tenant");
        if (t != nullptr && t->text == tenant) where += (where.empty() ? "" : ", ") + h;
      }
      attempt(
          [&](doc_node& d) {
            for (const std::string& h : holders) {
              const doc_node* t = find_node(d, path_of(h + ".tenant"));
              if (t != nullptr && t->text == tenant) remove_node(d, path_of(h + ".tenant"));
            }
            if (doc_node* weights = find_node(d, path_of("tenants.weights")); weights != nullptr && weights->is_table())
              std::erase_if(weights->entries, [&](const doc_entry& e) { return e.key == tenant; });
            return true;
          },
          "removed tenant " + tenant + " (" + where + ")");
    }
  }

  // A count made smaller: 1, else half, else a quarter, an eighth ... fewer,
  // down to one fewer (each round keeps the first that still fails: the
  // biggest cut), for a few rounds a pass. A failure that needs most of a
  // workload loses the rest in a handful of steps, not one job a step.
  void smaller(const std::string& path, std::int64_t default_value) {
    for (int round = 0; round < 4; ++round) {
      const doc_node* count = find_node(out_.doc, path_of(path));
      const std::int64_t n =
          count != nullptr && count->type == doc_node::kind::integer ? count->integer : default_value;
      std::vector<std::int64_t> targets{1};
      for (std::int64_t cut = n / 2; cut >= 1; cut /= 2)
        if (n - cut > targets.back()) targets.push_back(n - cut);
      bool kept = false;
      for (const std::int64_t target : targets) {
        if (target < 1 || target >= n) continue;
        kept = attempt([&](doc_node& d) { return set_node(d, path_of(path), make_integer(target)); },
                       path + ": " + std::to_string(n) + " -> " + std::to_string(target));
        if (kept) break;
      }
      if (!kept) return;
    }
  }

  void fewer_workers() {
    smaller("workers.count", 2);
    // Only when the file sizes the pool: fewer connections then need fewer workers to run out.
    if (find_node(out_.doc, path_of("store.pool_size")) != nullptr) smaller("store.pool_size", 10);
  }

  // A time earlier: zero, else the whole second below, else halves (in
  // whole milliseconds) while the failure stays.
  void earlier(const std::string& path) {
    std::optional<duration> t = duration_at(out_.doc, path);
    if (!t || *t == duration::zero()) return;
    auto to = [&](duration target) {
      const std::string was = sim::format_duration(*t);
      const std::string now = sim::format_duration(target);
      return attempt([&](doc_node& d) { return set_node(d, path_of(path), make_string(now)); },
                     path + ": " + was + " -> " + now);
    };
    if (to(duration::zero())) return;
    const duration whole_s = duration::from_s(t->us() / 1'000'000);
    if (whole_s != *t && whole_s > duration::zero() && to(whole_s)) t = whole_s;
    for (int i = 0; i < 30; ++i) {
      const duration half = duration::from_ms(t->us() / 2'000);
      if (half <= duration::zero() || half >= *t || !to(half)) return;
      t = half;
    }
  }

  void earlier_times() {
    for (const std::string_view array : {"crash", "deploy"})
      for (std::size_t i = 0; i < array_size(out_.doc, array); ++i)
        earlier(std::string(array) + "[" + std::to_string(i) + "].at");
    for (std::size_t i = 0; i < array_size(out_.doc, "job"); ++i) earlier("job[" + std::to_string(i) + "].enqueue_at");
  }

  void fixed_latencies() {
    for (const far_side& side : far_sides(out_.doc)) {
      const std::string path = side.path + ".latency";
      const doc_node* n = find_node(out_.doc, path_of(path));
      std::string fixed = side.median;
      std::string was = "the default lognormal";
      if (n != nullptr && n->is_table()) {
        if (n->find("fixed") != nullptr) continue;
        was = write_inline(*n);
        if (const doc_node* p50 = n->find("p50"); p50 != nullptr && p50->type == doc_node::kind::string)
          fixed = p50->text;
        if (const doc_node* u = n->find("uniform"); u != nullptr && u->is_array() && !u->items.empty())
          fixed = u->items.front().text;
      }
      attempt(
          [&](doc_node& d) {
            doc_node latency = make_table(true);
            latency.entries.push_back({"fixed", {}, make_string(fixed)});
            return set_node(d, path_of(path), std::move(latency));
          },
          path + ": " + was + " -> { fixed = \"" + fixed + "\" }", true);
    }
  }

  // A rule that fires by chance, made certain: one random draw fewer to explain.
  void certain_rules() {
    for (const std::string_view array : {"fault"}) {
      for (std::size_t i = 0; i < array_size(out_.doc, array); ++i) {
        const std::string path = std::string(array) + "[" + std::to_string(i) + "].probability";
        const doc_node* n = find_node(out_.doc, path_of(path));
        if (n == nullptr) continue;
        const std::string was = write_inline(*n);
        attempt([&](doc_node& d) { return remove_node(d, path_of(path)); }, path + ": " + was + " -> 1");
      }
    }
  }

  std::string invariant_;
  std::string path_;
  shrink_options options_;
  shrink_outcome out_;
  std::uint64_t digest_ = 0;                     // of out_.doc's run
  shrink_stop skipped_ = shrink_stop::finished;  // why a candidate was refused untried, once one was
};

}  // namespace

std::string stop_reason(shrink_stop stop, std::size_t max_runs) {
  switch (stop) {
    case shrink_stop::finished:
      return "";
    case shrink_stop::candidates:
      return "its budget of " + sim::counted(max_runs, "candidate");
    case shrink_stop::deadline:
      return "the time limit";
    case shrink_stop::passes:
      return std::to_string(shrinker::passes_max) + " passes";
  }
  return "";
}

std::string_view stop_name(shrink_stop stop) {
  switch (stop) {
    case shrink_stop::finished:
      return "";
    case shrink_stop::candidates:
      return "candidates";
    case shrink_stop::deadline:
      return "time_limit";
    case shrink_stop::passes:
      return "passes";
  }
  return "";
}

shrink_outcome shrink(const doc_node& failing, const std::string& invariant, const std::string& path_for_messages,
                      const shrink_options& options) {
  return shrinker(failing, invariant, path_for_messages, options).run();
}

}  // namespace twice::explore
