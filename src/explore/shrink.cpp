#include <twice/explore/shrink.hpp>

#include <functional>

#include <twice/explore/variation.hpp>
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"
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
  std::vector<far_side> out = {{"vendor", "300ms"}, {"tools.email", "150ms"}, {"tools.model", "4s"}, {"tools.read", "5ms"}};
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
    for (int pass = 0; pass < 20 && !stopped(); ++pass) {
      const std::size_t before = out_.steps.size();
      remove_items();
      zero_rates();
      remove_jobs();
      smaller_batches();
      fewer_workers();
      earlier_times();
      fixed_latencies();
      certain_rules();
      if (out_.steps.size() == before) return std::move(out_);
    }
    out_.cut_short = true;
    return std::move(out_);
  }

 private:
  bool stopped() const {
    return out_.runs >= options_.max_runs ||
           (options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline);
  }

  // Tries one candidate; keeps it (and names the step) when it still fails.
  // A change that adds a setting must also change the run: a fixed latency
  // for a tool no job calls would only make the file longer.
  bool attempt(const std::function<bool(doc_node&)>& change, const std::string& step, bool must_change_run = false) {
    if (stopped()) return false;
    doc_node candidate = out_.doc;
    if (!change(candidate)) return false;
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
        const std::string what = item != nullptr && array.find('.') == std::string::npos ? fault_kind_of(array, *item) : "";
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
    const doc_node* count = find_node(out_.doc, path_of("workload.count"));
    if (count == nullptr || count->type != doc_node::kind::integer) return;
    std::int64_t n = count->integer;
    for (const std::int64_t target : {std::int64_t{1}, n / 2, n - 1}) {
      n = find_node(out_.doc, path_of("workload.count"))->integer;
      if (target < 1 || target >= n) continue;
      attempt([&](doc_node& d) { return set_node(d, path_of("workload.count"), make_integer(target)); },
              "workload.count: " + std::to_string(n) + " -> " + std::to_string(target));
    }
  }

  // Batches with fewer items; then the workload's mix entries and the job
  // types nothing needs any more (removing one still used fails to load,
  // so it is not kept).
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
    for (std::size_t i = array_size(out_.doc, "workload.types"); i-- > 0;) remove_element("workload.types", i, "");
    for (std::size_t i = array_size(out_.doc, "job_type"); i-- > 0;) {
      const doc_node* name = find_node(out_.doc, path_of("job_type[" + std::to_string(i) + "].name"));
      remove_element("job_type", i, name != nullptr ? name->text : "");
    }
  }

  // A count made smaller: 1, half, one fewer (each round keeps the first that still fails).
  void smaller(const std::string& path, std::int64_t default_value) {
    for (int round = 0; round < 3; ++round) {
      const doc_node* count = find_node(out_.doc, path_of(path));
      const std::int64_t n = count != nullptr && count->type == doc_node::kind::integer ? count->integer : default_value;
      bool kept = false;
      for (const std::int64_t target : {std::int64_t{1}, n / 2, n - 1}) {
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
        if (const doc_node* p50 = n->find("p50"); p50 != nullptr && p50->type == doc_node::kind::string) fixed = p50->text;
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
  std::uint64_t digest_ = 0;  // of out_.doc's run
};

}  // namespace

shrink_outcome shrink(const doc_node& failing, const std::string& invariant, const std::string& path_for_messages,
                      const shrink_options& options) {
  return shrinker(failing, invariant, path_for_messages, options).run();
}

}  // namespace twice::explore
