#include <twice/world/tenant_waits.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sim/duration_text.hpp"
#include "world/job_book.hpp"
#include <twice/world/world.hpp>

namespace twice {

namespace {

// The nearest-rank percentile q/100 of sorted, non-empty `waits`.
sim::duration percentile(const std::vector<std::int64_t>& waits, std::uint64_t q) {
  const std::uint64_t n = waits.size();
  const std::uint64_t rank = (q * n + 99) / 100;  // ceil(q n / 100), at least 1 for n >= 1
  return sim::duration::from_us(waits[static_cast<std::size_t>(std::max<std::uint64_t>(rank, 1) - 1)]);
}

}  // namespace

std::string tenant_wait::describe() const {
  // To the millisecond: a wait is read by people, and microseconds are noise.
  const auto ms = [](sim::duration d) { return sim::format_duration(sim::duration::from_ms(d.us() / 1000)); };
  std::string out =
      fmt::format("{} job{}: queue wait p50 {}, p99 {}, max {}", jobs, jobs == 1 ? "" : "s", ms(p50), ms(p99), ms(max));
  if (never_received > 0) out += fmt::format(" ({} never received)", never_received);
  return out;
}

std::vector<tenant_wait> tenant_waits(const world& w, sim::instant story_end) {
  if (story_tenants(w.config()).empty()) return {};
  std::map<std::string, std::vector<std::int64_t>> waits;  // by tenant
  std::map<std::string, std::uint64_t> unreceived;
  for_each_job(w.config(), [&](const job_spec& job) {
    if (job.tenant.empty() || job.enqueue_at > story_end) return;
    const std::optional<sim::instant> received = w.jobs().first_received(job.id);
    const sim::instant until = received.value_or(story_end);
    waits[job.tenant].push_back((until - job.enqueue_at).us());
    if (!received) ++unreceived[job.tenant];
  });
  std::uint64_t total = 0;
  for (const auto& [tenant, list] : waits) total += list.size();
  std::vector<tenant_wait> out;
  for (auto& [tenant, list] : waits) {
    std::sort(list.begin(), list.end());
    tenant_wait t;
    t.tenant = tenant;
    t.jobs = list.size();
    t.never_received = unreceived[tenant];
    t.p50 = percentile(list, 50);
    t.p99 = percentile(list, 99);
    t.max = sim::duration::from_us(list.back());
    t.above_share = t.jobs * waits.size() > total;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace twice
