#include <twice/events/trace_events.hpp>

namespace twice::ev {

std::string_view to_string(stop_reason why) {
  switch (why) {
    case stop_reason::shutdown:
      return "shutdown";
    case stop_reason::rolling_kill:
      return "rolling kill";
    case stop_reason::drained:
      return "drained";
    case stop_reason::grace_period_expired:
      return "grace period expired";
    case stop_reason::shutdown_timeout:
      return "shutdown timeout";
  }
  return "unknown";
}

}  // namespace twice::ev
