#pragma once
// JUnit XML, the test report GitLab (`artifacts:reports:junit`), Jenkins'
// junit step and GitHub's test reporters read: a <testsuites> of
// <testsuite>s of <testcase>s, a failing case holding a <failure> whose
// message a reader sees first and whose text has the detail (the evidence,
// the command that reproduces it). No wall-clock time is written, so the
// same run writes the same bytes. tests/junit/junit.xsd is the shape the
// readers share; a test validates what twice writes against it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/report/run_summary.hpp>

namespace twice {

struct junit_case {
  std::string name;                    // "no_double_payment"
  std::string classname;               // the suite's scenario: "double_refund"
  std::optional<std::string> failure;  // the message; unset: passed
  std::string detail;                  // the failure's (or skip's) text
  std::optional<std::string> skipped;  // why it does not count (an ignored invariant)
};

struct junit_suite {
  std::string name;  // "twice run double_refund"
  std::string file;  // the scenario file
  std::vector<junit_case> cases;
};

std::string junit_xml(std::string_view name, const std::vector<junit_suite>& suites);

// A `twice run` of one scenario: a case for the scenario's expectations as
// a whole (every failure listed), then one per invariant: failed when its
// verdict is not what [expect] asked, skipped when [expect] ignores it.
// `reproduce` is the command line that reruns it.
junit_suite junit_run_suite(const run_summary& s, std::string_view reproduce);

}  // namespace twice
