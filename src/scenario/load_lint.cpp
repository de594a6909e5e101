// [lint]: the `twice lint` warnings a scenario keeps on purpose, each with
// its reason. `twice run` ignores the table.

#include <algorithm>

#include <twice/lint/lint.hpp>
#include "scenario/sections.hpp"

namespace twice::scenario_detail {

void load_lint(const table_reader& root, load_state& s, std::vector<lint_allowance>& out) {
  const doc_node* t = root.table("lint");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "lint", {"allow"});
  for (reasoned_name& n :
       read_reasoned_names(r, "allow", "rule", "the id of a lint rule, like \"write_without_key\"")) {
    if (std::find(lint_rules.begin(), lint_rules.end(), n.name) == lint_rules.end()) {
      std::string hint = did_you_mean(n.name, lint_rules);
      if (hint.empty()) hint = "; expected one of " + join(lint_rules);
      s.d.error(n.name_node->pos, n.name_path, "unknown lint rule " + quote(n.name) + hint);
    } else if (std::any_of(out.begin(), out.end(), [&](const lint_allowance& a) { return a.rule == n.name; })) {
      s.d.error(n.name_node->pos, n.name_path, "lint rule " + quote(n.name) + " is allowed twice");
    } else {
      out.push_back({std::move(n.name), std::move(n.reason)});
    }
  }
}

}  // namespace twice::scenario_detail
