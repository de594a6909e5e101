#pragma once
// A consumer of several job queues, as Sidekiq fetches (lib/sidekiq/fetch.rb,
// BasicFetch#queues_cmd and #retrieve_work): the queue list holds each queue
// `weight` times (`-q critical,6 -q default,2`); every fetch shuffles it and
// drops repeats, so a queue comes first with probability weight / total, and
// then BRPOPs the queues in that order: the first queue of the order with a
// message gives it; with none, the fetch blocks (up to its timeout) for any.
// Equal weights give every queue the same chance to come first, so a tenant
// whose queue holds a burst cannot keep another's behind it.

#include <cstdint>
#include <span>
#include <vector>

#include <twice/sim/condition.hpp>
#include <twice/sim/random.hpp>
#include <twice/sim/task.hpp>

#include "broker/queue.hpp"

namespace twice {

struct weighted_queue {
  queue* source = nullptr;
  std::uint32_t weight = 1;  // >= 1
};

// This fetch's order: a weighted shuffle (each queue `weight` times,
// Fisher-Yates, first occurrences kept).
std::vector<queue*> fetch_order(std::span<const weighted_queue> queues, sim::random_stream& rng);

struct fetched {
  queue* source = nullptr;  // where the messages came from; null: none
  std::vector<received_message> messages;
};

// One fetch: `options.wait` is the blocking timeout. `any_visible` is the
// condition every queue of `queues` notifies (queue::set_watcher).
sim::task<fetched> fetch_weighted(sim::kernel& k, std::span<const weighted_queue> queues, sim::condition& any_visible,
                                  receive_options options, sim::random_stream& rng);

}  // namespace twice
