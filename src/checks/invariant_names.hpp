#pragma once
// The stable invariant names a scenario's [expect] may list. They live with
// the checkers that evaluate them (a layer beneath the scenario loader), as
// plain strings in a header of their own, so the loader reads the names
// without the checkers' code (checks/invariants.hpp keeps the same list in
// report order; a test keeps the two in step).

#include <algorithm>
#include <array>
#include <string_view>

namespace twice::invariant_name {

inline constexpr std::string_view one_ledger_row_per_key = "one_ledger_row_per_key";
inline constexpr std::string_view no_double_payment = "no_double_payment";
inline constexpr std::string_view ledgers_agree = "ledgers_agree";
inline constexpr std::string_view every_job_ends = "every_job_ends";
inline constexpr std::string_view no_message_lost = "no_message_lost";
inline constexpr std::string_view backlog_within_bound = "backlog_within_bound";
inline constexpr std::string_view backoff_within_cap = "backoff_within_cap";
inline constexpr std::string_view no_retry_of_non_retryable = "no_retry_of_non_retryable";
inline constexpr std::string_view attempts_monotonic = "attempts_monotonic";
inline constexpr std::string_view attempts_within_limit = "attempts_within_limit";
inline constexpr std::string_view leases_exclusive_or_absorbed = "leases_exclusive_or_absorbed";
inline constexpr std::string_view drain_kills_nothing = "drain_kills_nothing";
inline constexpr std::string_view database_not_stalled = "database_not_stalled";
inline constexpr std::string_view done_jobs_paid_in_full = "done_jobs_paid_in_full";
inline constexpr std::string_view one_effect_per_step = "one_effect_per_step";
inline constexpr std::string_view done_jobs_had_effects = "done_jobs_had_effects";
inline constexpr std::string_view no_tenant_starved = "no_tenant_starved";

// In report order.
inline constexpr std::array<std::string_view, 17> all = {
    one_ledger_row_per_key,    no_double_payment,  ledgers_agree,
    every_job_ends,            no_message_lost,    backlog_within_bound,
    backoff_within_cap,        no_retry_of_non_retryable,
    attempts_monotonic,        attempts_within_limit,
    leases_exclusive_or_absorbed,
    drain_kills_nothing,       database_not_stalled,
    done_jobs_paid_in_full,    one_effect_per_step,
    done_jobs_had_effects,     no_tenant_starved,
};

constexpr bool is_known(std::string_view name) { return std::find(all.begin(), all.end(), name) != all.end(); }

}  // namespace twice::invariant_name
