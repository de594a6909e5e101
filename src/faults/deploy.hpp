#pragma once
// Deploys, as Kubernetes terminates pods. A drain stops leasing on the old
// version, lets the in-flight slice finish within the grace period (default
// 30 s, terminationGracePeriodSeconds), then terminates and starts the pod on
// the new version. A rolling kill terminates pods in batches at intervals,
// in-flight slices and all — the retry storm that follows is the point.

#include <cstdint>
#include <string>
#include <vector>

#include <twice/faults/deploy_spec.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>

namespace twice {

class worker;

// Runs one deploy over `workers`, in index order, batch by batch.
sim::task<void> run_deploy(deploy_spec spec, std::vector<worker*> workers);

}  // namespace twice
