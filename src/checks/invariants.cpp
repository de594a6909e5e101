#include <twice/checks/invariants.hpp>

#include <algorithm>

#include "checks/builtin_invariants.hpp"
#include "checks/check_text.hpp"
#include <twice/checks/invariant.hpp>

namespace twice {

std::vector<std::string_view> invariant_names() {
  std::vector<std::string_view> names;
  for (const builtin_invariant& b : builtin_invariants()) names.push_back(b.name);
  const std::vector<std::string_view> registered = registry::registered_invariant_names();
  names.insert(names.end(), registered.begin(), registered.end());
  return names;
}

std::string_view verdict_word(const verdict& v) { return !v.held ? "VIOLATED" : v.judged ? "held" : "UNJUDGED"; }

bool is_invariant_name(std::string_view name) {
  const auto& names = invariant_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string describe(const sim::trace_record& r) {
  std::string line;
  sim::append_canonical(r, line);
  return check_text::clock(r.time) + " " + line.substr(line.find(' ') + 1);
}

}  // namespace twice
