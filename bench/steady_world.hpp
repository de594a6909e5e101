#pragma once
// The steady-traffic world the benchmarks run (bench/scenarios/steady_traffic.toml),
// at any size: the file's workload.count replaced, nothing else. A run keeps
// what `twice explore` keeps — the trace as a digest, and the invariant
// checkers' state — not the records.

#include <cstdint>
#include <string>

#include <twice/scenario/scenario.hpp>

namespace twice::bench {

// The scenario file at workload.count = jobs; exits 2 with the loader's
// messages when it does not load (a benchmark has no use for half a world).
scenario load_steady(const std::string& path, std::uint64_t jobs);

struct steady_run {
  std::uint64_t jobs = 0;
  std::uint64_t events = 0;
  std::uint64_t trace_digest = 0;
  double simulated_seconds = 0;
  bool invariants_held = false;  // every invariant the checker evaluates
  bool all_jobs_ended = false;
};

// One run with the invariant checkers attached and digest-only tracing. The
// config is taken by value: a caller that runs once moves it in, so the jobs
// are not held twice (the scaling driver's peak memory is the world's own).
steady_run run_digest_only(world_config config);

}  // namespace twice::bench
