// The registry of invariants (checks/invariant.hpp): the 17 built-in ones
// (checks/builtin_invariants.cpp), fixed and first in report order, and a
// program's own, by name.

#include <twice/checks/invariant.hpp>

#include "checks/builtin_invariants.hpp"
#include "checks/invariant_set.hpp"
#include "world/named_factories.hpp"

namespace twice::registry {
namespace {

registry_detail::named_factories<invariant_factory>& invariants() {
  static registry_detail::named_factories<invariant_factory> all{"invariant", {}};
  return all;
}

// A built-in invariant made alone, outside a checked run: it keeps for
// itself the watches it would share there (a set of one).
class lone_builtin final : public invariant {
 public:
  lone_builtin(std::string_view name, const world_config& config, const check_options& checks)
      : set_(checks, config, {name}) {}
  void on_event(const ev::event& e, const name_table& names) override { set_.on_event(e, names); }
  std::uint64_t footprint() const override { return set_.footprint(); }
  verdict finish(const world& w, const world_result& result) override { return set_.finish(w, result).front(); }

 private:
  invariant_set set_;
};

}  // namespace

void add_invariant(std::string name, invariant_factory make) {
  if (is_builtin_invariant(name)) throw std::invalid_argument("\"" + name + "\" is a built-in invariant's name");
  invariants().add(std::move(name), std::move(make));
}
bool remove_invariant(std::string_view name) { return invariants().remove(name); }
std::vector<std::string_view> registered_invariant_names() { return invariants().views(); }
bool is_builtin_invariant(std::string_view name) { return find_builtin_invariant(name) != nullptr; }

std::unique_ptr<invariant> make_invariant(std::string_view name, const world_config& config,
                                          const check_options& checks) {
  if (const builtin_invariant* builtin = find_builtin_invariant(name)) {
    return std::make_unique<lone_builtin>(builtin->name, config, checks);
  }
  const invariant_factory* make = invariants().find(name);
  return make == nullptr ? nullptr : (*make)(config);
}

}  // namespace twice::registry
