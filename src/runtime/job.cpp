#include <twice/runtime/job.hpp>

namespace twice {

job_spec agent_job(std::string id, std::string invoice, std::int64_t amount_cents, bool email) {
  job_spec job;
  job.id = std::move(id);
  job.steps.reserve(email ? 4 : 3);  // exact: a generated million would otherwise hold room for a fourth step each
  // Built in place (a generated job's spec is made again wherever a walk
  // needs it), the invoice moved into the last step that names it.
  job.steps.emplace_back("read", invoice, 0);
  job.steps.emplace_back("model", invoice, 0);
  if (email) {
    job.steps.emplace_back("refund", invoice, amount_cents);
    job.steps.emplace_back("email", "customer-of-" + std::move(invoice), 0);
  } else {
    job.steps.emplace_back("refund", std::move(invoice), amount_cents);
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
