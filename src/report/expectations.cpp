#include "report/expectations.hpp"

#include <algorithm>
#include <fmt/core.h>

#include "scenario/scenario.hpp"

namespace twice {

namespace {
bool listed(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

template <class T>
void figure(expectation_result& out, std::string_view what, const std::optional<T>& expected, T actual) {
  if (expected && *expected != actual) {
    out.met = false;
    out.failures.push_back(fmt::format("expected {} {}, got {}", what, *expected, actual));
  }
}
}  // namespace

expectation_result evaluate(const expectations& expect, const run_summary& s) {
  expectation_result out;
  // Unless `hold` names some, every invariant not expected to be violated
  // must hold: a scenario does not pass by forgetting to ask.
  for (const verdict& v : s.verdicts) {
    const bool must_break = listed(expect.violated, v.name);
    const bool must_hold = expect.hold.empty() ? !must_break : listed(expect.hold, v.name);
    if (must_break && v.held) {
      out.met = false;
      out.failures.push_back(v.name + " was expected to be violated, but held");
    }
    if (must_hold && !v.held) {
      out.met = false;
      out.failures.push_back(v.name + " was violated: " + v.detail);
    }
  }
  figure(out, "ledger rows", expect.ledger_rows, s.ledger_rows);
  figure(out, "vendor refunds", expect.vendor_refunds, s.vendor_refunds);
  figure(out, "dead letters", expect.dead_letters, s.jobs_dead_lettered);
  figure(out, "attempts", expect.attempts, static_cast<std::uint64_t>(s.attempts.size()));
  figure(out, "all jobs end", expect.all_jobs_end, s.result.all_jobs_ended);
  return out;
}

}  // namespace twice
