#include "runtime/weighted_fetch.hpp"

#include <algorithm>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/distributions.hpp>

namespace twice {

std::vector<queue*> fetch_order(std::span<const weighted_queue> queues, sim::random_stream& rng) {
  std::vector<queue*> list;
  for (const weighted_queue& q : queues) {
    TWICE_CHECK(q.weight >= 1);
    list.insert(list.end(), q.weight, q.source);
  }
  // Fisher-Yates from the back, as Ruby's Array#shuffle.
  for (std::size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[sim::uniform_below(rng, i)]);
  std::vector<queue*> order;
  for (queue* q : list)
    if (std::find(order.begin(), order.end(), q) == order.end()) order.push_back(q);
  return order;
}

sim::task<fetched> fetch_weighted(sim::kernel& k, std::span<const weighted_queue> queues, sim::condition& any_visible,
                                  receive_options options, sim::random_stream& rng) {
  TWICE_CHECK(!queues.empty());
  const std::vector<queue*> order = fetch_order(queues, rng);
  const sim::instant started = k.now();
  // Its queues may each have their own ReceiveMessageWaitTimeSeconds: a
  // fetch over several names its wait.
  TWICE_CHECK(options.wait.has_value());
  const sim::instant deadline = started + *options.wait;
  // Bounded as queue::receive is: every pass returns, or waits for the
  // deadline or for a message made visible in one of the queues.
  while (true) {
    for (queue* q : order) {
      std::vector<received_message> got = q->take_now(options);
      if (!got.empty()) co_return fetched{q, std::move(got)};
    }
    if (k.now() >= deadline) break;
    co_await any_visible.wait_until(deadline);
  }
  order.front()->note_empty_receive(k.now() - started);
  co_return fetched{};
}

}  // namespace twice
