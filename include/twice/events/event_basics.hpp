#pragma once
// What every event payload shares (events/trace_events.hpp says how a
// payload is written): names as interned ids, the enumerations' raw values,
// the reasons a pod stops.

#include <cstdint>
#include <string_view>

namespace twice::ev {

using name_id = std::uint32_t;  // an interned text; 0 is the empty text

// Why a worker's pod stopped. A drain's grace period running out is the one
// the drain invariant is about, so it is a value, not a sentence to match.
// shutdown_timeout: the runtime's own deadline after SIGTERM (Sidekiq's -t)
// passed first; it pushed its jobs back and exited.
enum class stop_reason : std::uint8_t { shutdown, rolling_kill, drained, grace_period_expired, shutdown_timeout };
std::string_view to_string(stop_reason);

template <class E>
constexpr std::uint8_t raw(E e) {
  return static_cast<std::uint8_t>(e);
}

}  // namespace twice::ev
