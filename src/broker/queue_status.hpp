#pragma once
// What the broker answers, and where a message is: small enumerations the
// queue's callers and the trace's events share without the queue itself.

#include <cstdint>
#include <string_view>

namespace twice {

enum class queue_status : std::uint8_t {
  ok,
  invalid_handle,   // never issued, or the message is gone (deleted, expired, redriven)
  stale_handle,     // strict semantics only: a newer receive owns the message
  invalid_timeout,  // negative, above 12 h, or past 12 h in flight since the receive
};

constexpr std::string_view to_string(queue_status status) {
  switch (status) {
    case queue_status::ok: return "ok";
    case queue_status::invalid_handle: return "invalid_handle";
    case queue_status::stale_handle: return "stale_handle";
    case queue_status::invalid_timeout: return "invalid_timeout";
  }
  return "unknown";
}

enum class message_state : std::uint8_t { delayed, visible, in_flight };

constexpr std::string_view to_string(message_state state) {
  switch (state) {
    case message_state::delayed: return "delayed";
    case message_state::visible: return "visible";
    case message_state::in_flight: return "in_flight";
  }
  return "unknown";
}

}  // namespace twice
