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
#include <twice/sim/random.hpp>
#include <twice/sim/time.hpp>

namespace twice {

enum class arrival_kind : std::uint8_t { even, poisson };

// One entry of a workload's mix: a job type and its weight. No type: the
// built-in agent job.
struct weighted_type {
  std::optional<job_type> type;
  std::uint32_t weight = 1;
};

struct workload_spec {
  std::int64_t count = 0;
  sim::instant start;
  sim::duration interval = sim::duration::from_s(1);  // even: the spacing; poisson: the mean gap
  arrival_kind arrival = arrival_kind::even;
  std::int64_t amount_lo = 0;  // amounts drawn uniformly from [lo, hi] cents
  std::int64_t amount_hi = 0;
  std::uint32_t email_ppm = 0;  // the chance a job emails its customer, in parts per million
  std::string id_prefix = "gen_";
  // The mix jobs are drawn from, by weight; empty: every job is the agent job.
  std::vector<weighted_type> types;
  // Poisson arrivals saturate here: a gap past it is already "never" (the
  // loader sets its ten-year limit on instants; this is the same).
  sim::instant last = sim::instant::epoch() + sim::duration::from_s(87'600LL * 3600);
};

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

// "gen_1" for ordinal 0: ids count from 1, as people number jobs.
std::string generated_job_id(const workload_spec& spec, std::int64_t ordinal);
// The ordinal of the generated job `id` names, if it names one: the prefix,
// then 1..count in decimal without leading zeros.
std::optional<std::int64_t> generated_ordinal(const workload_spec& spec, std::string_view id);
// Whether the mix's entry `type` is the agent job (always, with no mix).
bool is_agent(const workload_spec& spec, std::uint16_t type);
// The job `g` stands for: the agent job with invoice "inv_" + its id, or a
// job of its drawn type.
job_spec generated_spec(const workload_spec& spec, const generated_job& g);

}  // namespace twice
