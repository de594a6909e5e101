// A consumer of several queues fetches as Sidekiq does: the order is drawn
// by weight on every fetch (a queue comes first with probability weight /
// total), the first queue of the order with a message gives it, and with
// none the fetch blocks until any of them has one.

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include <twice/events/event_log.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/sleep.hpp>

#include "runtime/weighted_fetch.hpp"

using namespace twice;
using sim::duration;

namespace {

struct three_queues {
  sim::kernel k;
  event_log events{k};
  queue_id_source ids;
  sim::condition any_visible{k};
  queue a{k, events, ids, {.name = "a"}};
  queue b{k, events, ids, {.name = "b"}};
  queue c{k, events, ids, {.name = "c"}};
  three_queues() {
    for (queue* q : {&a, &b, &c}) q->set_watcher(&any_visible);
  }
};

receive_options waiting(duration wait) {
  receive_options o;
  o.wait = wait;
  return o;
}

}  // namespace

TEST_CASE("each fetch's order puts a queue first with probability weight / total, every queue once",
          "[runtime][fetch]") {
  three_queues w;
  const std::vector<weighted_queue> queues{{&w.a, 6}, {&w.b, 3}, {&w.c, 1}};
  sim::random_stream rng(42);
  std::map<const queue*, int> first;
  const int fetches = 20000;
  for (int i = 0; i < fetches; ++i) {
    const std::vector<queue*> order = fetch_order(queues, rng);
    REQUIRE(order.size() == 3);
    CHECK(order[0] != order[1]);
    CHECK(order[1] != order[2]);
    CHECK(order[0] != order[2]);
    ++first[order[0]];
  }
  // 60% / 30% / 10%, within about four standard deviations.
  CHECK(first[&w.a] == Approx(0.6 * fetches).margin(300));
  CHECK(first[&w.b] == Approx(0.3 * fetches).margin(280));
  CHECK(first[&w.c] == Approx(0.1 * fetches).margin(180));
  // The same stream gives the same orders.
  sim::random_stream x(7), y(7);
  for (int i = 0; i < 100; ++i) CHECK(fetch_order(queues, x) == fetch_order(queues, y));
}

TEST_CASE("a fetch takes from the first queue of its order that has a message, else waits for any",
          "[runtime][fetch]") {
  three_queues w;
  const std::vector<weighted_queue> queues{{&w.a, 1}, {&w.b, 1}, {&w.c, 1}};
  sim::random_stream rng(1);
  std::vector<fetched> got;
  std::vector<sim::instant> when;
  const auto consumer = [&]() -> sim::task<void> {
    for (int i = 0; i < 3; ++i) {
      got.push_back(co_await fetch_weighted(w.k, queues, w.any_visible, waiting(duration::from_s(20)), rng));
      when.push_back(w.k.now());
    }
  };
  w.c.send("only_in_c");
  w.k.spawn(consumer());
  // Nothing anywhere: the second fetch blocks until b has a message at 3 s.
  w.k.schedule_at(
      sim::instant::epoch() + duration::from_s(3),
      [](sim::kernel&, void* q, std::uint64_t) { static_cast<queue*>(q)->send("late_in_b"); }, &w.b);
  w.k.run();
  REQUIRE(got.size() == 3);
  CHECK(got[0].source == &w.c);  // whatever the order, only c had one
  CHECK(got[0].messages.at(0).body == "only_in_c");
  CHECK(when[0] == sim::instant::epoch());
  CHECK(got[1].source == &w.b);
  CHECK(when[1] == sim::instant::epoch() + duration::from_s(3));
  // The third waits its 20 s and comes back empty, recorded as an empty receive.
  CHECK(got[2].source == nullptr);
  CHECK(got[2].messages.empty());
  CHECK(when[2] == sim::instant::epoch() + duration::from_s(23));
}
