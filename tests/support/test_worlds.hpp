#pragma once
// Small worlds several test files share, so a story is told once.

#include <string>
#include <vector>

#include <twice/world/world.hpp>

namespace twice::test_worlds {

// Every job of a configuration, generated ones made: for a test to look at.
inline std::vector<job_spec> all_jobs(const world_config& c) {
  std::vector<job_spec> out;
  for_each_job(c, [&out](const job_spec& j) { out.push_back(j); });
  return out;
}

// Four workers, a pool of one connection, four jobs whose model call takes
// 5 s: holding a transaction across that call starves everyone else.
inline world_config pool_of_one_slow_model() {
  world_config c;
  c.seed = 9;
  c.workers = 4;
  c.store.pool_size = 1;
  c.model.latency = latency_model::fixed(sim::duration::from_s(5));
  for (int i = 0; i < 4; ++i) c.jobs.push_back(agent_job("job_" + std::to_string(i), "inv_" + std::to_string(i), 100));
  return c;
}

// A write tool of the scenario's own whose far side keeps Stripe-like stored
// responses: the shape of a "charge" or "upload" tool in a test.
inline service_tool_config keyed_write_tool(std::string name, sim::duration latency, bool moves_money) {
  service_tool_config t;
  t.name = std::move(name);
  t.effect = tool_effect::write;
  t.keys = key_handling::stored_response;
  t.moves_money = moves_money;
  t.latency = latency_model::fixed(latency);
  return t;
}

}  // namespace twice::test_worlds
