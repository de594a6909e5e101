// The registry of handlers and tools by name (world/registry.hpp).

#include <twice/world/registry.hpp>

#include "world/named_factories.hpp"

namespace twice::registry {
namespace {

using registry_detail::named_factories;

named_factories<handler_factory>& handlers() {
  static named_factories<handler_factory> all{"handler", {}};
  return all;
}
named_factories<tool_factory>& tools() {
  static named_factories<tool_factory> all{"tool", {}};
  return all;
}

}  // namespace

void add_handler(std::string name, handler_factory make) { handlers().add(std::move(name), std::move(make)); }
void add_tool(std::string name, tool_factory make) { tools().add(std::move(name), std::move(make)); }
bool remove_handler(std::string_view name) { return handlers().remove(name); }
bool remove_tool(std::string_view name) { return tools().remove(name); }
bool has_handler(std::string_view name) { return handlers().find(name) != nullptr; }
bool has_tool(std::string_view name) { return tools().find(name) != nullptr; }
std::vector<std::string> handler_names() { return handlers().names(); }
std::vector<std::string> tool_names() { return tools().names(); }

std::unique_ptr<handler> make_handler(std::string_view name) {
  const handler_factory* make = handlers().find(name);
  return make == nullptr ? nullptr : (*make)();
}

std::unique_ptr<tool> make_tool(std::string_view name, const tool_setup& setup) {
  const tool_factory* make = tools().find(name);
  return make == nullptr ? nullptr : (*make)(setup);
}

}  // namespace twice::registry
