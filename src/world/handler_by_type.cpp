#include "world/handler_by_type.hpp"

#include <stdexcept>

#include <twice/world/registry.hpp>

namespace twice {

handler_by_type::handler_by_type(const std::map<std::string, std::string, std::less<>>& types, handler& fallback)
    : fallback_(fallback) {
  for (const auto& [type, name] : types) {
    std::unique_ptr<handler> h = registry::make_handler(name);
    // The loader refuses the name first; a config built by hand gets this.
    if (h == nullptr)
      throw std::invalid_argument("job type " + type + ": no handler is registered as \"" + name + "\"");
    by_type_.emplace(type, std::move(h));
  }
}

handler& handler_by_type::of(const slice_context& ctx) {
  const auto it = by_type_.find(ctx.job().type);
  return it == by_type_.end() ? fallback_ : *it->second;
}

sim::task<slice_outcome> handler_by_type::run(slice_context& ctx) { return of(ctx).run(ctx); }

sim::task<void> handler_by_type::on_slice_start(slice_context& ctx, transaction& tx) {
  return of(ctx).on_slice_start(ctx, tx);
}

}  // namespace twice
