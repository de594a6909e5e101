// The event queue and run loop: (time, sequence) order, the three ways a run
// stops, and the kernel's refusal to go back in time.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <twice/sim/kernel.hpp>

using namespace twice::sim;
using namespace twice::sim::literals;

namespace {
struct log_sink {
  std::vector<std::string> lines;
};

void note(kernel& k, void* ctx, std::uint64_t arg) {
  static_cast<log_sink*>(ctx)->lines.push_back(std::to_string(k.now().us()) + ":" + std::to_string(arg));
}

// Reschedules itself `arg` more times, one microsecond apart.
void chain(kernel& k, void* ctx, std::uint64_t arg) {
  note(k, ctx, arg);
  if (arg > 0) k.schedule_after(1_us, chain, ctx, arg - 1);
}
}  // namespace

TEST_CASE("events run in time order, equal times in scheduling order", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(instant::from_us(20), note, &log, 1);
  k.schedule_at(instant::from_us(10), note, &log, 2);
  k.schedule_at(instant::from_us(20), note, &log, 3);
  k.schedule_at(instant::from_us(10), note, &log, 4);
  k.schedule_at(instant::from_us(0), note, &log, 5);
  const run_result r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(r.events == 5);
  CHECK(r.now == instant::from_us(20));
  CHECK(log.lines == std::vector<std::string>{"0:5", "10:2", "10:4", "20:1", "20:3"});
}

TEST_CASE("a reserved place orders as if the event had been scheduled when it was reserved", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(instant::from_us(10), note, &log, 1);
  struct ctx_t {
    log_sink* log;
    std::uint64_t first;
  } ctx{&log, k.reserve_sequence(2)};
  k.schedule_at(instant::from_us(10), note, &log, 2);
  // Filled in late and out of order, from an event at 5 us.
  k.schedule_at(
      instant::from_us(5),
      [](kernel& kk, void* c, std::uint64_t) {
        auto* x = static_cast<ctx_t*>(c);
        kk.schedule_reserved(instant::from_us(10), x->first + 1, note, x->log, 4);
        kk.schedule_reserved(instant::from_us(10), x->first, note, x->log, 3);
        kk.schedule_at(instant::from_us(10), note, x->log, 5);
      },
      &ctx);
  k.run();
  CHECK(log.lines == std::vector<std::string>{"10:1", "10:3", "10:4", "10:2", "10:5"});
}

TEST_CASE("an event scheduled for now runs after those already queued for now", "[kernel]") {
  kernel k;
  log_sink log;
  struct ctx_t {
    log_sink* log;
  } ctx{&log};
  k.schedule_at(
      instant::from_us(5),
      [](kernel& kk, void* c, std::uint64_t) {
        auto* l = static_cast<ctx_t*>(c)->log;
        l->lines.push_back("first");
        kk.schedule_at(kk.now(), note, l, 99);
      },
      &ctx);
  k.schedule_at(instant::from_us(5), note, &log, 7);
  k.run();
  CHECK(log.lines == std::vector<std::string>{"first", "5:7", "5:99"});
}

TEST_CASE("run stops at the time limit, runs events at exactly the limit, and resumes", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(instant::from_us(10), note, &log, 1);
  k.schedule_at(instant::from_us(20), note, &log, 2);
  k.schedule_at(instant::from_us(30), note, &log, 3);
  run_result r = k.run({.until = instant::from_us(20)});
  CHECK(r.reason == stop_reason::time_limit);
  CHECK(r.events == 2);
  CHECK(r.now == instant::from_us(20));
  CHECK(k.now() == instant::from_us(20));
  CHECK(k.pending() == 1);
  r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(r.events == 1);
  CHECK(log.lines.back() == "30:3");
}

TEST_CASE("an idle clock still advances to the time limit", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(instant::from_us(100), note, &log, 1);
  const run_result r = k.run({.until = instant::from_us(40)});
  CHECK(r.reason == stop_reason::time_limit);
  CHECK(r.events == 0);
  CHECK(k.now() == instant::from_us(40));
}

TEST_CASE("the event budget stops a run that would never end on its own", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(instant::from_us(0), chain, &log, 1'000'000);
  run_result r = k.run({.max_events = 1000});
  CHECK(r.reason == stop_reason::event_budget);
  CHECK(r.events == 1000);
  CHECK(log.lines.size() == 1000);
  CHECK(k.now() == instant::from_us(999));
  // The budget is per call: another call continues from where it stopped.
  r = k.run({.max_events = 10});
  CHECK(r.reason == stop_reason::event_budget);
  CHECK(k.events_dispatched() == 1010);
}

TEST_CASE("an empty kernel is quiescent at once", "[kernel]") {
  kernel k;
  const run_result r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(r.events == 0);
  CHECK(r.now == instant::epoch());
  CHECK(to_string(stop_reason::event_budget) == "event_budget");
}

TEST_CASE("a model can end a run early, leaving later events queued", "[kernel]") {
  kernel k;
  log_sink log;
  k.schedule_at(
      instant::from_us(10),
      [](kernel& kk, void* ctx, std::uint64_t) {
        note(kk, ctx, 1);
        kk.request_stop();
      },
      &log);
  k.schedule_at(instant::from_us(10), note, &log, 2);
  k.schedule_at(instant::from_us(99), note, &log, 3);
  run_result r = k.run();
  CHECK(r.reason == stop_reason::stopped);
  CHECK(r.events == 1);
  CHECK(log.lines == std::vector<std::string>{"10:1"});
  r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(log.lines.size() == 3);
}
