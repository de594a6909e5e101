// The example of docs/writing-a-handler.md (examples/points/points.hpp)
// in a world built by hand: a user's own tool and handler under the
// simulator with a crash after the write. The document quotes the marked
// block (tests/shell/check_doc_quotes.sh).

#include <catch2/catch.hpp>

#include "points.hpp"  // examples/points/
#include "world/job_book.hpp"

using namespace twice;
using points::grant_points_handler;
using points::points_api;

TEST_CASE("a user's handler and tool run under the simulator with every fault available", "[user_handler]") {
  // --8<-- [start:world]
  grant_points_handler handler;
  world_config config;
  config.seed = 7;
  config.workers = 2;
  job_spec job;
  job.id = "job_42";
  job.steps = {{"points", "alice", 100}, {"points", "alice", 250}};
  config.jobs.push_back(job);
  point_fault crash;  // the pod dies right after the second grant, before its checkpoint
  crash.point = "after_tool";
  crash.step = 2;
  crash.attempt = 0;
  crash.action = point_action::crash;
  config.point_faults.push_back(crash);

  world w(config, &handler);
  points_api points;
  w.add_tool("points", &points);
  const world_result result = w.run();
  // --8<-- [end:world]

  REQUIRE(result.all_jobs_ended);
  CHECK(w.jobs().end_of("job_42") == job_end::done);
  // Step 2 ran twice (attempt 0 crashed after it), the key made it count once.
  CHECK(points.balance("alice") == 350);
  std::size_t replays = 0;
  for (const sim::trace_record& r : w.events().records())
    if (r.kind == "tool_call" && r.get_bool("replayed") == true) ++replays;
  CHECK(replays == 1);
}

TEST_CASE("without a key the user's tool grants the replayed step again, as the document says", "[user_handler]") {
  grant_points_handler handler;
  world_config config;
  config.seed = 7;
  config.workers = 2;
  config.runtime.rules.key = key_mode::none;
  job_spec job;
  job.id = "job_42";
  job.steps = {{"points", "alice", 100}, {"points", "alice", 250}};
  config.jobs.push_back(job);
  point_fault crash;
  crash.point = "after_tool";
  crash.step = 2;
  crash.attempt = 0;
  crash.action = point_action::crash;
  config.point_faults.push_back(crash);

  world w(config, &handler);
  points_api points;
  w.add_tool("points", &points);
  REQUIRE(w.run().all_jobs_ended);
  CHECK(points.balance("alice") == 600);
}
