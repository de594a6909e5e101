// The registry of invariants of a program's own (checks/invariant.hpp).

#include <twice/checks/invariant.hpp>

#include "checks/invariant_names.hpp"
#include "world/named_factories.hpp"

namespace twice::registry {
namespace {

registry_detail::named_factories<invariant_factory>& invariants() {
  static registry_detail::named_factories<invariant_factory> all{"invariant", {}};
  return all;
}

}  // namespace

void add_invariant(std::string name, invariant_factory make) {
  if (invariant_name::is_known(name))
    throw std::invalid_argument("\"" + name + "\" is a built-in invariant's name");
  invariants().add(std::move(name), std::move(make));
}
bool remove_invariant(std::string_view name) { return invariants().remove(name); }
std::vector<std::string_view> registered_invariant_names() { return invariants().views(); }

std::unique_ptr<invariant> make_invariant(std::string_view name, const world_config& config) {
  const invariant_factory* make = invariants().find(name);
  return make == nullptr ? nullptr : (*make)(config);
}

}  // namespace twice::registry
