// [expect]: the invariants that must hold or be violated, and optional
// figures. Names are checked here; evaluating them is the checkers' job.

#include <algorithm>
#include <limits>

#include "scenario/invariant_names.hpp"
#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

// `other`: the list this one must not overlap (an invariant cannot be
// expected both to hold and to be violated).
void load_names(const table_reader& r, std::string_view key, std::vector<std::string>& out,
                const std::vector<std::string>* other = nullptr) {
  const std::vector<doc_node>* items = r.array(key, "an array of invariant names like [\"no_double_payment\"]");
  if (items == nullptr) return;
  const std::string path = r.path_of(key);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const doc_node& n = (*items)[i];
    const std::optional<std::string> name = read_string(r.diag(), n, index_path(path, i));
    if (!name) continue;
    if (!invariant_name::is_known(*name)) {
      std::string hint = did_you_mean(*name, invariant_name::all);
      if (hint.empty()) hint = "; expected one of " + join(invariant_name::all);
      r.diag().error(n.pos, index_path(path, i), "unknown invariant " + quote(*name) + hint);
    } else if (other != nullptr && std::find(other->begin(), other->end(), *name) != other->end()) {
      r.diag().error(n.pos, index_path(path, i),
                     "invariant " + quote(*name) + " is also in expect.hold; it cannot both hold and be violated");
    } else if (std::find(out.begin(), out.end(), *name) != out.end()) {
      r.diag().error(n.pos, index_path(path, i), "invariant " + quote(*name) + " is listed twice");
    } else {
      out.push_back(*name);
    }
  }
}

void load_figure(const table_reader& r, std::string_view key, std::optional<std::uint64_t>& out) {
  std::uint64_t v = 0;
  if (r.integer(key, v, {0, std::numeric_limits<std::int64_t>::max()})) out = v;
}

}  // namespace

void load_expect(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("expect");
  if (t == nullptr) return;
  const table_reader r(
      s.d, *t, "expect",
      {"hold", "violated", "ledger_rows", "vendor_refunds", "dead_letters", "attempts", "all_jobs_end"});
  load_names(r, "hold", s.expect.hold);
  load_names(r, "violated", s.expect.violated, &s.expect.hold);
  load_figure(r, "ledger_rows", s.expect.ledger_rows);
  load_figure(r, "vendor_refunds", s.expect.vendor_refunds);
  load_figure(r, "dead_letters", s.expect.dead_letters);
  load_figure(r, "attempts", s.expect.attempts);
  bool all_end = false;
  if (r.boolean("all_jobs_end", all_end)) s.expect.all_jobs_end = all_end;
}

}  // namespace twice::scenario_detail
