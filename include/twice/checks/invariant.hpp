#pragma once
// An invariant of a program's own, registered by name beside the built-in
// ones (checks/invariants.hpp), so a scenario's [expect] can name it, every
// checked run (twice run, explore and its shrinker, sweep, the tests)
// evaluates it, and --json and the reports show its verdict:
//
//   twice::registry::add_invariant("no_points_twice", [](const twice::world_config&) {
//     return std::make_unique<no_points_twice>();
//   });
//
// It observes the run's typed events as they are emitted
// (events/trace_events.hpp; it must never change the run) and gives its
// verdict when the run ends. Register in main, before any run (see
// world/registry.hpp: worlds and their checkers read the registry from
// several threads at once).

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/events/event_log.hpp>

namespace twice {

class invariant : public event_observer {
 public:
  // From event_observer: on_event(e, names) for every event, and
  // footprint(), the bytes it holds (they count against the world's
  // memory budget).
  //
  // The verdict once the run has ended: held, or violated with a `detail`
  // sentence and `evidence` lines (time, actor, job, attempt, key), and
  // judged = false when the run stopped (result.outcome) before it could be
  // decided. Its `name` is set to the registered name.
  virtual verdict finish(const world& w, const world_result& result) = 0;
};

// Made afresh for each run, from the run's config.
using invariant_factory = std::function<std::unique_ptr<invariant>(const world_config&)>;

namespace registry {

// Throws std::invalid_argument for an empty name, a name taken (a built-in
// invariant's too) or an empty factory.
void add_invariant(std::string name, invariant_factory make);
bool remove_invariant(std::string_view name);  // false if none
// In name order; the built-in ones are not listed (invariant_names() has
// all). Each view lives as long as its registration.
std::vector<std::string_view> registered_invariant_names();
std::unique_ptr<invariant> make_invariant(std::string_view name, const world_config& config);

}  // namespace registry
}  // namespace twice
