#pragma once
// Scenario text for loader tests that are about one section: a scenario
// must define a job to load, so a snippet without one gets a plain job
// appended (after every line of the snippet, so its errors keep their places).

#include <string>
#include <string_view>

namespace twice::test {

inline std::string with_a_job(std::string_view text) {
  std::string out(text);
  if (out.find("[[job]]") != std::string::npos || out.find("[workload]") != std::string::npos) return out;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + "[[job]]\nid = \"a_job\"\ninvoice = \"inv_a\"\namount_cents = 100\n";
}

}  // namespace twice::test
