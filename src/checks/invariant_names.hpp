#pragma once
// The built-in invariants' stable names, as constants for the code that
// names one (the invariants themselves, the properties). Their report order
// and their classes are the registry's (checks/builtin_invariants.cpp);
// invariant_names() lists them with a program's own.

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

}  // namespace twice::invariant_name
