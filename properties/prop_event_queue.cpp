// The event queue's total order, checked against a reference model: events
// run sorted by time, and equal times in the order they were scheduled, also
// when callbacks schedule more events as they run.

#include <rapidcheck/catch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <twice/sim/kernel.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>

using namespace twice::sim;

namespace {
struct plan {
  // Event i fires at times[i]; when it runs it schedules the follow-ups
  // listed for it, each `offset` later (0 allowed: same instant, later seq).
  std::vector<std::int64_t> times;
  std::vector<std::vector<std::int64_t>> follow_up_offsets;
};

struct run_log {
  const plan* p;
  std::vector<std::int64_t> fired_at;  // time of each dispatched event
  std::vector<std::uint64_t> ids;      // identity in scheduling order
  std::uint64_t next_id = 0;
  std::vector<std::pair<std::int64_t, std::uint64_t>> scheduled;  // (time, id)
};

void follow_up(kernel& k, void* ctx, std::uint64_t id) {
  auto* log = static_cast<run_log*>(ctx);
  log->fired_at.push_back(k.now().us());
  log->ids.push_back(id);
}

void root_event(kernel& k, void* ctx, std::uint64_t id) {
  auto* log = static_cast<run_log*>(ctx);
  follow_up(k, ctx, id);
  const std::size_t index = static_cast<std::size_t>(id >> 32);
  for (std::int64_t off : log->p->follow_up_offsets[index]) {
    const std::uint64_t child = log->next_id++;
    log->scheduled.push_back({k.now().us() + off, child});
    k.schedule_at(k.now() + duration::from_us(off), follow_up, ctx, child);
  }
}
}  // namespace

TEST_CASE("event queue total order", "[properties][kernel]") {
  rc::prop("events dispatch in (time, scheduling order), follow-ups included", [] {
    const auto n = *rc::gen::inRange<std::size_t>(0, 60);
    plan p;
    p.times = *rc::gen::container<std::vector<std::int64_t>>(n, rc::gen::inRange<std::int64_t>(0, 20));
    p.follow_up_offsets = *rc::gen::container<std::vector<std::vector<std::int64_t>>>(
        n, rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 5)));
    for (auto& v : p.follow_up_offsets)
      if (v.size() > 4) v.resize(4);

    kernel k;
    run_log log{&p, {}, {}, 0, {}};
    for (std::size_t i = 0; i < n; ++i) {
      // Root ids carry their plan index in the high bits and sort before
      // every follow-up (which are scheduled later, during the run).
      const std::uint64_t id = (static_cast<std::uint64_t>(i) << 32) | log.next_id++;
      log.scheduled.push_back({p.times[i], id});
      k.schedule_at(instant::from_us(p.times[i]), root_event, &log, id);
    }
    const run_result r = k.run();
    RC_ASSERT(r.reason == stop_reason::quiescent);
    RC_ASSERT(log.ids.size() == log.scheduled.size());
    RC_ASSERT(std::is_sorted(log.fired_at.begin(), log.fired_at.end()));

    // The reference: a stable sort by time of everything in scheduling
    // order (ids' low 32 bits are the scheduling sequence).
    auto expected = log.scheduled;
    std::stable_sort(expected.begin(), expected.end(), [](auto a, auto b) {
      if (a.first != b.first) return a.first < b.first;
      return (a.second & 0xffffffffu) < (b.second & 0xffffffffu);
    });
    for (std::size_t i = 0; i < expected.size(); ++i) RC_ASSERT(log.ids[i] == expected[i].second);
  });

  rc::prop("processes sleeping random durations wake in (wake time, spawn order)", [] {
    const auto sleeps = *rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 10));
    kernel k;
    std::vector<std::size_t> woke;
    auto sleeper = [](std::vector<std::size_t>& w, std::size_t i, std::int64_t us) -> task<void> {
      co_await sleep_for(duration::from_us(us));
      w.push_back(i);
    };
    for (std::size_t i = 0; i < sleeps.size(); ++i) k.spawn(sleeper(woke, i, sleeps[i]));
    k.run();
    std::vector<std::size_t> expected(sleeps.size());
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::size_t a, std::size_t b) { return sleeps[a] < sleeps[b]; });
    RC_ASSERT(woke == expected);
  });
}
