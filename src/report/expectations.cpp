#include "report/expectations.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <twice/scenario/scenario.hpp>

namespace twice {

namespace {
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
  // Every invariant must hold unless the scenario expects it violated or
  // ignores it with a reason: a scenario cannot pass a violation by listing
  // some other invariant under `hold` (that list only documents intent).
  for (const verdict& v : s.verdicts) {
    if (const auto i = std::find_if(expect.ignore.begin(), expect.ignore.end(),
                                    [&](const ignored_invariant& x) { return x.name == v.name; });
        i != expect.ignore.end()) {
      out.ignored.push_back({v.name, i->reason, v.held, v.judged});
      continue;
    }
    // A verdict the run stopped before it could decide passes nothing:
    // neither an expected violation nor a hold.
    if (!v.judged) {
      out.met = false;
      out.failures.push_back(v.name + " was " + v.detail);  // "... was not judged: 3 dead letters still held ..."
      continue;
    }
    const bool must_break = expect.expects_violated(v.name);
    if (must_break) out.expected_violated.push_back(v.name);
    if (must_break && v.held) {
      out.met = false;
      out.failures.push_back(v.name + " was expected to be violated, but held");
    }
    if (!must_break && !v.held) {
      out.met = false;
      out.failures.push_back(v.name + " was violated: " + v.detail);
    }
  }
  figure(out, "ledger rows", expect.ledger_rows, s.ledger_rows);
  figure(out, "vendor refunds", expect.vendor_refunds, s.vendor_refunds);
  figure(out, "dead letters", expect.dead_letters, s.jobs_dead_lettered);
  figure(out, "attempts", expect.attempts, s.attempts_total);
  figure(out, "all jobs end", expect.all_jobs_end, s.result.all_jobs_ended);
  for (const std::string& name : expect.reach)
    if (const auto i = situation_index(name); i && ((s.reached >> *i) & 1U) == 0) {
      out.met = false;
      out.failures.push_back(fmt::format("the run never reached {}: {}", name, situations()[*i].sentence));
    }
  return out;
}

std::string describe(const ignored_verdict& v) {
  return fmt::format("{} ignored ({}): {}", v.name, !v.held ? "violated" : v.judged ? "held" : "unjudged", v.reason);
}

}  // namespace twice
