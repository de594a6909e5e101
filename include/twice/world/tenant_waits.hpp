#pragma once
// How long each tenant's jobs waited in the queue before their first
// delivery (SQS's dwell time: "the total time messages spend in a queue from
// arrival to processing"), from the job book after a run. A job still not
// received when the story ended counts as waiting until then. Jobs without a
// tenant are left out.

#include <cstdint>
#include <string>
#include <vector>

#include <twice/sim/time.hpp>

namespace twice {

class world;

struct tenant_wait {
  std::string tenant;
  std::uint64_t jobs = 0;            // arrived before the story ended
  std::uint64_t never_received = 0;  // still waiting when it ended
  sim::duration p50, p99, max;       // nearest-rank percentiles of the waits
  // More than an equal share of the tenants' jobs: the noisy neighbour
  // no_tenant_starved does not hold to the bound.
  bool above_share = false;

  std::string describe() const;  // "20 jobs: queue wait p50 1s, p99 4m12s, max 4m30s"
};

// In tenant-name order; empty when no job names a tenant.
std::vector<tenant_wait> tenant_waits(const world& w, sim::instant story_end);

}  // namespace twice
