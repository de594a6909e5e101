// The invariants about the queue as the jobs and an on-call see it:
// no_message_lost, backlog_within_bound (streaming) and no_tenant_starved
// (final, over each tenant's queue waits).

#include <algorithm>
#include <string>

#include <fmt/core.h>

#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include "checks/invariants.hpp"
#include "sim/duration_text.hpp"
#include "world/tenant_waits.hpp"
#include "world/world.hpp"

namespace twice {

using namespace invariant_name;
using namespace check_text;

// Noisy neighbours: a tenant that sent no more than an equal share of the
// tenants' jobs must not wait behind one that sent more. Its jobs' 99th
// percentile queue wait (to the first delivery) stays within the bound; the
// tenant above its share is not held to it (its backlog is its own).
verdict invariant_checker::tenants_served(const world& w, const world_result& result) const {
  const sim::duration bound = w.config().tenant_wait_bound;
  const std::vector<tenant_wait> tenants = tenant_waits(w, result.story_end);
  verdict v{std::string(no_tenant_starved), true,
            tenants.empty() ? std::string("no job names a tenant")
                            : fmt::format("every tenant within its share of the jobs waited p99 {} or less in the queue",
                                          sim::format_duration(bound)),
            {}, {}};
  std::size_t starved = 0;
  for (const tenant_wait& t : tenants) {
    if (t.above_share || t.p99 <= bound) continue;
    if (v.held)
      v.detail = fmt::format("tenant {} ({} of the jobs, no more than its share) waited p99 {} in the queue, above {}",
                             t.tenant, t.jobs, sim::format_duration(sim::duration::from_ms(t.p99.us() / 1000)),
                             sim::format_duration(bound));
    v.held = false;
    ++starved;
  }
  if (!v.held) {
    for (const tenant_wait& t : tenants)
      if (v.evidence.size() < options_.evidence_max)
        v.evidence.push_back(fmt::format("{}{}: {}", t.tenant, t.above_share ? " (above its share)" : "", t.describe()));
    if (starved > 1) v.detail += and_more(starved - 1, "tenant", "tenants");
  }
  return v;
}

// A message retention deleted before its job ended (done or failed) was
// never processed: from the job queue (a backlog older than the retention)
// or from the dead-letter queue nobody read (whose retention counts from the
// original enqueue). A copy of a job that did end (a duplicate, a lost ack)
// expiring loses nothing.
void invariant_checker::on_retention_expired(const ev::event& e, const ev::retention_expired& gone) {
  if (jobs_[job_id(gone.body)].ended) return;
  note(no_message_lost, e,
       fmt::format("deleted by retention {} after it was sent; its job never ended done or failed",
                   sim::format_duration(gone.age)));
}

// The job queue's alarms, at every sample: an on-call is paged the moment
// one goes off, however briefly.
void invariant_checker::on_queue_sample(const ev::event& e, const ev::queue_sample& q) {
  if (alarms_.oldest_message_age && *alarms_.oldest_message_age < q.oldest_age)
    note(backlog_within_bound, e,
         fmt::format("the oldest message is {} old, above alarms.oldest_message_age = {}",
                     sim::format_duration(sim::duration::from_ms(q.oldest_age.us() / 1000)),
                     sim::format_duration(*alarms_.oldest_message_age)));
  if (alarms_.backlog && static_cast<std::uint64_t>(q.visible) > *alarms_.backlog)
    note(backlog_within_bound, e,
         fmt::format("{} messages visible, above alarms.backlog = {}", q.visible, *alarms_.backlog));
}

}  // namespace twice
