#pragma once
// The handler a world's workers run when a scenario gives job types
// handlers of the program's own ([[job_type]] handler = "grant_points",
// world/registry.hpp): each slice goes to its job type's handler, any other
// job's to the default one (the built-in agent handler, or the world's own).

#include <map>
#include <memory>
#include <string>

#include <twice/runtime/handler.hpp>

namespace twice {

class handler_by_type final : public handler {
 public:
  // `types` maps a job type's name to its registered handler's name; each
  // type gets an instance of its own. Every name must be registered.
  handler_by_type(const std::map<std::string, std::string, std::less<>>& types, handler& fallback);

  sim::task<slice_outcome> run(slice_context& ctx) override;
  sim::task<void> on_slice_start(slice_context& ctx, transaction& tx) override;

 private:
  handler& of(const slice_context& ctx);

  std::map<std::string, std::unique_ptr<handler>, std::less<>> by_type_;
  handler& fallback_;
};

}  // namespace twice
