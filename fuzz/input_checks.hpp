#pragma once
// What every input must satisfy, whatever its bytes: the properties the
// libFuzzer targets check, shared with tests/unit/explore/test_fuzz_regressions.cpp, which
// replays the committed corpus and every input that once failed through the
// same checks in the normal (gcc, ASan) test run. Each check returns an empty
// string when the input passed, else what went wrong; a crash, a hang or a
// sanitizer report is a failure too.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/run_command.hpp"
#include <twice/report/json_report.hpp>
#include <twice/scenario/scenario.hpp>
#include "sim/duration_text.hpp"

namespace twice::fuzz {

// A fuzzed scenario that loads is run, but briefly: a few thousand events
// reach every model (broker, workers, vendor, faults, checkers) while one
// input still takes milliseconds. World sizes up to the loader's documented
// limits are run by the tests; here the biggest are loaded but not run, so
// the fuzzer spends its time on new shapes rather than on one large world.
inline constexpr std::uint64_t run_event_budget = 5'000;
inline constexpr std::size_t run_jobs_max = 2'000;
inline constexpr std::uint32_t run_workers_max = 200;

// Durations: a text either parses to a non-negative duration whose canonical
// text parses back to it, or is refused with a message quoting it.
inline std::string check_duration_text(std::string_view text) {
  const sim::result<sim::duration> r = sim::parse_duration(text);
  if (!r) return r.error().empty() ? "refused with an empty message" : "";
  if (r.value() < sim::duration::zero()) return "parsed to a negative duration";
  const std::string canonical = sim::format_duration(r.value());
  const sim::result<sim::duration> back = sim::parse_duration(canonical);
  if (!back) return "the canonical text " + canonical + " does not parse: " + back.error();
  if (back.value() != r.value()) return "the canonical text " + canonical + " parses to another duration";
  if (sim::format_duration(back.value()) != canonical) return "formatting is not canonical for " + canonical;
  return {};
}

// Any microsecond count formats to a text; a non-negative one round-trips.
inline std::string check_duration_value(std::int64_t us) {
  const sim::duration d = sim::duration::from_us(us);
  const std::string text = sim::format_duration(d);
  if (text.empty()) return "formatted to an empty text";
  if (us < 0) return text.front() == '-' ? "" : "a negative duration formatted without its sign";
  const sim::result<sim::duration> back = sim::parse_duration(text);
  if (!back || back.value() != d) return "formatted to " + text + ", which does not parse back";
  return {};
}

// Scenarios: a text either loads (then its world runs within a bounded
// budget, twice, to the same digest) or is refused with located errors.
inline std::string check_scenario_text(std::string_view text) {
  const load_result r = load_scenario_text(text, "fuzz.toml");
  if (!r.ok()) {
    if (r.errors.empty()) return "refused without an error";
    for (const scenario_error& e : r.errors)
      if (e.message.empty()) return "an error without a message: " + e.to_string();
    return {};
  }
  if (!r.errors.empty()) return "loaded, yet with errors";
  scenario sc = *r.value;
  if (sc.world.jobs.size() > run_jobs_max || sc.world.workers > run_workers_max ||
      sc.world.split.workers > run_workers_max)
    return {};
  sc.world.event_budget = std::min(sc.world.event_budget, run_event_budget);
  const cli::run_outcome first = cli::run_one(sc, false);
  const world_result& result = first.summary.result;
  if (result.events > sc.world.event_budget) return "the run spent more events than its budget";
  if (to_json_line(first.summary).empty()) return "an empty JSON summary";
  const cli::run_outcome second = cli::run_one(sc, false);
  if (second.summary.result.trace_digest != result.trace_digest || second.summary.result.events != result.events)
    return "two runs of the same scenario differ";
  return {};
}

}  // namespace twice::fuzz
