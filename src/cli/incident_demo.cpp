#include "cli/incident_demo.hpp"

#include <fmt/core.h>

#include <string>

#include "cli/kernel_demo.hpp"
#include "world/incidents.hpp"

namespace twice::cli {

namespace {
// The records a person reads in an incident timeline.
bool in_timeline(std::string_view kind) {
  for (std::string_view k : {"start", "crash", "stop", "receive", "lease_expired", "attempt_start", "tool_call",
                             "fault_crash", "fault_error", "backoff", "nack", "checkpoint", "job_done", "job_failed",
                             "dead_letter", "ack", "redrive", "commit", "replay", "heartbeat", "lease_lost",
                             "abandoned", "fenced", "all_jobs_ended"})
    if (k == kind) return true;
  return false;
}

void print_timeline(const sim::trace_recorder& trace) {
  for (const sim::trace_record& rec : trace.records()) {
    if (!in_timeline(rec.kind)) continue;
    if (rec.actor == "store" && rec.kind == "commit") continue;  // every transaction: too much
    std::string line;
    sim::append_canonical(rec, line);
    fmt::print("{:>12}  {}\n", format_clock(rec.time), line.substr(line.find(' ') + 1));
  }
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
    print_timeline(w.trace());
    fmt::print("\n");
  }
  fmt::print("vendor ledger:\n");
  for (const vendor_refund& v : w.payments().ledger())
    fmt::print("  {} {} {} cents key={}\n", v.id, v.invoice, v.amount_cents, v.idempotency_key.value_or("(none)"));
  fmt::print("local ledger:\n");
  for (const ledger_row& l : w.db().ledger())
    fmt::print("  {} {} cents key={} ref={}\n", l.job_id, l.amount_cents, l.key.empty() ? "(none)" : l.key,
               l.vendor_ref);
  fmt::print("\nstory ended at {}; {} events; trace digest {}\n", format_clock(r.story_end), r.events,
             sim::format_digest(r.trace_digest));
  return 0;
}

}  // namespace twice::cli
