#pragma once
// A registry's factories by name (world/registry.hpp, checks/invariant.hpp):
// an ordered map, so whatever lists the names lists them in the same order
// on every run.

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace twice::registry_detail {

template <class Factory>
struct named_factories {
  const char* what;
  std::map<std::string, Factory, std::less<>> by_name;

  void add(std::string name, Factory make) {
    if (name.empty()) throw std::invalid_argument(std::string("a ") + what + " needs a name");
    if (!make) throw std::invalid_argument(std::string("the ") + what + " \"" + name + "\" has no factory");
    if (by_name.contains(name))
      throw std::invalid_argument(std::string("a ") + what + " is registered as \"" + name + "\" already");
    by_name.emplace(std::move(name), std::move(make));
  }
  bool remove(std::string_view name) {
    const auto it = by_name.find(name);
    if (it == by_name.end()) return false;
    by_name.erase(it);
    return true;
  }
  const Factory* find(std::string_view name) const {
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &it->second;
  }
  std::vector<std::string_view> views() const {  // valid while each stays registered
    std::vector<std::string_view> out;
    for (const auto& [name, make] : by_name) out.emplace_back(name);
    return out;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, make] : by_name) out.push_back(name);
    return out;
  }
};

}  // namespace twice::registry_detail
