// no_tenant_starved: noisy neighbours, judged once the run has ended over
// each tenant's queue waits (world/tenant_waits.hpp).

#include <string>
#include <vector>

#include <fmt/core.h>

#include "checks/builtin_invariants.hpp"
#include "checks/check_context.hpp"
#include "checks/check_text.hpp"
#include "checks/invariant_names.hpp"
#include "sim/duration_text.hpp"
#include <twice/world/tenant_waits.hpp>
#include <twice/world/world.hpp>

namespace twice {

namespace {
using namespace check_text;

// A tenant that sent no more than an equal share of the tenants' jobs must
// not wait behind one that sent more. Its jobs' 99th percentile queue wait
// (to the first delivery) stays within the bound; the tenant above its
// share is not held to it (its backlog is its own).
class no_tenant_starved final : public invariant {
 public:
  explicit no_tenant_starved(const check_options& options) : evidence_max_(options.evidence_max) {}
  event_kinds wants() const override { return {}; }
  void on_event(const ev::event&, const name_table&) override {}

  verdict finish(const world& w, const world_result& result) override {
    const sim::duration bound = w.config().tenant_wait_bound;
    const std::vector<tenant_wait> tenants = tenant_waits(w, result.story_end);
    verdict v{std::string(invariant_name::no_tenant_starved),
              true,
              tenants.empty()
                  ? std::string("no job names a tenant")
                  : fmt::format("every tenant within its share of the jobs waited p99 {} or less in the queue",
                                sim::format_duration(bound)),
              {},
              {}};
    std::size_t starved = 0;
    for (const tenant_wait& t : tenants) {
      if (t.above_share || t.p99 <= bound) continue;
      if (v.held)
        v.detail = fmt::format(
            "tenant {} ({} of the jobs, no more than its share) waited p99 {} in the queue, above {}", t.tenant, t.jobs,
            sim::format_duration(sim::duration::from_ms(t.p99.us() / 1000)), sim::format_duration(bound));
      v.held = false;
      ++starved;
    }
    if (!v.held) {
      for (const tenant_wait& t : tenants)
        if (v.evidence.size() < evidence_max_)
          v.evidence.push_back(
              fmt::format("{}{}: {}", t.tenant, t.above_share ? " (above its share)" : "", t.describe()));
      if (starved > 1) v.detail += and_more(starved - 1, "tenant", "tenants");
    }
    return v;
  }

 private:
  std::size_t evidence_max_;
};

}  // namespace

std::unique_ptr<invariant> make_no_tenant_starved(const world_config&, check_context& shared) {
  return std::make_unique<no_tenant_starved>(shared.options());
}

}  // namespace twice
