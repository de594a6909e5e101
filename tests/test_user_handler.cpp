// The example from docs/writing-a-handler.md, compiled and run: a user's own
// tool and handler, under the simulator with a crash after the write.
// Keep this file and the document in step.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <twice/sim/sleep.hpp>
#include <twice/world/world.hpp>

using namespace twice;
using sim::duration;

// --8<-- [start:tool]
// A loyalty-points API of the user's own. It honours idempotency keys: a
// key it has seen gets the first answer again, the way Stripe's do.
class points_api final : public tool {
 public:
  std::string_view name() const override { return "points"; }
  bool writes() const override { return true; }
  bool accepts_key() const override { return true; }

  sim::task<tool_result> call(tool_call request) override {
    co_await sim::sleep_for(duration::from_ms(50));  // the network and the API's work
    if (request.idempotency_key) {
      auto seen = answers_.find(*request.idempotency_key);
      if (seen != answers_.end()) {
        tool_result replay = seen->second;
        replay.replayed = true;
        co_return replay;
      }
    }
    balance_[request.target] += request.amount_cents;
    tool_result ok{200, "", "pts_" + std::to_string(++grants_), false, duration::zero()};
    if (request.idempotency_key) answers_[*request.idempotency_key] = ok;
    co_return ok;
  }

  std::int64_t balance(const std::string& customer) const {
    auto it = balance_.find(customer);
    return it == balance_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, std::int64_t> balance_;
  std::map<std::string, tool_result> answers_;
  std::uint64_t grants_ = 0;
};
// --8<-- [end:tool]

// --8<-- [start:handler]
// Grants loyalty points for each step of the job, one write per step.
class grant_points_handler final : public handler {
 public:
  sim::task<slice_outcome> run(slice_context& ctx) override {
    const job_spec& job = ctx.job();
    for (std::size_t step = 1; step <= job.steps.size(); ++step) {
      if (static_cast<std::int32_t>(step) <= ctx.checkpoint_step()) continue;  // durable: skip on replay
      const step_spec& s = job.steps[step - 1];
      tool_call request{s.target, s.amount_cents, ctx.key_for(step, s.tool)};
      const tool_result r = co_await ctx.call(ctx.tool_named(s.tool), request, step);
      co_await ctx.point("after_tool", step, s.tool);  // where faults may strike
      if (!r.ok()) co_return slice_outcome::from(r);
      co_await ctx.checkpoint(step);
    }
    co_return slice_outcome::success();
  }
};
// --8<-- [end:handler]

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
