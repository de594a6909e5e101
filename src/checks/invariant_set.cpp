#include "checks/invariant_set.hpp"

#include <stdexcept>
#include <string>

#include "checks/builtin_invariants.hpp"

namespace twice {

// A run is made many times over by explore and its shrinker: the built-in
// ones are made from their list, not looked up by name.
invariant_set::invariant_set(const check_options& options, const world_config& config) : context_(options, config) {
  for (const builtin_invariant& b : builtin_invariants()) add(b.name, b.make(config, context_));
  for (const std::string_view name : registry::registered_invariant_names())
    add(name, registry::make_invariant(name, config, options));
  route();
}

invariant_set::invariant_set(const check_options& options, const world_config& config,
                             const std::vector<std::string_view>& names)
    : context_(options, config) {
  for (const std::string_view name : names) {
    const builtin_invariant* builtin = find_builtin_invariant(name);
    add(name, builtin != nullptr ? builtin->make(config, context_) : registry::make_invariant(name, config, options));
  }
  route();
}

void invariant_set::add(std::string_view name, std::unique_ptr<invariant> made) {
  if (made == nullptr)
    throw std::invalid_argument("the invariant \"" + std::string(name) + "\" made nothing to check with");
  invariants_.emplace_back(name, std::move(made));
}

// The watches first (the invariants read what they kept of this very
// event), then the invariants in report order; laid out flat, by kind.
void invariant_set::route() {
  std::vector<std::pair<event_observer*, event_kinds>> observers;
  context_.for_each_watch(
      [&observers](event_observer& watch, const event_kinds& kinds) { observers.emplace_back(&watch, kinds); });
  for (auto& [name, inv] : invariants_) observers.emplace_back(inv.get(), inv->wants());
  std::array<std::uint32_t, event_kinds::count> seen{};
  for (const auto& [observer, kinds] : observers) kinds.for_each([&seen](std::size_t kind) { ++seen[kind]; });
  for (std::size_t kind = 0; kind < event_kinds::count; ++kind) first_[kind + 1] = first_[kind] + seen[kind];
  route_.assign(first_.back(), nullptr);
  std::array<std::uint32_t, event_kinds::count> next{};
  for (std::size_t kind = 0; kind < event_kinds::count; ++kind) next[kind] = first_[kind];
  for (const auto& [observer, kinds] : observers)
    kinds.for_each([&, o = observer](std::size_t kind) { route_[next[kind]++] = o; });
}

namespace {
// The job an event ends (done, failed, dead-lettered), if it ends one.
const ev::name_id* ended_job(const ev::event& e) {
  if (const auto* done = std::get_if<ev::job_done>(&e.body)) return &done->job;
  if (const auto* failed = std::get_if<ev::job_failed>(&e.body)) return &failed->job;
  if (const auto* dead = std::get_if<ev::dead_letter>(&e.body)) return &dead->job;
  return nullptr;
}
}  // namespace

void invariant_set::on_event(const ev::event& e, const name_table& names) {
  const std::size_t kind = e.body.index();
  for (std::uint32_t i = first_[kind]; i < first_[kind + 1]; ++i) route_[i]->on_event(e, names);
  if (const ev::name_id* job = ended_job(e))
    for (auto& [name, inv] : invariants_) inv->on_job_end(e, *job);
}

std::uint64_t invariant_set::footprint() const {
  std::uint64_t bytes = 0;
  context_.for_each_watch([&bytes](const event_observer& watch, const event_kinds&) { bytes += watch.footprint(); });
  for (const auto& [name, inv] : invariants_) bytes += inv->footprint();
  return bytes;
}

std::vector<verdict> invariant_set::finish(const world& w, const world_result& result) {
  std::vector<verdict> out;
  out.reserve(invariants_.size());
  for (auto& [name, inv] : invariants_) {
    out.push_back(inv->finish(w, result));
    out.back().name = std::string(name);
  }
  return out;
}

}  // namespace twice
