#include <twice/report/json_report.hpp>

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace twice {

std::string to_json_line(const run_summary& s) {
  using nlohmann::json;
  json attempts = json::array();
  for (const attempt_summary& a : s.attempts)
    attempts.push_back({{"job_id", a.job_id},
                        {"attempt", a.attempt},
                        {"worker", a.worker},
                        {"key", a.key},
                        {"new_write", a.new_write},
                        {"outcome", a.outcome},
                        {"backoff_us", a.backoff_us},
                        {"started_us", a.started.us()}});
  json invariants = json::array();
  for (const verdict& v : s.verdicts) {
    json item{{"name", v.name}, {"held", v.held}, {"judged", v.judged}, {"detail", v.detail}, {"evidence", v.evidence}};
    if (v.first_violation) item["first_violation_us"] = v.first_violation->us();
    invariants.push_back(std::move(item));
  }
  json tools = json::array();
  for (const tool_figures& t : s.tools) {
    json rejected = json::object();
    for (const auto& [status, n] : t.rejected) rejected[std::to_string(status)] = n;
    json tool = {{"name", t.name},
                 {"calls", t.calls},
                 {"executions", t.executions},
                 {"client_timeouts", t.client_timeouts},
                 {"rejected", std::move(rejected)},
                 {"peak_requests_per_100ms", t.peak_per_100ms},
                 {"refused_by_breaker", t.refused_by_breaker}};
    if (t.ledger) tool["ledger"] = {{"rows", t.ledger->rows}, {"total_cents", t.ledger->total_cents}};
    tools.push_back(std::move(tool));
  }
  json tenants = json::array();
  for (const tenant_wait& t : s.tenants)
    tenants.push_back({{"tenant", t.tenant},
                       {"jobs", t.jobs},
                       {"never_received", t.never_received},
                       {"queue_wait_p50_us", t.p50.us()},
                       {"queue_wait_p99_us", t.p99.us()},
                       {"queue_wait_max_us", t.max.us()},
                       {"above_share", t.above_share}});
  json ignored = json::array();
  for (const ignored_verdict& i : s.expectations.ignored)
    ignored.push_back({{"invariant", i.name}, {"reason", i.reason}, {"held", i.held}, {"judged", i.judged}});
  json reached = json::array();
  for (std::size_t i = 0; i < situations().size(); ++i)
    if ((s.reached >> i) & 1U) reached.push_back(situations()[i].name);
  json out{
      {"scenario", s.scenario},
      {"path", s.path},
      {"seed", s.seed},
      {"trace_digest", fmt::format("{:016x}", s.result.trace_digest)},
      {"events", s.result.events},
      {"sim_time_us", s.result.story_end.us()},
      {"end", std::string(end_name(s.result))},
      {"footprint_peak_bytes", s.result.footprint_peak},
      {"jobs",
       {{"total", s.jobs_total},
        {"succeeded", s.jobs_succeeded},
        {"failed", s.jobs_failed},
        {"dead_lettered", s.jobs_dead_lettered},
        {"retries_refused_by_budget", s.retries_refused_by_budget}}},
      {"ledger", {{"rows", s.ledger_rows}, {"total_cents", s.ledger_total_cents}}},
      {"vendor",
       {{"calls", s.vendor_calls},
        {"refunds", s.vendor_refunds},
        {"total_cents", s.vendor_total_cents},
        {"peak_requests_per_100ms", s.vendor_peak_per_100ms},
        {"rejected_503", s.vendor_rejected_503}}},
      {"tools", std::move(tools)},
      {"tenants", std::move(tenants)},
      {"queue",
       {{"samples", s.queue.samples},
        {"peak_visible", s.queue.backlog},
        {"peak_visible_at_us", s.queue.backlog_at.us()},
        {"peak_oldest_age_us", s.queue.oldest_age.us()},
        {"peak_oldest_age_at_us", s.queue.oldest_age_at.us()}}},
      {"attempts_total", s.attempts_total},
      {"attempts", std::move(attempts)},
      {"attempts_omitted", s.attempts_omitted},
      {"invariants", std::move(invariants)},
      {"situations", std::move(reached)},  // reached, in checks/situations.hpp order
      {"expectations",
       {{"met", s.expectations.met},
        {"failures", s.expectations.failures},
        {"expected_violated", s.expectations.expected_violated},
        {"ignored", std::move(ignored)}}},
  };
  if (s.determinism)
    out["determinism"] = {{"runs", s.determinism->runs},
                          {"records", s.determinism->records},
                          {"digest", fmt::format("{:016x}", s.determinism->digest)},
                          {"identical", true}};
  return out.dump();
}

}  // namespace twice
