#pragma once
// The 17 built-in invariants, in report order, as the registry
// (checks/invariant.hpp, invariant_registry.cpp) lists them before a
// program's own. Each is a class of one concept in the file of its kind:
// money_invariants.cpp, queue_checks.cpp, attempt_checks.cpp,
// worker_checks.cpp, effect_checks.cpp, tenant_checks.cpp. What several
// share (the per-job watch, the effects seen, the money books) is in the
// run's check_context, kept once.

#include <memory>
#include <span>
#include <string_view>

#include <twice/checks/invariant.hpp>

namespace twice {

class check_context;

using builtin_factory = std::unique_ptr<invariant> (*)(const world_config& config, check_context& shared);

struct builtin_invariant {
  std::string_view name;
  builtin_factory make;
};

// In report order.
std::span<const builtin_invariant> builtin_invariants();
const builtin_invariant* find_builtin_invariant(std::string_view name);  // null if none

// money_invariants.cpp
std::unique_ptr<invariant> make_one_ledger_row_per_key(const world_config&, check_context&);
std::unique_ptr<invariant> make_no_double_payment(const world_config&, check_context&);
std::unique_ptr<invariant> make_ledgers_agree(const world_config&, check_context&);
std::unique_ptr<invariant> make_done_jobs_paid_in_full(const world_config&, check_context&);
// queue_checks.cpp
std::unique_ptr<invariant> make_every_job_ends(const world_config&, check_context&);
std::unique_ptr<invariant> make_no_message_lost(const world_config&, check_context&);
std::unique_ptr<invariant> make_backlog_within_bound(const world_config&, check_context&);
// attempt_checks.cpp
std::unique_ptr<invariant> make_backoff_within_cap(const world_config&, check_context&);
std::unique_ptr<invariant> make_no_retry_of_non_retryable(const world_config&, check_context&);
std::unique_ptr<invariant> make_attempts_monotonic(const world_config&, check_context&);
std::unique_ptr<invariant> make_attempts_within_limit(const world_config&, check_context&);
// worker_checks.cpp
std::unique_ptr<invariant> make_leases_exclusive_or_absorbed(const world_config&, check_context&);
std::unique_ptr<invariant> make_drain_kills_nothing(const world_config&, check_context&);
std::unique_ptr<invariant> make_database_not_stalled(const world_config&, check_context&);
// effect_checks.cpp
std::unique_ptr<invariant> make_one_effect_per_step(const world_config&, check_context&);
std::unique_ptr<invariant> make_done_jobs_had_effects(const world_config&, check_context&);
// tenant_checks.cpp
std::unique_ptr<invariant> make_no_tenant_starved(const world_config&, check_context&);

}  // namespace twice
