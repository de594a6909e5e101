#pragma once
// A tool of the program's own (world/registry.hpp) as the world holds it:
// every call passes through to it, counted from the caller's side the way a
// modelled far side counts its own (vendors/call_stats.hpp), so the run's
// summary and reports list it with the built-in tools. What happened on the
// far side is the tool's to know: an answered 2xx counts as executed, a
// non-2xx by its status, no answer as a timeout.

#include <memory>

#include <twice/sim/kernel.hpp>
#include <twice/tools/tool.hpp>
#include <twice/vendors/call_stats.hpp>

namespace twice {

class counted_tool final : public tool {
 public:
  counted_tool(sim::kernel& k, std::unique_ptr<tool> inner) : kernel_(k), inner_(std::move(inner)) {}

  std::string_view name() const override { return inner_->name(); }
  bool writes() const override { return inner_->writes(); }
  bool accepts_key() const override { return inner_->accepts_key(); }
  bool moves_money() const override { return inner_->moves_money(); }

  sim::task<tool_result> call(tool_call request) override {
    ++stats_.calls;
    stats_.requests_per_100ms.count(kernel_.now());
    tool_result r = co_await inner_->call(std::move(request));
    if (r.ok())
      ++stats_.executions;
    else if (r.timed_out())
      ++stats_.client_timeouts;
    else if (!r.replayed)
      ++stats_.rejections_by_status[r.status];
    co_return r;
  }

  const call_stats& stats() const { return stats_; }

 private:
  sim::kernel& kernel_;
  std::unique_ptr<tool> inner_;
  call_stats stats_;
};

}  // namespace twice
