#pragma once
// A Kubernetes liveness probe on a worker pod, answered by the worker's own
// loop (an HTTP handler or a heartbeat file on the thread that runs the
// jobs, as a single-threaded Python or Node worker has it). While a tool
// call blocks that loop the probe goes unanswered: each probe the call
// outlasts by `timeout` fails, and after `failure_threshold` failures in a
// row the kubelet restarts the container — in the middle of the call, and
// of whatever the call was writing.
//
// The kubelet's rules and defaults ("Configure Liveness, Readiness and
// Startup Probes", kubernetes.io): the first probe `initial_delay` after the
// container starts (initialDelaySeconds, 0), then every `period`
// (periodSeconds, 10 s); a probe fails when no answer comes within
// `timeout` (timeoutSeconds, 1 s); `failure_threshold` consecutive failures
// (failureThreshold, 3) restart the container, which first gets SIGTERM and,
// `termination_grace` later (terminationGracePeriodSeconds, 30 s), SIGKILL.
// A loop blocked in a call does not act on SIGTERM, so the pod runs on
// until the SIGKILL (if the call returns meanwhile, its slice goes on, and
// is killed wherever it then is). A probe that does not fail resets the
// count (successThreshold is 1 for liveness).

#include <cstdint>

#include <twice/sim/time.hpp>

namespace twice {

struct liveness_probe_config {
  sim::duration initial_delay = sim::duration::zero();
  sim::duration period = sim::duration::from_s(10);
  sim::duration timeout = sim::duration::from_s(1);
  std::uint32_t failure_threshold = 3;
  sim::duration termination_grace = sim::duration::from_s(30);
  friend bool operator==(const liveness_probe_config&, const liveness_probe_config&) = default;

  // How long a call must block the loop before the probe can have failed
  // `failure_threshold` times: the first failing probe may come at once,
  // each further one a period later, each judged `timeout` after it is sent.
  sim::duration blocked_until_restart() const {
    return period * static_cast<std::int64_t>(failure_threshold - 1) + timeout;
  }
};

}  // namespace twice
