#pragma once
// The invariants of one checked run, as one observer of its events: each
// invariant the registry names (the built-in ones in report order, then a
// program's own), made fresh for the run, with the watches the built-in
// ones share (checks/check_context.hpp). It routes each event by its kind
// to the watches that want it, then to the invariants that want it, in
// report order, and tells every invariant when a job ends; at the end it
// collects their verdicts in the same order.

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/checks/invariant.hpp>

#include "checks/check_context.hpp"

namespace twice {

class invariant_set final : public event_observer {
 public:
  // Every invariant invariant_names() lists.
  invariant_set(const check_options& options, const world_config& config);
  // Those named (each built-in or registered), in this order.
  invariant_set(const check_options& options, const world_config& config, const std::vector<std::string_view>& names);

  void on_event(const ev::event& e, const name_table& names) override;
  // The shared watches' bytes and every invariant's.
  std::uint64_t footprint() const override;

  // Every verdict, in the order the invariants were named, each under its name.
  std::vector<verdict> finish(const world& w, const world_result& result);

 private:
  void add(std::string_view name, std::unique_ptr<invariant> made);
  void route();

  check_context context_;
  std::vector<std::pair<std::string_view, std::unique_ptr<invariant>>> invariants_;
  // Who sees an event of kind k, in order: route_[first_[k], first_[k + 1]).
  std::vector<event_observer*> route_;
  std::array<std::uint32_t, event_kinds::count + 1> first_{};
};

}  // namespace twice
