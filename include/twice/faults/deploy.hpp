#pragma once
// Deploys, as Kubernetes terminates pods. A drain stops leasing on the old
// version, lets the in-flight slice finish within the grace period (default
// 30 s, terminationGracePeriodSeconds), then terminates and starts the pod on
// the new version. A rolling kill terminates pods in batches at intervals,
// in-flight slices and all — the retry storm that follows is the point.

#include <cstdint>
#include <string>
#include <vector>

#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>

namespace twice {

class worker;

enum class deploy_strategy : std::uint8_t { drain, rolling_kill };

struct deploy_spec {
  sim::instant at;
  std::string sha = "v2";
  deploy_strategy strategy = deploy_strategy::drain;
  std::uint32_t batch_size = 1;                            // pods replaced at once
  sim::duration batch_interval = sim::duration::from_s(5);  // between batches
  sim::duration grace_period = sim::duration::from_s(30);
  sim::duration startup = sim::duration::from_s(2);         // a new pod's start-up time
};

// Runs one deploy over `workers`, in index order, batch by batch.
sim::task<void> run_deploy(deploy_spec spec, std::vector<worker*> workers);

}  // namespace twice
