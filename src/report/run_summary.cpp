#include <twice/report/run_summary.hpp>

#include "report/broker_words.hpp"

#include <algorithm>

#include <fmt/core.h>

#include <twice/sim/checked.hpp>
#include <twice/vendors/vendor_refund.hpp>
#include "broker/kafka_topic.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"
#include "vendors/refund_ledger.hpp"
#include "vendors/service_tool.hpp"
#include "world/job_book.hpp"

namespace twice {

run_summary summarize(const world& w, const world_result& result, attempt_collector& attempts,
                      std::vector<verdict> verdicts) {
  run_summary s;
  s.seed = w.config().seed;
  s.result = result;
  w.jobs().for_each_end([&s](std::string_view, job_end end) {
    ++s.jobs_total;
    s.jobs_succeeded += end == job_end::done;
    s.jobs_failed += end == job_end::failed;
    s.jobs_dead_lettered += end == job_end::dead_lettered;
  });
  s.ledger_rows = w.db().ledger().size();
  // Checked: a ledger's rows are bounded only by the event budget (a job
  // without a key may refund again on every delivery).
  for (const ledger_row& row : w.db().ledger())
    s.ledger_total_cents =
        sim::checked_add(s.ledger_total_cents, row.amount_cents, "our ledger's total overflows int64 cents");
  s.vendor_calls = w.payments().stats().calls;
  s.vendor_refunds = w.payments().ledger().size();
  for (const vendor_refund& r : w.payments().ledger())
    s.vendor_total_cents =
        sim::checked_add(s.vendor_total_cents, r.amount_cents, "the vendor ledger's total overflows int64 cents");
  const service_tool_stats& vs = w.payments().stats();
  s.vendor_peak_per_100ms = vs.requests_per_100ms.peak();
  if (auto it = vs.rejections_by_status.find(503); it != vs.rejections_by_status.end())
    s.vendor_rejected_503 = it->second;
  const world::refusals refused = w.refused();
  s.retries_refused_by_budget = refused.retries_by_budget;
  for (const world::tool_calls& t : w.tool_stats()) {
    const auto by_breaker = refused.calls_by_breaker.find(t.name);
    const std::uint64_t failed_fast = by_breaker == refused.calls_by_breaker.end() ? 0 : by_breaker->second;
    if (t.stats->calls == 0 && failed_fast == 0) continue;
    s.tools.push_back(tool_figures{std::string(t.name), t.stats->calls, t.stats->executions, t.stats->client_timeouts,
                                   t.stats->rejections_by_status, t.stats->requests_per_100ms.peak(), failed_fast,
                                   std::nullopt});
  }
  for (const world::money_tool& m : w.money_tools()) {
    const bool payments = m.tool == &w.payments();
    // The payment vendor is always there; a world has it when a step calls
    // it (or something did: a handler of a test's own).
    if (payments && !story_calls(w.config(), m.name) && m.tool->stats().calls == 0 && m.tool->ledger().size() == 0)
      continue;
    s.money.push_back(money_ledger{std::string(m.name), m.tool->ledger().size(), m.tool->stats().moved_cents});
    if (payments) continue;
    for (tool_figures& t : s.tools)
      if (t.name == m.name)
        t.ledger = tool_figures::ledger_figures{m.tool->ledger().size(), m.tool->stats().moved_cents};
  }
  s.tenants = tenant_waits(w, result.story_end);
  s.queue = w.queue_health();
  s.sample_interval = w.config().sample_interval;
  s.queue_is_topic = w.topic() != nullptr;
  s.waiting_word = words_of(w.config()).waiting;
  s.attempts_total = attempts.started();
  s.attempts_omitted = attempts.omitted();
  s.jobs_by_attempts = attempts.jobs_by_attempts();
  s.attempts = attempts.take_attempts();
  s.verdicts = std::move(verdicts);
  return s;
}

std::string tool_figures::describe() const {
  std::string out = sim::counted(calls, "call") + fmt::format(": {} executed", executions);
  if (client_timeouts > 0) out += fmt::format(", {} timed out", client_timeouts);
  for (const auto& [status, n] : rejected) out += fmt::format(", {} answered {}", n, status);
  out += fmt::format("; at most {} in one 100 ms", peak_per_100ms);
  if (refused_by_breaker > 0) out += fmt::format("; {} more failed fast by the circuit breaker", refused_by_breaker);
  return out;
}

std::string money_ledger::whose() const {
  return tool == "refund" ? std::string("the payment vendor's") : fmt::format("the {} tool's", tool);
}

std::string money_ledger::row_count() const {
  return tool == "refund" ? sim::counted(rows, "refund") : sim::counted(rows, "row");
}

std::string money_ledger::describe() const { return fmt::format("{}, {} cents", row_count(), total_cents); }

std::string run_summary::our_ledger() const {
  return fmt::format("{}, {} cents", sim::counted(ledger_rows, "row"), ledger_total_cents);
}

std::string run_summary::jobs_line() const {
  std::string out = fmt::format("{} total: {} done, {} failed, {} dead-lettered", jobs_total, jobs_succeeded,
                                jobs_failed, jobs_dead_lettered);
  if (retries_refused_by_budget > 0) out += fmt::format(" ({} for want of retry budget)", retries_refused_by_budget);
  return out;
}

std::string run_summary::queue_line() const {
  if (queue.samples == 0)
    return sample_interval == sim::duration::zero() ? "not sampled ([trace] sample_interval = \"0s\")"
                                                    : "not sampled (the run ended before the first sample)";
  const auto at = [](sim::instant t) { return fmt::format("{}.{:03}s", t.us() / 1'000'000, t.us() / 1000 % 1000); };
  const sim::duration age = sim::duration::from_ms(queue.oldest_age.us() / 1000);
  const std::string backlog_at = queue.backlog == 0 ? std::string() : " (at " + at(queue.backlog_at) + ")";
  const std::string age_at =
      queue.oldest_age == sim::duration::zero() ? std::string() : " (at " + at(queue.oldest_age_at) + ")";
  if (queue_is_topic)
    return fmt::format(
        "consumer lag at most {} record{} not yet fetched{}, the oldest uncommitted record {} old at most{}",
        queue.backlog, queue.backlog == 1 ? "" : "s", backlog_at, sim::format_duration(age), age_at);
  return fmt::format("at most {} {}{}, the oldest message {} old at most{}", queue.backlog, waiting_word, backlog_at,
                     sim::format_duration(age), age_at);
}

}  // namespace twice
