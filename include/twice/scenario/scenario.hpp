#pragma once
// Scenario files: one TOML file describes a whole world and its story (see
// docs/scenario-format.md for every key, its type, default and meaning).
//
//   load_result r = load_scenario_file("scenarios/double_refund.toml");
//   if (!r.ok()) { for (const scenario_error& e : r.errors) print(e.to_string()); return exit_code::bad_input; }
//   world w(r.value->world);
//
// Bad input is a value, never an exception or an abort: every problem the
// loader can find is reported (not just the first), each with the file, line
// and column, the key path ("retry.maximum_interval", "job[2].id") and what
// was expected. A scenario that loads is one the world accepts: the loader
// checks everything the models would otherwise assert on.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/scenario/explore_spec.hpp>
#include <twice/scenario/sweep_spec.hpp>
#include <twice/world/world.hpp>

namespace twice {

// An invariant a scenario leaves out of its verdict, and why (required:
// a CI gate that stops checking something says so in the file).
struct ignored_invariant {
  std::string name;
  std::string reason;
};

// [expect]: what a run of the scenario must show. Every invariant must hold
// unless it is listed under `violated` (it must break) or `ignore`; `hold`
// only documents intent. No invariant may be in two of the three lists.
struct expectations {
  std::vector<std::string> hold;          // invariant names the author means to hold (all unlisted ones must anyway)
  std::vector<std::string> violated;      // invariant names that must be violated (a scenario may demonstrate a bug)
  std::vector<ignored_invariant> ignore;  // invariants whose verdict does not count, with the reason
  // Optional figures; unset: not checked.
  std::optional<std::uint64_t> ledger_rows;     // rows in the local ledger
  std::optional<std::uint64_t> vendor_refunds;  // refunds in the payment vendor's own ledger
  std::optional<std::uint64_t> dead_letters;    // jobs that ended dead-lettered
  std::optional<std::uint64_t> attempts;        // attempts started, over every job
  std::optional<bool> all_jobs_end;             // every job ended (done, failed, dead letter) within the budgets
  // Situations (checks/situations.hpp) the run must reach; for explore, that
  // some counted run reached.
  std::vector<std::string> reach;

  bool expects_violated(std::string_view name) const {
    return std::find(violated.begin(), violated.end(), name) != violated.end();
  }
  bool ignores(std::string_view name) const {
    return std::any_of(ignore.begin(), ignore.end(), [&](const ignored_invariant& i) { return i.name == name; });
  }
};

// A `twice lint` warning the scenario keeps on purpose ([lint] allow), and
// why: a catalogue file that shows one fix alone keeps the other mistakes.
struct lint_allowance {
  std::string rule;
  std::string reason;
};

struct scenario {
  std::string path;   // as given to the loader
  std::string name;   // `name`, or the file name without its extension
  std::string story;  // the leading comment block, without the '#' markers
  world_config world;
  expectations expect;
  explore_spec explore;                    // [explore]: used by `twice explore` only
  sweep_spec sweep;                        // [sweep]: used by `twice sweep` only
  std::vector<lint_allowance> lint_allow;  // [lint] allow: used by `twice lint` only
};

struct scenario_error {
  std::string file;
  std::uint32_t line = 0;    // 1-based; 0 when the problem has no place in the text (an unreadable file)
  std::uint32_t column = 0;  // 1-based
  std::string key;           // "retry.maximum_interval", "job[2].id"; empty for syntax errors
  std::string message;

  // "file:line:col: key: message"; the key part is left out when there is
  // no key, and line and column when there is no place.
  std::string to_string() const;
};

struct load_result {
  std::optional<scenario> value;       // set exactly when errors is empty
  std::vector<scenario_error> errors;  // in the order of their place in the file
  bool ok() const { return value.has_value(); }
};

// Reads and loads a file. A file that cannot be read is one error.
load_result load_scenario_file(const std::string& path);

// Larger than any hand-written scenario by far; a bound so a wrong path
// (a log file, a device) fails fast instead of filling memory.
inline constexpr std::uintmax_t scenario_file_size_max = 16u << 20;
// What a scenario read from standard input is called in messages; its
// default name is then "stdin".
inline constexpr std::string_view scenario_stdin_name = "<stdin>";

// Loads text; `path_for_messages` names it in errors (and gives the default name).
load_result load_scenario_text(std::string_view text, std::string path_for_messages);

namespace scenario_detail {
struct doc_node;
}
// Loads an already parsed document (src/scenario/document.hpp, not part of the API), as
// load_scenario_text would load its text: `twice explore` varies a parsed
// file and loads each variant without writing and parsing it again. Errors
// point at the tree's own positions; the story is left empty.
load_result load_scenario_document(const scenario_detail::doc_node& root, std::string path_for_messages);

}  // namespace twice
