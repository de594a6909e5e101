// [sweep]: the default grid of `twice sweep` (scenario/sweep_spec.hpp).

#include <algorithm>
#include <utility>
#include <vector>

#include "scenario/key_path.hpp"
#include "scenario/sections.hpp"

namespace twice::scenario_detail {

namespace {

bool is_scalar(const doc_node& n) {
  return n.type == doc_node::kind::string || n.type == doc_node::kind::integer || n.type == doc_node::kind::floating ||
         n.type == doc_node::kind::boolean;
}

bool same_scalar(const doc_node& a, const doc_node& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case doc_node::kind::string:
      return a.text == b.text;
    case doc_node::kind::integer:
      return a.integer == b.integer;
    case doc_node::kind::floating:
      return a.floating == b.floating;
    case doc_node::kind::boolean:
      return a.boolean == b.boolean;
    default:
      return false;
  }
}

// A case: { name = "bucket", "retry.maximum_attempts" = 4, ... }: a name,
// then at least one key path with a scalar.
bool load_case(diagnostics& d, const doc_node& v, const std::string& at) {
  if (!v.is_table()) {
    d.error(v.pos, at,
            "expected a case like { name = \"bucket\", \"retry.maximum_attempts\" = 4 }, as the first "
            "value of this axis is");
    return false;
  }
  const doc_node* name = v.find("name");
  if (name == nullptr || name->type != doc_node::kind::string || name->text.empty()) {
    d.error(v.pos, at + ".name", "a case needs a name, a string");
    return false;
  }
  bool sets = false;
  for (const doc_entry& e : v.entries) {
    if (e.key == "name") continue;
    if (!parse_key_path(e.key) || e.key == "seed" || e.key.starts_with("sweep") || e.key.starts_with("explore")) {
      d.error(e.key_pos, at + "." + e.key, "expected a key path of the scenario like \"retry.jitter\"");
      return false;
    }
    if (!is_scalar(e.value)) {
      d.error(e.value.pos, at + "." + e.key, "expected a string, a number or a boolean, as the key takes it");
      return false;
    }
    sets = true;
  }
  if (!sets) d.error(v.pos, at, "the case " + name->text + " sets no key");
  return sets;
}

void load_axis(const table_reader& root, const doc_entry& e, sweep_spec& out) {
  const std::string where = "sweep.vary." + e.key;
  diagnostics& d = root.diag();
  const std::optional<key_path> path = parse_key_path(e.key);
  if (!path) {
    d.error(e.key_pos, where, "expected a key path like \"retry.jitter\" or \"crash[0].at\"");
    return;
  }
  if (e.key == "seed" || e.key.starts_with("sweep") || e.key.starts_with("explore")) {
    d.error(e.key_pos, where,
            "a sweep varies the world; the seeds are [sweep] seeds, and [sweep] and [explore] are "
            "not part of a run");
    return;
  }
  if (!e.value.is_array() || e.value.items.empty()) {
    d.error(e.value.pos, where, "expected an array of the values to run, like [\"none\", \"full\"] or [10, 50, 200]");
    return;
  }
  sweep_axis axis(path->to_string(), e.value.pos.line, e.value.pos.column);
  // An axis of cases: each value a table naming a case and setting keys of its own.
  const bool cases = e.value.items.front().is_table();
  for (std::size_t i = 0; i < e.value.items.size(); ++i) {
    const doc_node& v = e.value.items[i];
    const std::string at = where + "[" + std::to_string(i) + "]";
    if (cases ? !load_case(d, v, at) : !is_scalar(v)) {
      if (!cases) d.error(v.pos, at, "expected a string, a number or a boolean, as the key takes it");
      return;
    }
    const auto same = [&](const doc_node& seen) {
      return cases ? seen.find("name")->text == v.find("name")->text : same_scalar(seen, v);
    };
    if (std::any_of(axis.values.begin(), axis.values.end(), same)) {
      d.error(v.pos, at, cases ? "the case name is given twice" : "the value is given twice");
      return;
    }
    axis.values.push_back(v);
  }
  for (const sweep_axis& other : out.vary)
    if (other.path == axis.path) {
      d.error(e.key_pos, where, "the key is varied twice (as " + other.path + ")");
      return;
    }
  out.vary.push_back(std::move(axis));
}

}  // namespace

void load_sweep(const table_reader& root, load_state& s, sweep_spec& out) {
  const doc_node* t = root.table("sweep");
  if (t == nullptr) return;
  out.present = true;
  const table_reader r(s.d, *t, "sweep", {"seeds", "vary"});
  r.integer("seeds", out.seeds, {1, sweep_seeds_max});
  const doc_node* vary = r.table("vary");
  if (vary == nullptr) return;
  // The parser keeps a table's keys sorted; the grid takes them in the order the file writes them.
  std::vector<const doc_entry*> entries;
  for (const doc_entry& e : vary->entries) entries.push_back(&e);
  std::stable_sort(entries.begin(), entries.end(), [](const doc_entry* a, const doc_entry* b) {
    return std::pair(a->key_pos.line, a->key_pos.column) < std::pair(b->key_pos.line, b->key_pos.column);
  });
  for (const doc_entry* e : entries) load_axis(root, *e, out);
}

}  // namespace twice::scenario_detail

namespace twice {

sweep_axis::sweep_axis(std::string path_, std::uint32_t line_, std::uint32_t column_)
    : path(std::move(path_)), line(line_), column(column_) {}
sweep_axis::sweep_axis(const sweep_axis&) = default;
sweep_axis::sweep_axis(sweep_axis&&) noexcept = default;
sweep_axis& sweep_axis::operator=(const sweep_axis&) = default;
sweep_axis& sweep_axis::operator=(sweep_axis&&) noexcept = default;
sweep_axis::~sweep_axis() = default;

}  // namespace twice
