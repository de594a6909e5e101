#include "world/incidents.hpp"

namespace twice {

world_config double_refund_config(bool fixed) {
  world_config c;
  c.seed = 17;
  c.workers = 2;
  c.jobs.push_back(agent_job("job_17", "inv_17", 1999));
  c.payments.latency = latency_model::fixed(sim::duration::from_ms(400));
  c.model.latency = latency_model::fixed(sim::duration::from_s(2));
  c.read.latency = latency_model::fixed(sim::duration::from_ms(5));
  c.runtime.retry.initial_interval = sim::duration::from_s(1);
  c.runtime.retry.maximum_interval = sim::duration::from_s(30);
  c.runtime.retry.jitter = jitter_kind::full;
  if (!fixed) {
    c.runtime.rules.key = key_mode::none;
    // A rolling deploy kills worker/0's pod at 2.420 s: the vendor committed
    // the refund at 2.419 s, and the ack has not been sent.
    c.deploys.push_back({.at = sim::instant::epoch() + sim::duration::from_ms(2420),
                         .sha = "v2",
                         .strategy = deploy_strategy::rolling_kill,
                         .batch_interval = sim::duration::from_s(5)});
    return c;
  }
  c.runtime.rules.key = key_mode::stable;
  for (std::uint32_t attempt : {0u, 1u})
    c.point_faults.push_back(
        {.point = "after_tool", .tool = "refund", .attempt = attempt, .action = point_action::error});
  return c;
}

}  // namespace twice
