#pragma once
// Handlers and tools of a program's own, registered by name, so that a
// scenario file can name them as it names the built-in ones:
//
//   twice::registry::add_handler("grant_points", [] { return std::make_unique<grant_points_handler>(); });
//   twice::registry::add_tool("points_api", [](const twice::tool_setup&) { return std::make_unique<points_api>(); });
//
//   [[job_type]]   name = "grant"   handler = "grant_points"   steps = [...]
//   [tools.points] implementation = "points_api"
//
// FoundationDB's REGISTER_WORKLOAD and SimGrid's register_function are the
// models. Every world makes its own instances from the factories (a world
// is one run; explore's runs each get fresh ones). Register in main, before
// any world is built or twice::main runs: worlds read the registry, explore's
// from several threads at once, and registering meanwhile is a data race.
// Invariants of your own register the same way (checks/invariant.hpp).

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <twice/runtime/handler.hpp>
#include <twice/sim/random.hpp>
#include <twice/tools/tool.hpp>

namespace twice {

// What a registered tool is given when a world makes it.
struct tool_setup {
  std::string name;           // the name steps call it by ([tools.NAME])
  sim::random_stream random;  // its own stream of the run's root seed ("tool/NAME"): draw latencies and errors from it
};

using handler_factory = std::function<std::unique_ptr<handler>()>;
using tool_factory = std::function<std::unique_ptr<tool>(const tool_setup&)>;

namespace registry {

// Throw std::invalid_argument for an empty name, a name already taken or an
// empty factory.
void add_handler(std::string name, handler_factory make);
void add_tool(std::string name, tool_factory make);
// Take a registration back (tests register and remove); false if none.
bool remove_handler(std::string_view name);
bool remove_tool(std::string_view name);

bool has_handler(std::string_view name);
bool has_tool(std::string_view name);
// In name order.
std::vector<std::string> handler_names();
std::vector<std::string> tool_names();
// A fresh instance; null when nothing is registered by that name.
std::unique_ptr<handler> make_handler(std::string_view name);
std::unique_ptr<tool> make_tool(std::string_view name, const tool_setup& setup);

}  // namespace registry
}  // namespace twice
