#include "runtime/job.hpp"

namespace twice {

job_spec agent_job(std::string id, std::string invoice, std::int64_t amount_cents, bool email) {
  job_spec job;
  job.id = std::move(id);
  job.steps.push_back({"read", invoice, 0});
  job.steps.push_back({"model", invoice, 0});
  job.steps.push_back({"refund", invoice, amount_cents});
  if (email) job.steps.push_back({"email", "customer-of-" + invoice, 0});
  return job;
}

}  // namespace twice
