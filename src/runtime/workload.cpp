#include "runtime/workload.hpp"

#include <charconv>

#include <twice/sim/distributions.hpp>
#include <twice/sim/check.hpp>

namespace twice {

workload_generator::workload_generator(std::uint64_t seed, const workload_spec& spec)
    : spec_(spec), rng_(sim::random_root(seed).stream("workload")), t_(spec.start) {}

generated_job workload_generator::next() {
  TWICE_CHECK(!done());
  generated_job g;
  g.ordinal = next_++;
  if (spec_.arrival == arrival_kind::poisson) {
    const sim::duration gap = sim::exponential_duration(rng_, spec_.interval);
    t_ = gap > spec_.last - t_ ? spec_.last : t_ + gap;  // saturate: a ten-year gap is already "never"
  } else {
    t_ = spec_.start + spec_.interval * g.ordinal;
  }
  g.enqueue_at = t_;
  if (spec_.types.size() > 1) {
    std::uint64_t total = 0;
    for (const weighted_type& w : spec_.types) total += w.weight;
    auto pick = static_cast<std::uint64_t>(sim::uniform_int(rng_, 0, static_cast<std::int64_t>(total) - 1));
    while (pick >= spec_.types[g.type].weight) pick -= spec_.types[g.type++].weight;
  }
  if (!is_agent(spec_, g.type)) return g;
  g.amount_cents =
      spec_.amount_lo == spec_.amount_hi ? spec_.amount_lo : sim::uniform_int(rng_, spec_.amount_lo, spec_.amount_hi);
  g.email = spec_.email_ppm == sim::ppm_denominator ||
            (spec_.email_ppm > 0 && sim::bernoulli(rng_, spec_.email_ppm, sim::ppm_denominator));
  return g;
}

std::string generated_job_id(const workload_spec& spec, std::int64_t ordinal) {
  // One allocation at most (none while the id fits the small string), not a
  // number's own string and then the concatenation: every spec made starts here.
  char digits[20];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, ordinal + 1);
  TWICE_CHECK(ec == std::errc{});
  std::string id;
  id.reserve(spec.id_prefix.size() + static_cast<std::size_t>(end - digits));
  id.append(spec.id_prefix).append(digits, end);
  return id;
}

std::optional<std::int64_t> generated_ordinal(const workload_spec& spec, std::string_view id) {
  if (!id.starts_with(spec.id_prefix)) return std::nullopt;
  const std::string_view digits = id.substr(spec.id_prefix.size());
  if (digits.empty() || digits.front() == '0') return std::nullopt;
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || n < 1 || n > spec.count) return std::nullopt;
  return n - 1;
}

bool is_agent(const workload_spec& spec, std::uint16_t type) {
  return spec.types.empty() || !spec.types.at(type).type.has_value();
}

job_spec generated_spec(const workload_spec& spec, const generated_job& g) {
  std::string id = generated_job_id(spec, g.ordinal);
  if (!is_agent(spec, g.type)) {
    job_spec job = make_job(*spec.types[g.type].type, std::move(id));
    job.enqueue_at = g.enqueue_at;
    return job;
  }
  std::string invoice = "inv_" + id;
  job_spec job = agent_job(std::move(id), std::move(invoice), g.amount_cents, g.email);
  job.enqueue_at = g.enqueue_at;
  return job;
}

}  // namespace twice
