// World throughput (Google Benchmark):
//   steady_world        the steady-traffic scenario (bench/scenarios/steady_traffic.toml,
//                       10,000 jobs, 50 pods, heartbeats, 1% vendor 503s, lognormal
//                       latencies) with the invariant checkers and a digest-only trace:
//                       simulated events and jobs per wall second;
//   double_refund_fixed complete runs of scenarios/double_refund_fixed.toml in one
//                       process (world, checkers, verdicts: the unit of exploration),
//                       with the scenario loaded once, and loaded from its text each
//                       run as `twice explore` does;
//   digest_floor        XXH3 over the binary encoding of the steady world's typed
//                       events (1,000 jobs, recorded once; the trace digest's
//                       definition, src/events/event_digest.hpp): the digest's
//                       cost per job, and so the most jobs per second any world
//                       that keeps the digest can reach.
// Every run must end every job with every invariant held (and the double refund
// must give its pinned digest), or the benchmark reports an error: a fast wrong
// world is not a result.
//
// Run:  build-bench/bench/twice_bench_world   (console + summary with the targets)

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bench/steady_world.hpp"
#include "explore/probe.hpp"
#include <twice/events/event_digest.hpp>
#include <twice/world/world.hpp>

namespace {

const std::string kSteady = TWICE_SOURCE_DIR "/bench/scenarios/steady_traffic.toml";
const std::string kDoubleRefund = TWICE_SOURCE_DIR "/scenarios/double_refund_fixed.toml";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void steady_world(benchmark::State& state) {
  const twice::scenario sc = twice::bench::load_steady(kSteady, static_cast<std::uint64_t>(state.range(0)));
  std::uint64_t events = 0;
  std::uint64_t jobs = 0;
  for (auto _ : state) {
    state.PauseTiming();  // copying the 10,000 job specs is not the world's work
    twice::world_config config = sc.world;
    state.ResumeTiming();
    const twice::bench::steady_run r = twice::bench::run_digest_only(std::move(config));
    if (!r.all_jobs_ended || !r.invariants_held) {
      state.SkipWithError("the steady world broke an invariant or left a job open");
      return;
    }
    events += r.events;
    jobs += r.jobs;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["jobs_per_second"] = benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsRate);
  state.counters["events_per_job"] = static_cast<double>(events) / static_cast<double>(jobs);
}
BENCHMARK(steady_world)->Arg(10'000)->Unit(benchmark::kMillisecond)->UseRealTime();

bool verdicts_ok(const twice::explore::probe_result& r) {
  if (!r.loaded) return false;
  for (const twice::verdict& v : r.verdicts)
    if (!v.held) return false;
  return true;
}

void double_refund_fixed_loaded_once(benchmark::State& state) {
  const twice::load_result loaded = twice::load_scenario_file(kDoubleRefund);
  if (!loaded.ok()) {
    state.SkipWithError("scenarios/double_refund_fixed.toml did not load");
    return;
  }
  for (auto _ : state) {
    const twice::explore::probe_result r = twice::explore::probe(*loaded.value);
    if (!verdicts_ok(r)) {
      state.SkipWithError("double_refund_fixed broke an invariant");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(double_refund_fixed_loaded_once)->Unit(benchmark::kMicrosecond);

void double_refund_fixed_from_text(benchmark::State& state) {
  const std::string text = read_file(kDoubleRefund);
  for (auto _ : state) {
    const twice::explore::probe_result r = twice::explore::probe_text(text, kDoubleRefund);
    if (!verdicts_ok(r)) {
      state.SkipWithError("double_refund_fixed did not load or broke an invariant");
      return;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(double_refund_fixed_from_text)->Unit(benchmark::kMicrosecond);

// What the digest alone costs per job: XXH3 over the steady world's events,
// encoded as the run encodes them (checked to give the run's digest).
void digest_floor(benchmark::State& state) {
  twice::scenario sc = twice::bench::load_steady(kSteady, 1'000);
  sc.world.trace_retention = twice::sim::trace_recorder::retention::keep_records;
  twice::world w(std::move(sc.world));
  const twice::world_result result = w.run();
  const twice::event_log& log = w.events();
  auto digest_of_events = [&] {
    twice::event_digest d;
    for (const twice::ev::event& e : log.events()) d.add(e, log.names());
    return d.value();
  };
  if (!result.all_jobs_ended || digest_of_events() != result.trace_digest) {
    state.SkipWithError("the steady world's events do not give its digest");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(digest_of_events());
  const double jobs = static_cast<double>(state.iterations()) * 1'000;
  state.counters["events_per_job"] = static_cast<double>(log.size()) / 1'000;
  state.counters["jobs_per_second"] = benchmark::Counter(jobs, benchmark::Counter::kIsRate);
}
BENCHMARK(digest_floor)->Unit(benchmark::kMillisecond)->UseRealTime();

// The console output, plus each benchmark's rates for the summary; with
// --benchmark_repetitions the median aggregate wins.
class summary_reporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& reports) override {
    benchmark::ConsoleReporter::ReportRuns(reports);
    for (const Run& r : reports) {
      if (r.error_occurred) continue;
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (r.run_type == Run::RT_Aggregate && !median) continue;
      for (const auto& [name, counter] : r.counters) {
        entry& e = rates_[r.run_name.function_name + "/" + name];
        if (e.from_median && !median) continue;
        e = {counter.value, median};
      }
    }
  }

  double get(const std::string& key) const {
    const auto it = rates_.find(key);
    return it == rates_.end() ? -1.0 : it->second.value;
  }

 private:
  struct entry {
    double value = 0;
    bool from_median = false;
  };
  std::map<std::string, entry> rates_;
};

void print_target(const char* what, double value, double target, const char* unit) {
  if (value < 0) {
    std::printf("  %-44s not measured\n", what);
    return;
  }
  if (target < 0) {
    std::printf("  %-44s %14.0f %-8s\n", what, value, unit);
    return;
  }
  std::printf("  %-44s %14.0f %-8s target >= %.0f: %s\n", what, value, unit, target,
              value >= target ? "MET" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  summary_reporter reporter(isatty(STDOUT_FILENO) != 0 ? benchmark::ConsoleReporter::OO_Color
                                                       : benchmark::ConsoleReporter::OO_None);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::fflush(stdout);
  std::printf("\nSummary: the world\n");
  print_target("steady world, simulated events per second", reporter.get("steady_world/items_per_second"), -1, "ev/s");
  print_target("steady world, jobs per second", reporter.get("steady_world/jobs_per_second"), 1e6, "jobs/s");
  print_target("double_refund_fixed runs/s (loaded once)",
               reporter.get("double_refund_fixed_loaded_once/items_per_second"), 1e4, "runs/s");
  print_target("double_refund_fixed runs/s (from text)", reporter.get("double_refund_fixed_from_text/items_per_second"),
               1e4, "runs/s");
  print_target("events per job (steady world)", reporter.get("digest_floor/events_per_job"), -1, "events");
  print_target("digest alone: most jobs/s a world can reach", reporter.get("digest_floor/jobs_per_second"), -1,
               "jobs/s");
  benchmark::Shutdown();
  return 0;
}
