#pragma once
// A far side's servers and the queue in front of them ([tools.NAME.pool]);
// vendors/server_pool.hpp (src/) is the model and says what each setting does.

#include <cstdint>
#include <optional>

#include <twice/sim/time.hpp>

namespace twice {

enum class queue_order : std::uint8_t { fifo, lifo };

struct server_pool_config {
  std::uint32_t servers = 0;                                  // executions at once; 0: unlimited, nothing ever waits
  std::optional<sim::duration> queue_timeout = std::nullopt;  // none: a request waits as long as it takes
  queue_order order = queue_order::fifo;
};

}  // namespace twice
