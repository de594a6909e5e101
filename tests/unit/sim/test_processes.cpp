// Coroutine processes: spawn, sleep, nested tasks, signals with deadlines,
// channels, kill semantics and exceptions.

#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/channel.hpp"
#include <twice/sim/condition.hpp>
#include <twice/sim/signal.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/sim/task.hpp>

using namespace twice::sim;
using namespace twice::sim::literals;

namespace {
// Every frame that holds one must release it when destroyed, killed or not.
struct counted {
  static inline int live = 0;
  counted() { ++live; }
  counted(const counted&) { ++live; }
  ~counted() { --live; }
};

using story = std::vector<std::string>;

std::string at(kernel& k, const std::string& what) { return std::to_string(k.now().us()) + " " + what; }

task<int> slow_double(kernel& k, story& s, int x) {
  counted guard;
  s.push_back(at(k, "child starts"));
  co_await sleep_for(1_s);
  s.push_back(at(k, "child wakes"));
  co_return x * 2;
}

task<void> parent(kernel& k, story& s) {
  counted guard;
  const int v = co_await slow_double(k, s, 21);
  s.push_back(at(k, "parent got " + std::to_string(v)));
}
}  // namespace

TEST_CASE("a process runs nested tasks as a straight story", "[processes]") {
  kernel k;
  story s;
  k.spawn(parent(k, s), "parent");
  CHECK(k.live_processes() == 1);
  const run_result r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(s == story{"0 child starts", "1000000 child wakes", "1000000 parent got 42"});
  CHECK(k.live_processes() == 0);
  CHECK(counted::live == 0);
}

TEST_CASE("spawned processes start at the spawn time, in spawn order", "[processes]") {
  kernel k;
  story s;
  auto body = [](kernel& kk, story& ss, std::string name) -> task<void> {
    ss.push_back(at(kk, name));
    co_await sleep_for(duration::zero());  // yields behind the others
    ss.push_back(at(kk, name + " again"));
  };
  k.spawn(body(k, s, "a"));
  k.spawn(body(k, s, "b"));
  k.run();
  CHECK(s == story{"0 a", "0 b", "0 a again", "0 b again"});
}

