#include "faults/deploy.hpp"

#include <algorithm>

#include "runtime/worker.hpp"
#include "sim/sleep.hpp"

namespace twice {

sim::task<void> run_deploy(deploy_spec spec, std::vector<worker*> workers) {
  TWICE_CHECK(spec.batch_size > 0);
  if (workers.empty()) co_return;
  sim::kernel& k = workers.front()->kernel();
  co_await sim::sleep_until(std::max(spec.at, k.now()));
  for (std::size_t first = 0; first < workers.size(); first += spec.batch_size) {
    const std::size_t last = std::min(workers.size(), first + spec.batch_size);
    if (spec.strategy == deploy_strategy::drain) {
      // SIGTERM to the whole batch at once; past the grace period Kubernetes
      // sends SIGKILL, slice or no slice.
      const sim::instant deadline = k.now() + spec.grace_period;
      for (std::size_t i = first; i < last; ++i) workers[i]->begin_drain();
      for (std::size_t i = first; i < last; ++i) {
        const bool finished = co_await workers[i]->drained().wait_until(deadline);
        workers[i]->stop(finished ? ev::stop_reason::drained : ev::stop_reason::grace_period_expired);
      }
    } else {
      for (std::size_t i = first; i < last; ++i) workers[i]->stop(ev::stop_reason::rolling_kill);
    }
    co_await sim::sleep_for(spec.startup);
    for (std::size_t i = first; i < last; ++i) {
      workers[i]->set_sha(spec.sha);
      workers[i]->start();
    }
    if (last < workers.size()) co_await sim::sleep_for(spec.batch_interval);
  }
}

}  // namespace twice
