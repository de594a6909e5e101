#pragma once
// A team's own code under twice: a loyalty-points API (a write tool that
// honours idempotency keys), the handler that grants a job's points, and
// the invariant that no step grants its points twice; registered by name
// so scenario files can name them. docs/writing-a-handler.md quotes the
// marked blocks (tests/shell/check_doc_quotes.sh keeps the two the same);
// tests/unit/world/test_user_handler.cpp and tests/unit/world/test_registry.cpp run them too.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <twice/checks/invariant.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/world/registry.hpp>
#include <twice/world/world.hpp>

namespace points {

using namespace twice;
using sim::duration;

// --8<-- [start:tool]
// A loyalty-points API of the user's own. It honours idempotency keys: a
// key it has seen gets the first answer again, the way Stripe's do.
class points_api final : public tool {
 public:
  std::string_view name() const override { return "points"; }
  bool writes() const override { return true; }
  bool accepts_key() const override { return true; }

  sim::task<tool_result> call(tool_call request) override {
    co_await sim::sleep_for(duration::from_ms(50));  // the network and the API's work
    if (request.idempotency_key) {
      auto seen = answers_.find(*request.idempotency_key);
      if (seen != answers_.end()) {
        tool_result replay = seen->second;
        replay.replayed = true;
        co_return replay;
      }
    }
    balance_[request.target] += request.amount_cents;
    tool_result ok{200, "", "pts_" + std::to_string(++grants_), false, duration::zero()};
    if (request.idempotency_key) answers_[*request.idempotency_key] = ok;
    co_return ok;
  }

  std::int64_t balance(const std::string& customer) const {
    auto it = balance_.find(customer);
    return it == balance_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, std::int64_t> balance_;
  std::map<std::string, tool_result> answers_;
  std::uint64_t grants_ = 0;
};
// --8<-- [end:tool]

// --8<-- [start:handler]
// Grants loyalty points for each step of the job, one write per step.
class grant_points_handler final : public handler {
 public:
  sim::task<slice_outcome> run(slice_context& ctx) override {
    const job_spec& job = ctx.job();
    for (std::size_t step = 1; step <= job.steps.size(); ++step) {
      if (static_cast<std::int32_t>(step) <= ctx.checkpoint_step()) continue;  // durable: skip on replay
      const step_spec& s = job.steps[step - 1];
      const std::string key = ctx.key_for(step, s.tool);  // "" when the discipline sends none
      tool_call request{s.target, s.amount_cents, key.empty() ? std::nullopt : std::optional(key)};
      const tool_result r = co_await ctx.call(ctx.tool_named(s.tool), request, step);
      co_await ctx.point("after_tool", step, s.tool);  // where faults may strike
      if (!r.ok()) co_return slice_outcome::from(r);
      co_await ctx.checkpoint(step);
    }
    co_return slice_outcome::success();
  }
};
// --8<-- [end:handler]

// --8<-- [start:invariant]
// No step of a job grants points twice: at most one new write of the
// points tool per (job, step), whatever crashed or was redelivered.
class no_points_twice final : public invariant {
 public:
  void on_event(const ev::event& e, const name_table& names) override {
    const auto* call = std::get_if<ev::tool_call>(&e.body);
    if (call == nullptr || !call->new_write || names.text(call->tool) != "points") return;
    const std::string step = std::string(names.text(call->job)) + " step " + std::to_string(call->step);
    if (++grants_[step] == 2) {
      first_ = first_.value_or(e.at);
      std::string line;  // the record as the trace writes it: time, actor, job, attempt, key
      sim::append_canonical(as_record(e, names), line);
      evidence_.push_back(std::move(line));
    }
  }

  verdict finish(const world&, const world_result&) override {
    verdict v;
    v.held = evidence_.empty();
    v.detail = v.held ? "every step granted its points at most once"
                      : std::to_string(evidence_.size()) + " step(s) granted points twice";
    v.evidence = evidence_;
    v.first_violation = first_;
    return v;
  }

 private:
  std::map<std::string, int> grants_;
  std::vector<std::string> evidence_;
  std::optional<sim::instant> first_;
};
// --8<-- [end:invariant]

// --8<-- [start:register]
// The names scenario files use: [[job_type]] handler = "grant_points",
// [tools.points] implementation = "points_api", [expect] "no_points_twice".
inline void register_all() {
  registry::add_handler("grant_points", [] { return std::make_unique<grant_points_handler>(); });
  registry::add_tool("points_api", [](const tool_setup&) { return std::make_unique<points_api>(); });
  registry::add_invariant("no_points_twice", [](const world_config&) { return std::make_unique<no_points_twice>(); });
}
// --8<-- [end:register]

}  // namespace points
