#include "explore/variation.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "scenario/key_path.hpp"
#include <twice/sim/check.hpp>
#include <twice/sim/distributions.hpp>
#include "sim/duration_text.hpp"
#include <twice/sim/random.hpp>

namespace twice::explore {
namespace {

using namespace scenario_detail;

constexpr std::string_view tool_names[] = {"email", "model", "read"};
constexpr std::string_view vendor_rates[] = {"unavailable", "rate_limited", "internal_error", "lost_request",
                                             "lost_response"};

std::string text_of(const doc_node* n, std::string_view fallback) {
  return n != nullptr && n->type == doc_node::kind::string ? n->text : std::string(fallback);
}

constexpr std::string_view item_arrays[] = {"fault", "crash", "deploy", "queue_fault"};

// A rate the file sets to something other than zero.
bool nonzero(const doc_node& n) {
  switch (n.type) {
    case doc_node::kind::integer:
      return n.integer != 0;
    case doc_node::kind::floating:
      return n.floating != 0.0;
    case doc_node::kind::string:
      return n.text.find_first_not_of("0.") != std::string::npos;
    default:
      return true;  // a wrong type: the loader has said so
  }
}

// The windows and rates of the far sides: each a fault kind named by its key
// path. The built-ins' are parsed once (every run of an exploration asks);
// a file's own tools ([tools.NAME]) add theirs.
struct far_side {
  std::string path;
  key_path key;
  bool window;  // a list of time windows (outage, latency_spike), not a rate
};

void add_far_side(std::vector<far_side>& out, std::string base) {
  std::vector<std::string> paths{base + ".outage", base + ".latency_spike"};
  for (const std::string_view rate : vendor_rates) paths.push_back(base + ".error_rates." + std::string(rate));
  for (std::string& path : paths) {
    const std::optional<key_path> key = parse_key_path(path);
    TWICE_CHECK(key.has_value());
    const bool window = path.ends_with(".outage") || path.ends_with(".latency_spike");
    out.push_back(far_side{std::move(path), *key, window});
  }
}

const std::vector<far_side>& builtin_far_sides() {
  static const std::vector<far_side> sides = [] {
    std::vector<far_side> out;
    add_far_side(out, "vendor");
    for (const std::string_view tool : tool_names) add_far_side(out, "tools." + std::string(tool));
    return out;
  }();
  return sides;
}

std::vector<far_side> far_sides(const doc_node& root) {
  std::vector<far_side> out = builtin_far_sides();
  const doc_node* tools = root.find("tools");
  if (tools == nullptr || !tools->is_table()) return out;
  for (const doc_entry& e : tools->entries) {
    if (std::find(std::begin(tool_names), std::end(tool_names), e.key) != std::end(tool_names)) continue;
    // A name that is no key path (the loader refuses it) has no far side to vary.
    if (e.value.is_table() && parse_key_path("tools." + e.key)) add_far_side(out, "tools." + e.key);
  }
  return out;
}

std::string decimal_ppm(std::int64_t ppm) {
  std::string out = std::to_string(ppm / 1'000'000);
  std::int64_t rest = ppm % 1'000'000;
  if (rest == 0) return out;
  std::string digits = std::to_string(rest);
  digits.insert(0, 6 - digits.size(), '0');
  while (digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace

std::string fault_kind_of(std::string_view array, const doc_node& item) {
  if (array == "fault")
    return "fault:" + text_of(item.find("point"), "?") + ":" + text_of(item.find("action"), "crash");
  if (array == "deploy") return "deploy:" + text_of(item.find("strategy"), "drain");
  if (array == "queue_fault") return "queue_fault:" + text_of(item.find("kind"), "?");
  return std::string(array);
}

std::vector<std::string> fault_kinds(const doc_node& root) {
  std::vector<std::string> out;
  for (const std::string_view array : item_arrays) {
    const doc_node* n = root.find(array);
    if (n == nullptr || !n->is_array()) continue;
    for (const doc_node& item : n->items)
      if (item.is_table()) out.push_back(fault_kind_of(array, item));
  }
  for (const far_side& side : far_sides(root)) {
    const doc_node* n = find_node(root, side.key);
    if (n == nullptr) continue;
    if (side.window ? (n->is_array() && !n->items.empty()) : nonzero(*n)) out.push_back(side.path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void remove_fault_kind(doc_node& root, std::string_view kind) {
  for (const std::string_view array : item_arrays) {
    for (auto it = root.entries.begin(); it != root.entries.end(); ++it) {
      if (it->key != array || !it->value.is_array()) continue;
      std::vector<doc_node>& items = it->value.items;
      std::erase_if(items, [&](const doc_node& item) { return item.is_table() && fault_kind_of(array, item) == kind; });
      if (items.empty()) root.entries.erase(it);
      break;
    }
  }
  for (const far_side& side : far_sides(root))
    if (side.path == kind) remove_node(root, side.key);
}

std::string value_text(explore_value kind, std::int64_t v) {
  switch (kind) {
    case explore_value::time:
    case explore_value::duration:
      return sim::format_duration(sim::duration::from_us(v));
    case explore_value::probability:
      return decimal_ppm(v);
    case explore_value::integer:
      return std::to_string(v);
  }
  return {};
}

doc_node value_node(explore_value kind, std::int64_t v) {
  if (kind == explore_value::integer) return make_integer(v);
  // Probabilities as decimal strings: exact, as the format allows.
  return make_string(value_text(kind, v));
}

bool apply_node(doc_node& root, const std::string& path, doc_node value) {
  const std::optional<key_path> p = parse_key_path(path);
  if (!p) return false;
  if (path.ends_with("latency.fixed")) {
    doc_node latency = make_table(true);
    latency.entries.push_back({"fixed", {}, std::move(value)});
    key_path table = *p;
    table.segments.pop_back();
    return set_node(root, table, std::move(latency));
  }
  return set_node(root, *p, std::move(value));
}

bool apply_value(doc_node& root, const std::string& path, explore_value kind, std::int64_t v) {
  return apply_node(root, path, value_node(kind, v));
}

void set_seed(doc_node& root, std::uint64_t seed) {
  const key_path p{{{"seed", std::nullopt}}};
  if (seed <= static_cast<std::uint64_t>(INT64_MAX))
    set_node(root, p, make_integer(static_cast<std::int64_t>(seed)));
  else
    set_node(root, p, make_string(std::to_string(seed)));
}

namespace {

// The fault kinds of `base` once `values` are written (a range may make an
// error rate non-zero, and so a kind).
std::vector<std::string> kinds_with(const doc_node& base, const explore_spec& spec,
                                    const std::vector<std::int64_t>& values) {
  doc_node doc = base;
  for (std::size_t i = 0; i < spec.vary.size(); ++i) apply_value(doc, spec.vary[i].path, spec.vary[i].kind, values[i]);
  return fault_kinds(doc);
}

}  // namespace

run_genes draw_genes(const doc_node& base, const explore_spec& spec, std::uint64_t root_seed, std::size_t index) {
  // The order of draws is the file's contract (variation.hpp): the seed, the
  // ranges in key order, one coin per fault kind in name order.
  sim::random_stream rng = sim::random_root(root_seed).stream("explore.run." + std::to_string(index));
  run_genes g;
  // 63 bits: the repro file then writes its seed as a plain TOML integer.
  g.world_seed = rng.next_u64() >> 1;
  for (const explore_range& r : spec.vary) g.values.push_back(sim::uniform_int(rng, r.lo, r.hi));
  // After the ranges: a range may name a fault that swarm then leaves out.
  for (std::string& kind : kinds_with(base, spec, g.values)) {
    const bool keep = !spec.swarm || sim::bernoulli(rng, 1, 2);
    g.kinds.emplace_back(std::move(kind), keep);
  }
  return g;
}

run_genes mutate_genes(const doc_node& base, const explore_spec& spec, const run_genes& parent,
                       sim::random_stream& rng) {
  run_genes g;
  g.world_seed = rng.next_u64() >> 1;
  for (std::size_t i = 0; i < spec.vary.size(); ++i)
    g.values.push_back(sim::bernoulli(rng, 1, 4) ? sim::uniform_int(rng, spec.vary[i].lo, spec.vary[i].hi)
                                                 : parent.values[i]);
  for (std::string& kind : kinds_with(base, spec, g.values)) {
    const auto inherited =
        std::find_if(parent.kinds.begin(), parent.kinds.end(), [&](const auto& k) { return k.first == kind; });
    bool keep = inherited != parent.kinds.end() ? inherited->second : true;
    if (spec.swarm && sim::bernoulli(rng, 1, 4)) keep = !keep;
    g.kinds.emplace_back(std::move(kind), keep);
  }
  return g;
}

run_plan plan_from_genes(const doc_node& base, const explore_spec& spec, const run_genes& genes, std::size_t index) {
  run_plan plan;
  plan.index = index;
  plan.doc = base;
  plan.world_seed = genes.world_seed;
  set_seed(plan.doc, plan.world_seed);
  for (std::size_t i = 0; i < spec.vary.size(); ++i) {
    const explore_range& r = spec.vary[i];
    apply_value(plan.doc, r.path, r.kind, genes.values[i]);
    plan.drawn.emplace_back(r.path, value_text(r.kind, genes.values[i]));
  }
  for (const std::string& kind : fault_kinds(plan.doc)) {
    const auto gene =
        std::find_if(genes.kinds.begin(), genes.kinds.end(), [&](const auto& k) { return k.first == kind; });
    const bool keep = gene == genes.kinds.end() || gene->second;
    (keep ? plan.kinds_kept : plan.kinds_dropped).push_back(kind);
  }
  for (const std::string& kind : plan.kinds_dropped) remove_fault_kind(plan.doc, kind);
  return plan;
}

run_plan plan_run(const doc_node& base, const explore_spec& spec, std::uint64_t root_seed, std::size_t index) {
  return plan_from_genes(base, spec, draw_genes(base, spec, root_seed, index), index);
}

}  // namespace twice::explore
