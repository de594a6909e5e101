#pragma once
// A deploy a scenario schedules ([[deploy]]): when, to which version, and
// how the pods are replaced (faults/deploy.hpp in src/ runs it, as
// Kubernetes terminates pods).

#include <cstdint>
#include <string>

#include <twice/sim/time.hpp>

namespace twice {

enum class deploy_strategy : std::uint8_t { drain, rolling_kill };

struct deploy_spec {
  sim::instant at;
  std::string sha = "v2";
  deploy_strategy strategy = deploy_strategy::drain;
  std::uint32_t batch_size = 1;                             // pods replaced at once
  sim::duration batch_interval = sim::duration::from_s(5);  // between batches
  sim::duration grace_period = sim::duration::from_s(30);
  sim::duration startup = sim::duration::from_s(2);  // a new pod's start-up time
};

}  // namespace twice
