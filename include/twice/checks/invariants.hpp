#pragma once
// What the invariants give: verdicts, by stable names the CLI, the
// properties and the reports share (invariant_names()). The invariants
// themselves, the built-in ones and a program's own, are registered classes
// (checks/invariant.hpp) that observe the trace as it is recorded and the
// world's final state, and never change either.
//
// Each verdict explains itself: on a violation, the first records that show
// it (time, actor, job, attempt, key), not just "false".

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/trace.hpp>

namespace twice {

class world;
struct world_config;
struct world_result;

struct verdict {
  std::string name;
  bool held = true;                             // false: violated
  std::string detail;                           // one sentence: what was checked, or what went wrong
  std::vector<std::string> evidence;            // the first records that show a violation, readable lines
  std::optional<sim::instant> first_violation;  // when a safety invariant first broke
  // False when the run stopped at a budget before the invariant could be
  // decided (messages still held that retention may yet delete): `detail`
  // says what was pending. A verdict not judged never passes as held.
  bool judged = true;
};

// "held", "VIOLATED" or "UNJUDGED", as the outputs print a verdict.
std::string_view verdict_word(const verdict& v);

// The stable invariant names, in report order, as the registry
// (checks/invariant.hpp) holds them: the built-in ones, then those a
// program registered in name order.
std::vector<std::string_view> invariant_names();
bool is_invariant_name(std::string_view name);

struct check_options {
  // The database counts as stalled when a transaction waits longer than this
  // for a connection.
  sim::duration stall_bound = sim::duration::from_s(5);
  // Keep this many explaining records per violation.
  std::size_t evidence_max = 4;
};

// A record as one readable line: "12.000250s worker/0 tool_call job=... key=...".
std::string describe(const sim::trace_record& r);

}  // namespace twice
