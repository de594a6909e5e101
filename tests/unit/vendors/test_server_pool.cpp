// The far side's servers and their queue (vendors/server_pool.hpp): who is
// served next, what is dropped, and what a caller sees when a tool with a
// few servers is asked for more than they can do.

#include <catch2/catch.hpp>

#include <vector>

#include "cli/run_command.hpp"
#include "vendors/server_pool.hpp"
#include <twice/scenario/scenario.hpp>

using namespace twice;
using sim::duration;
using sim::instant;

namespace {
instant at_ms(std::int64_t ms) { return instant::epoch() + duration::from_ms(ms); }

std::vector<std::uint32_t> slots(const std::vector<server_pool::waiting>& ws) {
  std::vector<std::uint32_t> out;
  for (const server_pool::waiting& w : ws) out.push_back(w.slot);
  return out;
}
}  // namespace

TEST_CASE("servers take requests until all are busy; the rest wait", "[server_pool]") {
  server_pool pool({.servers = 2});
  CHECK(pool.take());
  CHECK(pool.take());
  CHECK_FALSE(pool.take());
  pool.wait({7, at_ms(1)});
  pool.wait({8, at_ms(2)});
  CHECK(pool.queued() == 2);
  std::vector<server_pool::waiting> dropped;
  // FIFO: the oldest waiting request first; a server with nothing waiting idles.
  CHECK(pool.release(at_ms(10), dropped)->slot == 7);
  CHECK(pool.release(at_ms(11), dropped)->slot == 8);
  CHECK_FALSE(pool.release(at_ms(12), dropped).has_value());
  CHECK(pool.take());  // that server is free again
  CHECK_FALSE(pool.take());
  CHECK(dropped.empty());
}

TEST_CASE("no servers configured: every request is taken at once", "[server_pool]") {
  server_pool pool({});
  for (int i = 0; i < 1000; ++i) CHECK(pool.take());
  std::vector<server_pool::waiting> dropped;
  CHECK_FALSE(pool.release(at_ms(1), dropped).has_value());
}

TEST_CASE("LIFO serves the newest; a queue timeout drops the stale, oldest first", "[server_pool]") {
  server_pool pool({.servers = 1, .queue_timeout = duration::from_ms(100), .order = queue_order::lifo});
  REQUIRE(pool.take());
  for (std::uint32_t s = 1; s <= 4; ++s) pool.wait({s, at_ms(10 * s)});  // arrived at 10, 20, 30, 40 ms
  std::vector<server_pool::waiting> dropped;
  // At 125 ms: 1 and 2 waited 115 and 105 ms (> 100): dropped; 4 is newest.
  CHECK(pool.release(at_ms(125), dropped)->slot == 4);
  CHECK(slots(dropped) == std::vector<std::uint32_t>{1, 2});
  // Exactly the timeout is not past it.
  dropped.clear();
  CHECK(pool.release(at_ms(130), dropped)->slot == 3);
  CHECK(dropped.empty());
}

TEST_CASE("a tool with few servers: waits grow with load, callers time out, abandoned work is still done",
          "[server_pool][world]") {
  // 40 checks at once on 2 servers of 100 ms: the last waits 1.9 s, past
  // the 1 s timeout, so about half the callers give up; FIFO still serves all 40.
  auto run = [](std::string_view pool_keys) {
    const std::string text = std::string(R"(
seed = 5
[workers]
count = 40
[retry]
maximum_attempts = 1
[tools.read]
latency = { fixed = "100ms" }
client_timeout = "1s"
servers = 2
)") + std::string(pool_keys) +
                             R"(
[[job_type]]
name = "check"
steps = [{ tool = "read", target = "m_{job}" }]
[workload]
count = 40
interval = "1us"
types = [{ type = "check" }]
)";
    load_result r = load_scenario_text(text, "t.toml");
    for (const scenario_error& e : r.errors) INFO(e.to_string());
    REQUIRE(r.ok());
    return cli::run_one(*r.value, false).summary;
  };
  const run_summary fifo = run("");
  REQUIRE(fifo.tools.size() == 1);
  CHECK(fifo.tools[0].calls == 40);
  CHECK(fifo.tools[0].executions == 40);  // every request served, waited for or not
  CHECK(fifo.tools[0].client_timeouts > 15);
  CHECK(fifo.jobs_succeeded + fifo.jobs_dead_lettered == 40);
  CHECK(fifo.jobs_succeeded == 40 - fifo.tools[0].client_timeouts);

  // With a queue timeout the stale requests are dropped unserved (503).
  const run_summary shed = run("queue_timeout = \"1s\"");
  CHECK(shed.tools[0].executions < 40);
  CHECK(shed.tools[0].rejected.at(503) == 40 - shed.tools[0].executions);
}

TEST_CASE("queue settings need servers", "[server_pool][scenario]") {
  const load_result r = load_scenario_text(
      "[tools.read]\nqueue_timeout = \"1s\"\n[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 1\n", "t.toml");
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() ==
        "t.toml:2:17: tools.read.queue_timeout: needs `servers` (a queue forms only in front of a fixed number of "
        "servers)");
}
