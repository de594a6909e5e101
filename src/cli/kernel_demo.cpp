#include "cli/kernel_demo.hpp"

#include <fmt/core.h>

#include <string>

#include "sim/channel.hpp"
#include "sim/count_text.hpp"
#include <twice/sim/distributions.hpp>
#include "sim/duration_text.hpp"
#include <twice/sim/kernel.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/trace.hpp>

namespace twice::cli {

namespace {
using namespace sim::literals;

struct demo_world {
  sim::kernel kernel;
  sim::trace_recorder trace;
  sim::random_root random;
  sim::channel<std::int64_t> jobs{kernel, 64};
  explicit demo_world(std::uint64_t seed) : random(seed) {}
};

// Sends `count` jobs with exponential gaps (mean 100 ms).
sim::task<void> producer(demo_world& w, int count) {
  sim::random_stream rng = w.random.stream("producer");
  for (std::int64_t job = 1; job <= count; ++job) {
    co_await sim::sleep_for(sim::exponential_duration(rng, 100_ms));
    w.jobs.try_send(job);
    w.trace.record(w.kernel.now(), "producer", "send", {{"job", job}});
  }
}

// Takes jobs and works on each for a lognormal time (p50 150 ms, p99 1 s).
sim::task<void> consumer(demo_world& w, std::string name) {
  sim::random_stream rng = w.random.stream(name);
  const sim::lognormal_params service = sim::lognormal_from_median_p99(150'000, 1'000'000);
  while (true) {
    const std::optional<std::int64_t> job = co_await w.jobs.receive_for(2_s);
    if (!job) {
      w.trace.record(w.kernel.now(), name, "idle");
      co_return;
    }
    w.trace.record(w.kernel.now(), name, "start", {{"job", *job}});
    co_await sim::sleep_for(sim::lognormal_duration(rng, service));
    w.trace.record(w.kernel.now(), name, "done", {{"job", *job}});
  }
}

struct crash_plan {
  demo_world* world;
  sim::process_id victim;
};

void crash(sim::kernel& k, void* ctx, std::uint64_t) {
  auto* plan = static_cast<crash_plan*>(ctx);
  const bool killed = k.kill(plan->victim);
  plan->world->trace.record(k.now(), "faults", "crash", {{"target", std::string("consumer-b")}, {"killed", killed}});
}
}  // namespace

std::string format_clock(sim::instant t) {
  const std::int64_t us = t.us();
  return fmt::format("{}.{:06}s", us / 1'000'000, us % 1'000'000);
}

kernel_story run_kernel_story(std::uint64_t seed) {
  demo_world w(seed);
  w.kernel.spawn(producer(w, 12), "producer");
  w.kernel.spawn(consumer(w, "consumer-a"), "consumer-a");
  crash_plan plan{&w, w.kernel.spawn(consumer(w, "consumer-b"), "consumer-b")};
  w.kernel.schedule_at(sim::instant::epoch() + 600_ms, crash, &plan);
  kernel_story story;
  story.result = w.kernel.run({.max_events = 100'000});
  for (const sim::trace_record& rec : w.trace.records()) {
    std::string line;
    sim::append_canonical(rec, line);
    story.lines.push_back(fmt::format("{:>12}  {}", format_clock(rec.time), line.substr(line.find(' ') + 1)));
  }
  story.digest = w.trace.digest();
  return story;
}

int print_kernel_demo(std::uint64_t seed, bool quiet) {
  const kernel_story story = run_kernel_story(seed);
  fmt::print("twice kernel demo: seed {}\n", seed);
  fmt::print("a producer, two consumers, consumer-b crashes at 0.6s (its job is lost with it)\n\n");
  if (!quiet) {
    for (const std::string& line : story.lines) fmt::print("{}\n", line);
    fmt::print("\n");
  }
  fmt::print("stopped: {} after {} at {}\n", sim::to_string(story.result.reason),
             sim::counted(story.result.events, "event"), format_clock(story.result.now));
  fmt::print("trace: {}, digest {}\n", sim::counted(story.lines.size(), "record"), sim::format_digest(story.digest));
  return 0;
}

}  // namespace twice::cli
