#pragma once
// A generated workload's settings ([workload] in a scenario), and the ids
// its jobs are given. runtime/workload.hpp (src/) draws the jobs.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/runtime/job_type.hpp>
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

// "gen_1" for ordinal 0: ids count from 1, as people number jobs.
std::string generated_job_id(const workload_spec& spec, std::int64_t ordinal);
// The ordinal of the generated job `id` names, if it names one: the prefix,
// then 1..count in decimal without leading zeros.
std::optional<std::int64_t> generated_ordinal(const workload_spec& spec, std::string_view id);
// Whether the mix's entry `type` is the agent job (always, with no mix).
bool is_agent(const workload_spec& spec, std::uint16_t type);

}  // namespace twice
