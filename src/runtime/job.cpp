#include <twice/runtime/job.hpp>

namespace twice {

job_spec agent_job(std::string id, std::string invoice, std::int64_t amount_cents, bool email) {
  job_spec job;
  job.id = std::move(id);
  job.steps.reserve(email ? 4 : 3);  // exact: a generated million would otherwise hold room for a fourth step each
  // The invoice moved into the last step that names it (a generated job's
  // spec is made again wherever a walk needs it). Braces, not emplace_back's
  // parentheses: clang 14 (the WebAssembly build) has no parenthesized
  // aggregate initialisation.
  job.steps.push_back(step_spec{"read", invoice, 0});
  job.steps.push_back(step_spec{"model", invoice, 0});
  if (email) {
    job.steps.push_back(step_spec{"refund", invoice, amount_cents});
    job.steps.push_back(step_spec{"email", "customer-of-" + std::move(invoice), 0});
  } else {
    job.steps.push_back(step_spec{"refund", std::move(invoice), amount_cents});
  }
  return job;
}

job_spec split_job(const job_spec& parent, std::size_t step) {
  const step_spec& slow = parent.steps.at(step - 1);
  job_spec child;
  child.id = parent.id + ":step_" + std::to_string(step) + ":" + slow.tool;
  child.steps.push_back(slow);
  child.then = continuation{parent.id, static_cast<std::int32_t>(step)};
  child.tenant = parent.tenant;
  return child;
}

}  // namespace twice
