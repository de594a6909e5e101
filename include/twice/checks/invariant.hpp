#pragma once
// An invariant: a registered class that observes a run's typed events and
// gives a verdict with evidence. The 17 built-in ones (src/checks/) and a
// program's own are registered alike, so a scenario's [expect] can name
// any of them, every checked run (twice run, explore and its shrinker,
// sweep, the tests) evaluates them all, and --json and the reports show
// every verdict. A program registers its own in main, before any run:
//
//   twice::registry::add_invariant("no_points_twice", [](const twice::world_config&) {
//     return std::make_unique<no_points_twice>();
//   });
//
// It observes the run's typed events as they are emitted
// (events/trace_events.hpp; it must never change the run) and gives its
// verdict when the run ends; checks/evidence_log.hpp keeps the evidence
// the way the built-in ones do. (See world/registry.hpp: worlds and their
// checkers read the registry from several threads at once.)

#include <array>
#include <bit>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/events/event_log.hpp>

namespace twice {

// A set of event kinds (the alternatives of ev::payload), by type:
// event_kinds::of<ev::attempt_start, ev::backoff>().
class event_kinds {
 public:
  static constexpr std::size_t count = std::variant_size_v<ev::payload>;

  static event_kinds all() {
    event_kinds k;
    for (std::size_t kind = 0; kind < count; ++kind) k.set(kind);
    return k;
  }
  template <class... Payloads>
  static event_kinds of() {
    event_kinds k;
    (k.set(index_of<Payloads>()), ...);
    return k;
  }
  bool contains(std::size_t kind) const {
    return (words_[kind / 64] >> (kind % 64) & 1U) != 0;
  }  // an ev::payload index
  // Calls visit(kind) for each kind in the set, in index order.
  template <class Visit>
  void for_each(Visit visit) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        visit(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }

  // The index of `Payload` among ev::payload's alternatives.
  template <class Payload>
  static constexpr std::size_t index_of() {
    return index_in<Payload>(static_cast<ev::payload*>(nullptr));
  }

 private:
  template <class Payload, class... Ts>
  static constexpr std::size_t index_in(std::variant<Ts...>*) {
    constexpr bool is[] = {std::is_same_v<Payload, Ts>...};
    for (std::size_t i = 0; i < sizeof...(Ts); ++i)
      if (is[i]) return i;
    return sizeof...(Ts);
  }
  void set(std::size_t kind) { words_[kind / 64] |= std::uint64_t{1} << (kind % 64); }

  static_assert(count <= 128, "event_kinds holds 128 kinds: give it another word");
  std::array<std::uint64_t, 2> words_{};
};

class invariant : public event_observer {
 public:
  // From event_observer: on_event(e, names) for every event it wants(),
  // and footprint(), the bytes it holds (they count against the world's
  // memory budget).

  // The event kinds on_event is called with; every kind unless narrowed. A
  // run hands each event only to the invariants that want its kind.
  virtual event_kinds wants() const { return event_kinds::all(); }

  // Called when a job ends (its job_done, job_failed or dead_letter event),
  // after on_event saw that event if it wants its kind: what was kept
  // about an open job may be settled or dropped.
  virtual void on_job_end(const ev::event& /*e*/, ev::name_id /*job*/) {}

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
bool remove_invariant(std::string_view name);  // false if none; a built-in one cannot be removed
// In name order; the built-in ones are not listed (invariant_names() has
// all). Each view lives as long as its registration.
std::vector<std::string_view> registered_invariant_names();
// Whether `name` is one of the 17 built-in invariants.
bool is_builtin_invariant(std::string_view name);
// A fresh invariant of any name invariant_names() lists, built-in or a
// program's own, for a run of `config`; null for a name nobody registered.
// A built-in one made alone keeps whatever it shares with the others in a
// checked run (checks/checked_run.hpp) for itself, and judges with
// `checks` (a checked run's options).
std::unique_ptr<invariant> make_invariant(std::string_view name, const world_config& config,
                                          const check_options& checks = {});

}  // namespace registry
}  // namespace twice
