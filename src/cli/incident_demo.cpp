#include "cli/incident_demo.hpp"

#include <fmt/core.h>

#include <string>

#include "cli/kernel_demo.hpp"
#include <twice/report/timeline.hpp>
#include <twice/vendors/vendor_refund.hpp>
#include "sim/count_text.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/incidents.hpp"

namespace twice::cli {

namespace {
void print_timeline(const event_log& events) {
  for (const timeline_line& line : build_timeline(events.records())) fmt::print("{}\n", format_timeline_line(line));
}
}  // namespace

int print_incident(bool fixed, std::optional<std::uint64_t> seed, bool quiet) {
  world_config config = double_refund_config(fixed);
  if (seed) config.seed = *seed;
  world w(config);
  const world_result r = w.run();
  fmt::print("twice incident: the double refund{}, seed {}\n", fixed ? " (fixed)" : "", config.seed);
  fmt::print("key: {}, workers: {}, visibility timeout: {}\n\n", to_string(config.runtime.rules.key), config.workers,
             format_clock(sim::instant::epoch() + config.queue.visibility_timeout));
  if (!quiet) {
    print_timeline(w.events());
    fmt::print("\n");
  }
  fmt::print("vendor ledger:\n");
  for (const vendor_refund& v : w.payments().ledger())
    fmt::print("  {} {} {} cents key={}\n", v.id, v.invoice, v.amount_cents, v.idempotency_key.value_or("(none)"));
  fmt::print("local ledger:\n");
  for (const ledger_row& l : w.db().ledger())
    fmt::print("  {} {} cents key={} ref={}\n", l.job_id, l.amount_cents, l.key.empty() ? "(none)" : l.key,
               l.vendor_ref);
  fmt::print("\nstory ended at {}; {}; trace digest {}\n", format_clock(r.story_end), sim::counted(r.events, "event"),
             sim::format_digest(r.trace_digest));
  return 0;
}

}  // namespace twice::cli