TEST_CASE("kill destroys a process at its suspension point and releases every frame", "[processes]") {
  kernel k;
  story s;
  const process_id p = k.spawn(parent(k, s), "victim");
  k.run({.until = instant::from_us(500'000)});  // suspended inside the child
  CHECK(counted::live == 2);                    // parent's and child's guards
  CHECK(k.kill(p));
  CHECK(counted::live == 0);
  CHECK_FALSE(k.alive(p));
  CHECK_FALSE(k.kill(p));  // already gone
  const run_result r = k.run();
  // Its pending timer was skipped: nothing after the suspension point ran.
  CHECK(r.events == 0);
  CHECK(s == story{"0 child starts"});
}

TEST_CASE("a killed process's id never names the slot's next occupant", "[processes]") {
  kernel k;
  story s;
  const process_id first = k.spawn(parent(k, s));
  k.run({.until = instant::from_us(1)});
  k.kill(first);
  const process_id second = k.spawn(parent(k, s));
  CHECK(second.index == first.index);
  CHECK_FALSE(k.alive(first));
  CHECK(k.alive(second));
  CHECK_FALSE(k.kill(first));
  CHECK(k.alive(second));
  k.run();
  CHECK(s.back() == "1000001 parent got 42");
}

TEST_CASE("a process killing itself dies at its next suspension", "[processes]") {
  kernel k;
  story s;
  auto body = [](kernel& kk, story& ss) -> task<void> {
    counted guard;
    ss.push_back("before");
    kk.kill(kk.current());
    ss.push_back("runs until it suspends");
    co_await sleep_for(1_s);
    ss.push_back("never");
  };
  k.spawn(body(k, s));
  k.run();
  CHECK(s == story{"before", "runs until it suspends"});
  CHECK(counted::live == 0);
  CHECK(k.live_processes() == 0);
}

TEST_CASE("a kernel destroyed with live processes releases their frames", "[processes]") {
  story s;
  {
    kernel k;
    k.spawn(parent(k, s));
    k.spawn(parent(k, s));
    k.run({.until = instant::from_us(10)});
    CHECK(counted::live == 4);
  }
  CHECK(counted::live == 0);
}

TEST_CASE("a signal wakes every waiter in waiting order", "[processes]") {
  kernel k;
  signal go(k);
  story s;
  auto waiter = [](kernel& kk, signal& g, story& ss, std::string name) -> task<void> {
    co_await g.wait();
    ss.push_back(at(kk, name));
  };
  k.spawn(waiter(k, go, s, "a"));
  k.spawn(waiter(k, go, s, "b"));
  k.schedule_at(
      instant::from_us(70), [](kernel&, void* g, std::uint64_t) { static_cast<signal*>(g)->trigger(); }, &go);
  k.run();
  CHECK(s == story{"70 a", "70 b"});
  CHECK(go.is_set());
}

TEST_CASE("waiting on a triggered signal does not suspend", "[processes]") {
  kernel k;
  signal go(k);
  go.trigger();
  bool fired = false;
  auto body = [](signal& g, bool& f) -> task<void> { f = co_await g.wait_for(5_s); };
  k.spawn(body(go, fired));
  k.run();
  CHECK(fired);
  CHECK(k.now() == instant::epoch());
}

namespace {
struct race {
  kernel k;
  signal sig{k};
  std::optional<bool> fired;
  instant woke;
};

task<void> wait_five(race& r) {
  r.fired = co_await r.sig.wait_for(5_us);
  r.woke = r.k.now();
}

void fire(kernel&, void* ctx, std::uint64_t) { static_cast<race*>(ctx)->sig.trigger(); }
}  // namespace

TEST_CASE("wait with timeout: signal before the deadline wins", "[processes]") {
  race r;
  r.k.spawn(wait_five(r));
  r.k.schedule_at(instant::from_us(3), fire, &r);
  r.k.run();
  CHECK(r.fired == true);
  CHECK(r.woke == instant::from_us(3));
}

TEST_CASE("wait with timeout: the deadline passes first", "[processes]") {
  race r;
  r.k.spawn(wait_five(r));
  r.k.schedule_at(instant::from_us(9), fire, &r);
  r.k.run();
  CHECK(r.fired == false);
  CHECK(r.woke == instant::from_us(5));
}

TEST_CASE("wait with timeout: a tie at the same instant goes to whichever is dispatched first", "[processes]") {
  SECTION("the trigger was scheduled before the wait began: the signal wins") {
    race r;
    r.k.schedule_at(instant::from_us(5), fire, &r);  // sequence before the deadline timer
    r.k.spawn(wait_five(r));
    r.k.run();
    CHECK(r.fired == true);
    CHECK(r.woke == instant::from_us(5));
  }
  SECTION("the trigger was scheduled after the wait began: the timeout wins") {
    race r;
    r.k.spawn(wait_five(r));
    r.k.run({.until = instant::epoch()});            // the wait and its timer exist now
    r.k.schedule_at(instant::from_us(5), fire, &r);  // sequence after the deadline timer
    r.k.run();
    CHECK(r.fired == false);
    CHECK(r.woke == instant::from_us(5));
  }
}

TEST_CASE("a timed-out waiter is not woken again by a later trigger", "[processes]") {
  race r;
  int wakes = 0;
  auto body = [](race& rr, int& w) -> task<void> {
    co_await rr.sig.wait_for(5_us);
    ++w;
    co_await sleep_for(100_us);
    ++w;
  };
  r.k.spawn(body(r, wakes));
  r.k.schedule_at(instant::from_us(10), fire, &r);
  r.k.run();
  CHECK(wakes == 2);
  CHECK(r.k.now() == instant::from_us(105));
}

TEST_CASE("a channel hands values to receivers in FIFO order", "[processes]") {
  kernel k;
  channel<int> ch(k, 2);
  story s;
  auto receiver = [](kernel& kk, channel<int>& c, story& ss, std::string name) -> task<void> {
    for (int i = 0; i < 2; ++i) {
      const std::optional<int> v = co_await c.receive();
      ss.push_back(at(kk, name + "=" + std::to_string(*v)));
    }
  };
  k.spawn(receiver(k, ch, s, "a"));
  k.spawn(receiver(k, ch, s, "b"));
  k.run();  // both now wait
  CHECK(ch.try_send(1));
  CHECK(ch.try_send(2));
  CHECK(ch.try_send(3));
  CHECK(ch.try_send(4));
  CHECK(ch.size() == 2);
  CHECK(ch.try_send(5) == false);  // bounded: a full channel refuses
  k.run();
  // 1 and 2 went to the waiting receivers; 3 and 4 were queued, and a takes
  // 3 as soon as it asks again, before b has even resumed.
  CHECK(s == story{"0 a=1", "0 a=3", "0 b=2", "0 b=4"});
  CHECK(ch.size() == 0);
}

TEST_CASE("a long-poll receive returns a value as soon as it arrives, or nothing at the deadline", "[processes]") {
  kernel k;
  channel<std::string> ch(k, 8);
  story s;
  auto poller = [](kernel& kk, channel<std::string>& c, story& ss) -> task<void> {
    for (int i = 0; i < 2; ++i) {
      const auto v = co_await c.receive_for(20_s);
      ss.push_back(at(kk, v ? *v : std::string("empty")));
    }
  };
  k.spawn(poller(k, ch, s));
  k.schedule_at(
      instant::from_us(3'000'000),
      [](kernel&, void* c, std::uint64_t) { static_cast<channel<std::string>*>(c)->try_send("hello"); }, &ch);
  k.run();
  CHECK(s == story{"3000000 hello", "23000000 empty"});
}

TEST_CASE("thousands of timed-out receivers leave the waiting ones in their order", "[processes]") {
  // Timed-out waits leave stale entries that the waiter list compacts away
  // while live ones wait on; values still go to the live ones, oldest first.
  kernel k;
  channel<int> ch(k, 4);
  story s;
  auto patient = [](kernel& kk, channel<int>& c, story& ss, std::string name) -> task<void> {
    for (int i = 0; i < 2; ++i) {
      const auto v = co_await c.receive();
      ss.push_back(at(kk, name + "=" + std::to_string(*v)));
    }
  };
  auto hasty = [](channel<int>& c, int polls) -> task<void> {
    for (int i = 0; i < polls; ++i) {
      const auto v = co_await c.receive_for(1_s);
      CHECK_FALSE(v.has_value());
    }
  };
  k.spawn(patient(k, ch, s, "a"));
  for (int i = 0; i < 50; ++i) k.spawn(hasty(ch, 100));  // 5,000 waits that time out, 50 at a time
  k.spawn(patient(k, ch, s, "b"));
  k.schedule_at(
      instant::from_us(200'000'000),
      [](kernel&, void* c, std::uint64_t) {
        auto* chan = static_cast<channel<int>*>(c);
        for (int v = 1; v <= 4; ++v) CHECK(chan->try_send(v));
      },
      &ch);
  k.run();
  // a waited first; each then takes a queued value as soon as it asks again.
  CHECK(s == story{"200000000 a=1", "200000000 a=3", "200000000 b=2", "200000000 b=4"});
}

TEST_CASE("a value is never handed to a receiver that was killed while waiting", "[processes]") {
  kernel k;
  channel<int> ch(k, 4);
  story s;
  auto receiver = [](kernel& kk, channel<int>& c, story& ss, std::string name) -> task<void> {
    counted guard;
    const auto v = co_await c.receive();
    ss.push_back(at(kk, name + "=" + std::to_string(*v)));
  };
  const process_id a = k.spawn(receiver(k, ch, s, "a"));
  k.spawn(receiver(k, ch, s, "b"));
  k.run();
  k.kill(a);
  CHECK(ch.try_send(7));
  k.run();
  CHECK(s == story{"0 b=7"});
  CHECK(counted::live == 0);
}

TEST_CASE("an exception escaping a process surfaces from run; one inside a task reaches its awaiter", "[processes]") {
  kernel k;
  auto thrower = []() -> task<int> {
    co_await sleep_for(1_us);
    throw std::runtime_error("vendor exploded");
  };
  std::string caught;
  auto catcher = [&thrower](std::string& c) -> task<void> {
    try {
      co_await thrower();
    } catch (const std::runtime_error& e) {
      c = e.what();
    }
  };
  k.spawn(catcher(caught));
  k.run();
  CHECK(caught == "vendor exploded");

  auto escaper = [&thrower]() -> task<void> { co_await thrower(); };
  k.spawn(escaper());
  CHECK_THROWS_WITH(k.run(), "vendor exploded");
  CHECK(k.live_processes() == 0);
}

TEST_CASE("a condition wakes one waiter per notify, and waits can time out", "[processes]") {
  kernel k;
  condition cond(k);
  story s;
  auto waiter = [](kernel& kk, condition& c, story& ss, std::string name) -> task<void> {
    const bool notified = co_await c.wait_until(instant::from_us(50));
    ss.push_back(at(kk, name + (notified ? " notified" : " timed out")));
  };
  k.spawn(waiter(k, cond, s, "a"));
  k.spawn(waiter(k, cond, s, "b"));
  k.run({.until = instant::from_us(10)});
  CHECK(cond.notify_one());
  k.run();
  CHECK(s == story{"10 a notified", "50 b timed out"});
  CHECK_FALSE(cond.notify_one());  // nobody waits: the notify is lost
}

TEST_CASE("a process parked for good ends only when killed", "[processes]") {
  kernel k;
  bool after = false;
  auto body = [](bool& a) -> task<void> {
    counted guard;
    co_await suspend_forever{};
    a = true;
  };
  const process_id p = k.spawn(body(after));
  const run_result r = k.run();
  CHECK(r.reason == stop_reason::quiescent);
  CHECK(k.alive(p));
  CHECK(counted::live == 1);
  k.kill(p);
  CHECK(counted::live == 0);
  CHECK_FALSE(after);
}
