#include "faults/deploy.hpp"

#include <algorithm>

#include <twice/sim/sleep.hpp>

#include "runtime/worker.hpp"

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
      // sends SIGKILL, slice or no slice. A runtime with a shutdown timeout
      // of its own (Sidekiq's -t) that ends sooner pushes its jobs back and
      // exits then.
      const sim::instant term = k.now();
      const sim::instant deadline = term + spec.grace_period;
      for (std::size_t i = first; i < last; ++i) workers[i]->begin_drain();
      for (std::size_t i = first; i < last; ++i) {
        const std::optional<sim::duration> own = workers[i]->shutdown_timeout();
        const bool own_first = own && term + *own < deadline;
        const bool finished = co_await workers[i]->drained().wait_until(own_first ? term + *own : deadline);
        workers[i]->stop(finished    ? ev::stop_reason::drained
                         : own_first ? ev::stop_reason::shutdown_timeout
                                     : ev::stop_reason::grace_period_expired);
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
