#include <twice/report/junit.hpp>

#include <fmt/core.h>

#include <algorithm>

#include "checks/verdict_failure.hpp"
#include "report/markup_escape.hpp"

namespace twice {
namespace {

// Text fit for an XML 1.0 attribute or element (report/markup_escape.hpp).
std::string xml(std::string_view text) { return escape_markup(text, markup::xml10); }

}  // namespace

std::string junit_xml(std::string_view name, const std::vector<junit_suite>& suites) {
  std::size_t tests = 0, failures = 0;
  for (const junit_suite& s : suites)
    for (const junit_case& c : s.cases) {
      ++tests;
      failures += c.failure.has_value();
    }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n", xml(name), tests, failures);
  for (const junit_suite& s : suites) {
    const auto failed = std::count_if(s.cases.begin(), s.cases.end(), [](const junit_case& c) { return c.failure; });
    const auto skipped = std::count_if(s.cases.begin(), s.cases.end(), [](const junit_case& c) { return c.skipped; });
    out +=
        fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" file=\"{}\">\n",
                    xml(s.name), s.cases.size(), failed, skipped, xml(s.file));
    for (const junit_case& c : s.cases) {
      out += fmt::format("    <testcase name=\"{}\" classname=\"{}\"", xml(c.name), xml(c.classname));
      if (c.failure) {
        out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                           xml(*c.failure), "twice", xml(c.detail));
      } else if (c.skipped) {
        out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml(*c.skipped));
      } else {
        out += "/>\n";
      }
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

junit_suite junit_run_suite(const run_summary& s, std::string_view reproduce) {
  junit_suite suite;
  suite.name = "twice run " + s.scenario;
  suite.file = s.path;
  const std::string again = fmt::format("reproduce: {}", reproduce);
  junit_case whole{"expectations", s.scenario, std::nullopt, {}, std::nullopt};
  if (!s.expectations.met) {
    whole.failure =
        s.expectations.failures.empty() ? std::string("expectations not met") : s.expectations.failures.front();
    for (const std::string& f : s.expectations.failures) whole.detail += f + "\n";
    whole.detail += fmt::format("trace digest {:016x}\n{}\n", s.result.trace_digest, again);
  }
  suite.cases.push_back(std::move(whole));
  for (const verdict& v : s.verdicts) {
    junit_case c{v.name, s.scenario, std::nullopt, {}, std::nullopt};
    const auto ignored = std::find_if(s.expectations.ignored.begin(), s.expectations.ignored.end(),
                                      [&](const ignored_verdict& i) { return i.name == v.name; });
    const bool expected_violated =
        std::find(s.expectations.expected_violated.begin(), s.expectations.expected_violated.end(), v.name) !=
        s.expectations.expected_violated.end();
    if (ignored != s.expectations.ignored.end())
      c.skipped = "ignored by [expect]: " + ignored->reason;
    else
      c.failure = verdict_failure(v, expected_violated);
    if (c.failure) {
      for (const std::string& line : v.evidence) c.detail += line + "\n";
      c.detail += again + "\n";
    }
    suite.cases.push_back(std::move(c));
  }
  return suite;
}

}  // namespace twice
