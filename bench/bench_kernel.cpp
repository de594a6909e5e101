// Kernel throughput: events per second under the classic "hold model".
//
// A fixed population of N pending events; each step takes the earliest one
// and schedules a replacement at (its time + increment). Three versions do
// exactly the same work, event for event:
//   bare_heap        std::priority_queue of (time, sequence): the floor that
//                    no kernel beats (no dispatch, no bookkeeping);
//   kernel_timer     kernel callbacks that reschedule themselves with
//                    schedule_after (the kernel's timer path);
//   kernel_coroutine N processes looping `co_await sleep_for(increment)`.
// All three start with N events at time 0 and draw increments, in dispatch
// order, from one table of pseudo-random values (splitmix64, fixed seed).
// Ties are broken by scheduling order in all three, so the schedules are
// identical; main() checks that before running the benchmarks.
//
// Run:  build/bench/twice_bench_kernel            (console + summary table)
// Any --benchmark_* flag works (--benchmark_filter, --benchmark_repetitions,
// --benchmark_out=FILE --benchmark_out_format=json, ...).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include <twice/sim/kernel.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>

namespace {

using twice::sim::duration;
using twice::sim::instant;
using twice::sim::kernel;
using twice::sim::run_result;
using twice::sim::sleep_for;
using twice::sim::stop_reason;
using twice::sim::task;

constexpr std::size_t kTableSize = std::size_t{1} << 16;
constexpr std::size_t kTableMask = kTableSize - 1;
constexpr std::uint64_t kChunk = std::uint64_t{1} << 14;  // events per benchmark iteration
constexpr std::int64_t kMaxIncrementUs = 2'000;           // increments are 1..2000 us

// ---- the shared increment table --------------------------------------------

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const std::int64_t* increments() {
  static const std::vector<std::int64_t> table = [] {
    std::vector<std::int64_t> t(kTableSize);
    std::uint64_t state = 0x7477696365ULL;  // "twice"
    for (std::int64_t& v : t)
      v = 1 + static_cast<std::int64_t>(splitmix64(state) % static_cast<std::uint64_t>(kMaxIncrementUs));
    return t;
  }();
  return table.data();
}

// Walks the table in dispatch order; shared by every event of one model.
struct increment_cursor {
  const std::int64_t* table = increments();
  std::size_t next = 0;
  std::int64_t take() { return table[next++ & kTableMask]; }
};

// Fold of the dispatch times, only for the schedule check in main().
std::uint64_t mix(std::uint64_t h, std::int64_t t) { return (h ^ static_cast<std::uint64_t>(t)) * 0x100000001b3ULL; }

// Warm-up before timing: a hold model starting with everything at time 0
// needs a few rounds of the population to reach its steady-state shape.
std::uint64_t warmup_events(std::size_t population) {
  return std::max<std::uint64_t>(4 * static_cast<std::uint64_t>(population), 65'536);
}

// ---- 1. bare heap -----------------------------------------------------------

class bare_heap_model {
 public:
  explicit bare_heap_model(std::size_t population) {
    std::vector<item> init;
    init.reserve(population);
    for (std::size_t i = 0; i < population; ++i) init.emplace_back(0, seq_++);
    queue_ = heap(std::greater<>{}, std::move(init));
  }

  template <bool Trace>
  void run(std::uint64_t events) {
    for (std::uint64_t n = 0; n < events; ++n) {
      const std::int64_t t = queue_.top().first;
      queue_.pop();
      if constexpr (Trace) trace_ = mix(trace_, t);
      now_ = t;
      queue_.emplace(t + inc_.take(), seq_++);
    }
  }

  std::int64_t now() const { return now_; }
  std::uint64_t trace() const { return trace_; }

 private:
  using item = std::pair<std::int64_t, std::uint64_t>;
  using heap = std::priority_queue<item, std::vector<item>, std::greater<>>;
  heap queue_;
  std::uint64_t seq_ = 0;
  std::int64_t now_ = 0;
  increment_cursor inc_;
  std::uint64_t trace_ = 0;
};

// ---- 2. kernel timer path ---------------------------------------------------

struct timer_ctx {
  increment_cursor inc;
  std::uint64_t trace = 0;
};

template <bool Trace>
void on_timer(kernel& k, void* ctx, std::uint64_t arg) {
  timer_ctx& c = *static_cast<timer_ctx*>(ctx);
  if constexpr (Trace) c.trace = mix(c.trace, k.now().us());
  k.schedule_after(duration::from_us(c.inc.take()), &on_timer<Trace>, ctx, arg);
}

template <bool Trace>
void start_timers(kernel& k, timer_ctx& ctx, std::size_t population) {
  for (std::size_t i = 0; i < population; ++i) k.schedule_at(instant::epoch(), &on_timer<Trace>, &ctx, i);
}

// ---- 3. kernel coroutine path -----------------------------------------------

template <bool Trace>
task<void> holder(kernel* k, timer_ctx* c) {
  for (;;) {
    if constexpr (Trace) c->trace = mix(c->trace, k->now().us());
    co_await sleep_for(duration::from_us(c->inc.take()));
  }
}

template <bool Trace>
void start_holders(kernel& k, timer_ctx& ctx, std::size_t population) {
  for (std::size_t i = 0; i < population; ++i) k.spawn(holder<Trace>(&k, &ctx));
}

// Runs `events` events in chunks; false if the kernel stopped for any reason
// other than the event budget (it never should: the population is constant).
bool run_kernel(kernel& k, std::uint64_t events) {
  const run_result r = k.run({.max_events = events});
  return r.reason == stop_reason::event_budget && r.events == events;
}

// ---- the benchmarks ---------------------------------------------------------

void bare_heap(benchmark::State& state) {
  const auto population = static_cast<std::size_t>(state.range(0));
  bare_heap_model m(population);
  m.run<false>(warmup_events(population));
  std::uint64_t events = 0;
  for (auto _ : state) {
    m.run<false>(kChunk);
    events += kChunk;
  }
  benchmark::DoNotOptimize(m.now());
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

void kernel_timer(benchmark::State& state) {
  const auto population = static_cast<std::size_t>(state.range(0));
  kernel k;
  timer_ctx ctx;
  start_timers<false>(k, ctx, population);
  if (!run_kernel(k, warmup_events(population))) state.SkipWithError("kernel stopped early");
  std::uint64_t events = 0;
  for (auto _ : state) {
    const run_result r = k.run({.max_events = kChunk});
    if (r.reason != stop_reason::event_budget) {
      state.SkipWithError("kernel stopped early");
      break;
    }
    events += r.events;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

void kernel_coroutine(benchmark::State& state) {
  const auto population = static_cast<std::size_t>(state.range(0));
  kernel k;
  timer_ctx ctx;
  start_holders<false>(k, ctx, population);
  if (!run_kernel(k, warmup_events(population))) state.SkipWithError("kernel stopped early");
  std::uint64_t events = 0;
  for (auto _ : state) {
    const run_result r = k.run({.max_events = kChunk});
    if (r.reason != stop_reason::event_budget) {
      state.SkipWithError("kernel stopped early");
      break;
    }
    events += r.events;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

constexpr std::int64_t kSmallPopulation = 1'024;
constexpr std::int64_t kLargePopulation = 65'536;

BENCHMARK(bare_heap)->Arg(kSmallPopulation)->Arg(kLargePopulation)->Unit(benchmark::kMicrosecond);
BENCHMARK(kernel_timer)->Arg(kSmallPopulation)->Arg(kLargePopulation)->Unit(benchmark::kMicrosecond);
BENCHMARK(kernel_coroutine)->Arg(kSmallPopulation)->Arg(kLargePopulation)->Unit(benchmark::kMicrosecond);

// ---- "same work" check ------------------------------------------------------

struct schedule_digest {
  std::int64_t now_us = 0;
  std::uint64_t trace = 0;
  std::size_t increments_used = 0;
  friend bool operator==(const schedule_digest&, const schedule_digest&) = default;
};

bool check_same_schedule(std::size_t population, std::uint64_t events) {
  schedule_digest heap_d, timer_d, coro_d;
  {
    bare_heap_model m(population);
    m.run<true>(events);
    heap_d = {m.now(), m.trace(), static_cast<std::size_t>(events)};
  }
  {
    kernel k;
    timer_ctx ctx;
    start_timers<true>(k, ctx, population);
    if (!run_kernel(k, events)) return false;
    timer_d = {k.now().us(), ctx.trace, ctx.inc.next};
  }
  {
    kernel k;
    timer_ctx ctx;
    start_holders<true>(k, ctx, population);
    if (!run_kernel(k, events)) return false;
    coro_d = {k.now().us(), ctx.trace, ctx.inc.next};
  }
  const bool same = heap_d == timer_d && heap_d == coro_d;
  std::printf("schedule check (N=%zu, %llu events): %s (final time %lld us, digest %016llx)\n", population,
              static_cast<unsigned long long>(events), same ? "all three models agree" : "MODELS DIFFER",
              static_cast<long long>(heap_d.now_us), static_cast<unsigned long long>(heap_d.trace));
  if (!same) {
    std::printf("  bare_heap        now=%lld digest=%016llx\n", static_cast<long long>(heap_d.now_us),
                static_cast<unsigned long long>(heap_d.trace));
    std::printf("  kernel_timer     now=%lld digest=%016llx\n", static_cast<long long>(timer_d.now_us),
                static_cast<unsigned long long>(timer_d.trace));
    std::printf("  kernel_coroutine now=%lld digest=%016llx\n", static_cast<long long>(coro_d.now_us),
                static_cast<unsigned long long>(coro_d.trace));
  }
  return same;
}

// ---- summary ----------------------------------------------------------------

// The normal console output, plus a note of each benchmark's events/s. With
// --benchmark_repetitions the median aggregate wins over single repetitions.
class summary_reporter : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& reports) override {
    benchmark::ConsoleReporter::ReportRuns(reports);
    for (const Run& r : reports) {
      if (r.error_occurred) continue;
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      if (r.run_type == Run::RT_Aggregate && !median) continue;
      const auto it = r.counters.find("items_per_second");
      if (it == r.counters.end()) continue;
      result& slot = results_[{r.run_name.args, r.run_name.function_name}];
      if (slot.from_median && !median) continue;
      slot = {it->second.value, median, true};
    }
  }

  // events/s, or a negative value when the benchmark did not run.
  double rate(const std::string& args, const std::string& name) const {
    const auto it = results_.find({args, name});
    return it == results_.end() || !it->second.present ? -1.0 : it->second.rate;
  }

  std::vector<std::string> populations() const {
    std::vector<std::string> out;
    for (const auto& [key, value] : results_)
      if (std::find(out.begin(), out.end(), key.first) == out.end()) out.push_back(key.first);
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;  // numeric order
    });
    return out;
  }

 private:
  struct result {
    double rate = 0;
    bool from_median = false;
    bool present = false;
  };
  std::map<std::pair<std::string, std::string>, result> results_;  // (args, function) -> events/s
};

constexpr double kTargetEventsPerSecond = 10e6;
constexpr double kTargetRatio = 0.5;

void print_cell(double millions) {
  if (millions < 0)
    std::printf(" %12s", "-");
  else
    std::printf(" %12.2f", millions);
}

void print_summary(const summary_reporter& rep) {
  const std::vector<std::string> pops = rep.populations();
  if (pops.empty()) return;
  std::printf("\nSummary: hold model, events per second in millions (ratio = kernel / bare_heap)\n");
  std::printf("%-10s %12s %12s %12s %12s %12s\n", "pending", "bare_heap", "kernel_timer", "kernel_coro", "timer/heap",
              "coro/heap");
  for (const std::string& p : pops) {
    const double heap = rep.rate(p, "bare_heap");
    const double timer = rep.rate(p, "kernel_timer");
    const double coro = rep.rate(p, "kernel_coroutine");
    std::printf("%-10s", p.c_str());
    print_cell(heap < 0 ? -1 : heap / 1e6);
    print_cell(timer < 0 ? -1 : timer / 1e6);
    print_cell(coro < 0 ? -1 : coro / 1e6);
    print_cell(heap > 0 && timer >= 0 ? timer / heap : -1);
    print_cell(heap > 0 && coro >= 0 ? coro / heap : -1);
    std::printf("\n");
  }
  std::printf("\nTargets for the kernel timer path: >= %.0f M events/s and >= %.1fx bare_heap\n",
              kTargetEventsPerSecond / 1e6, kTargetRatio);
  for (const std::string& p : pops) {
    const double heap = rep.rate(p, "bare_heap");
    const double timer = rep.rate(p, "kernel_timer");
    std::printf("  pending %-8s ", p.c_str());
    if (timer < 0) {
      std::printf("rate: not measured");
    } else {
      std::printf("rate: %.2f M/s %s", timer / 1e6, timer >= kTargetEventsPerSecond ? "MET" : "MISSED");
    }
    std::printf("   ");
    if (timer < 0 || heap <= 0) {
      std::printf("ratio: not measured");
    } else {
      std::printf("ratio: %.2fx %s", timer / heap, timer / heap >= kTargetRatio ? "MET" : "MISSED");
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!check_same_schedule(1'024, 200'000)) return 1;
  std::fflush(stdout);

  summary_reporter reporter(isatty(STDOUT_FILENO) != 0 ? benchmark::ConsoleReporter::OO_Color
                                                       : benchmark::ConsoleReporter::OO_None);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::fflush(stdout);
  print_summary(reporter);
  benchmark::Shutdown();
  return 0;
}
