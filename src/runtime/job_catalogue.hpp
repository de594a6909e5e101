#pragma once
// Where a worker finds the job a message names. The world answers from the
// jobs it loaded, the jobs generated as they arrived and the jobs split out
// of either; a generated job's spec is made on demand, so the answer is a
// value the slice keeps for its life.

#include <string_view>

#include <twice/runtime/job.hpp>

namespace twice {

class job_catalogue {
 public:
  virtual ~job_catalogue() = default;
  // The spec of the job `id` names; only ids of jobs whose message was
  // sent are asked for (a check fails otherwise).
  virtual job_spec spec_of(std::string_view id) const = 0;
};

}  // namespace twice
