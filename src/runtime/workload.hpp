#pragma once
// A generated workload ([workload] in a scenario): `count` jobs whose
// arrival gaps, types, amounts and emails are drawn from the seed's
// "workload" stream. Nothing stores the million specs a large workload describes: the
// generator yields them one at a time, in order, as they arrive (the
// world), or again when a checker or the linter walks them; the same seed
// and spec give the same jobs every time.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <twice/runtime/job.hpp>
#include <twice/runtime/job_type.hpp>
#include <twice/runtime/workload_spec.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// What the draws decided for one generated job; its spec follows from it.
struct generated_job {
  std::int64_t ordinal = 0;  // 0-based, in generation order
  sim::instant enqueue_at;
  std::int64_t amount_cents = 0;  // agent jobs only
  bool email = false;             // agent jobs only
  std::uint16_t type = 0;         // its entry in workload_spec::types (0 when there are none)
};

class workload_generator {
 public:
  // Draws from `root`'s "workload" stream, as the loader always has.
  workload_generator(std::uint64_t seed, const workload_spec& spec);

  bool done() const { return next_ >= spec_.count; }
  // Per job, in this order: the gap (poisson only), the type (two or more
  // in the mix only), then for an agent job the amount (a range only) and
  // the email (a probability strictly between 0 and 1 only).
  generated_job next();

 private:
  const workload_spec& spec_;
  sim::random_stream rng_;
  sim::instant t_;
  std::int64_t next_ = 0;
};

// The job `g` stands for: the agent job with invoice "inv_" + its id, or a
// job of its drawn type.
job_spec generated_spec(const workload_spec& spec, const generated_job& g);

}  // namespace twice
