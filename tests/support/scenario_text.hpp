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

// One refund job whose vendor is down for good: two attempts, then the
// dead-letter queue, which nothing reads and which keeps it 24 h. Cut
// before 24 h, no_message_lost cannot be judged; past it, it is violated.
inline std::string dead_letter_job(std::string_view time_limit) {
  return R"(
[budget]
time_limit = ")" +
         std::string(time_limit) +
         R"("
[retry]
initial_interval = "1s"
maximum_interval = "2s"
maximum_attempts = 2
[dead_letter_queue]
retention = "24h"
[vendor]
latency = { fixed = "100ms" }
[[vendor.outage]]
start = "0s"
end = "1000h"
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 1999
)";
}

}  // namespace twice::test
