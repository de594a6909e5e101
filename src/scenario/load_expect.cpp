// [expect]: the invariants that must be violated or are ignored (with a
// reason), those documented to hold, and optional figures. Names are checked
// here; evaluating them is the checkers' job (report/expectations.cpp).

#include <algorithm>
#include <limits>

#include <twice/checks/invariants.hpp>
#include <twice/checks/situations.hpp>

#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

// Where an invariant was first named under [expect], so a second list
// naming it can point back at the first.
struct listing {
  std::string name;
  std::string_view list;  // "hold", "violated", "ignore"
};

// Checks one invariant name read at `path`; records it in `seen` and yields
// true when it may be added to `list`.
bool check_name(const table_reader& r, const doc_node& n, const std::string& path, const std::string& name,
                std::string_view list, std::vector<listing>& seen) {
  // The built-in invariants and any a program registered (checks/invariant.hpp).
  const std::vector<std::string_view> known = invariant_names();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::string hint = did_you_mean(name, known);
    if (hint.empty()) hint = "; expected one of " + join(known);
    r.diag().error(n.pos, path, "unknown invariant " + quote(name) + hint);
    return false;
  }
  const auto earlier = std::find_if(seen.begin(), seen.end(), [&](const listing& l) { return l.name == name; });
  if (earlier != seen.end()) {
    if (earlier->list == list) {
      r.diag().error(n.pos, path, "invariant " + quote(name) + " is listed twice");
    } else {
      r.diag().error(n.pos, path,
                     "invariant " + quote(name) + " is also in expect." + std::string(earlier->list) +
                         "; an invariant is in at most one of hold, violated and ignore");
    }
    return false;
  }
  seen.push_back({name, list});
  return true;
}

void load_names(const table_reader& r, std::string_view key, std::vector<std::string>& out,
                std::vector<listing>& seen) {
  const std::vector<doc_node>* items = r.array(key, "an array of invariant names like [\"no_double_payment\"]");
  if (items == nullptr) return;
  const std::string path = r.path_of(key);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const doc_node& n = (*items)[i];
    const std::optional<std::string> name = read_string(r.diag(), n, index_path(path, i));
    if (name && check_name(r, n, index_path(path, i), *name, key, seen)) out.push_back(*name);
  }
}

// ignore = [{ invariant = "every_job_ends", reason = "..." }]
void load_ignored(const table_reader& r, std::vector<ignored_invariant>& out, std::vector<listing>& seen) {
  for (reasoned_name& n : read_reasoned_names(r, "ignore", "invariant", "the name of the invariant to ignore"))
    if (check_name(r, *n.name_node, n.name_path, n.name, "ignore", seen))
      out.push_back({std::move(n.name), std::move(n.reason)});
}

// reach = ["crash_after_write_before_ack", ...]: situations (checks/situations.hpp).
void load_reach(const table_reader& r, std::vector<std::string>& out) {
  const std::vector<doc_node>* items =
      r.array("reach", "an array of situation names like [\"crash_after_write_before_ack\"]");
  if (items == nullptr) return;
  const std::string path = r.path_of("reach");
  std::vector<std::string_view> known;
  for (const situation_info& s : situations()) known.push_back(s.name);
  for (std::size_t i = 0; i < items->size(); ++i) {
    const doc_node& n = (*items)[i];
    const std::optional<std::string> name = read_string(r.diag(), n, index_path(path, i));
    if (!name) continue;
    if (!situation_index(*name)) {
      std::string hint = did_you_mean(*name, known);
      if (hint.empty()) hint = "; expected one of " + join(known);
      r.diag().error(n.pos, index_path(path, i), "unknown situation " + quote(*name) + hint);
    } else if (std::find(out.begin(), out.end(), *name) != out.end()) {
      r.diag().error(n.pos, index_path(path, i), "situation " + quote(*name) + " is listed twice");
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
  const table_reader r(s.d, *t, "expect",
                       {"hold", "violated", "ignore", "ledger_rows", "vendor_refunds", "dead_letters", "attempts",
                        "all_jobs_end", "reach"});
  std::vector<listing> seen;
  load_names(r, "hold", s.expect.hold, seen);
  load_names(r, "violated", s.expect.violated, seen);
  load_ignored(r, s.expect.ignore, seen);
  load_figure(r, "ledger_rows", s.expect.ledger_rows);
  load_figure(r, "vendor_refunds", s.expect.vendor_refunds);
  load_figure(r, "dead_letters", s.expect.dead_letters);
  load_figure(r, "attempts", s.expect.attempts);
  bool all_end = false;
  if (r.boolean("all_jobs_end", all_end)) s.expect.all_jobs_end = all_end;
  load_reach(r, s.expect.reach);
}

}  // namespace twice::scenario_detail
