#pragma once
// The seam where faults reach a worker: at each named point of a slice the
// runtime asks the fault plan what happens. The plan lives outside the
// models (the scenario's [[fault]] tables build one), so worker code reads as
// the real thing would, with `co_await ctx.point("after_tool", 3, "refund")`
// marking where reality may intervene.

#include <cstdint>
#include <string_view>

namespace twice {

enum class point_action : std::uint8_t {
  proceed,
  crash,  // the worker's process dies here: nothing after this point runs
  error,  // the handler raises here (a slice error): the runtime nacks with backoff
};

struct point_event {
  std::string_view worker;
  std::string_view job_id;
  std::uint32_t attempt = 0;
  std::string_view point;  // before_tool, after_tool, before_checkpoint, after_checkpoint, before_ack, after_ack
  std::size_t step = 0;    // 0 when the point is not about a step
  std::string_view tool;   // "" when the point is not about a tool
};

class fault_plan {
 public:
  virtual ~fault_plan() = default;
  virtual point_action at_point(const point_event&) { return point_action::proceed; }
};

}  // namespace twice
