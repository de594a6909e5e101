#include "checks/builtin_invariants.hpp"

#include <algorithm>
#include <array>

#include "checks/invariant_names.hpp"

namespace twice {

namespace {
using namespace invariant_name;
constexpr std::array<builtin_invariant, 17> all{{
    {one_ledger_row_per_key, make_one_ledger_row_per_key},
    {no_double_payment, make_no_double_payment},
    {ledgers_agree, make_ledgers_agree},
    {every_job_ends, make_every_job_ends},
    {no_message_lost, make_no_message_lost},
    {backlog_within_bound, make_backlog_within_bound},
    {backoff_within_cap, make_backoff_within_cap},
    {no_retry_of_non_retryable, make_no_retry_of_non_retryable},
    {attempts_monotonic, make_attempts_monotonic},
    {attempts_within_limit, make_attempts_within_limit},
    {leases_exclusive_or_absorbed, make_leases_exclusive_or_absorbed},
    {drain_kills_nothing, make_drain_kills_nothing},
    {database_not_stalled, make_database_not_stalled},
    {done_jobs_paid_in_full, make_done_jobs_paid_in_full},
    {one_effect_per_step, make_one_effect_per_step},
    {done_jobs_had_effects, make_done_jobs_had_effects},
    {no_tenant_starved, make_no_tenant_starved},
}};
}  // namespace

std::span<const builtin_invariant> builtin_invariants() { return all; }

const builtin_invariant* find_builtin_invariant(std::string_view name) {
  const auto it = std::find_if(all.begin(), all.end(), [name](const builtin_invariant& b) { return b.name == name; });
  return it == all.end() ? nullptr : &*it;
}

}  // namespace twice
