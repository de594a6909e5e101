#pragma once
// What the built-in invariants of one run share: the checks' options, the
// watches several of them read (each kept once, fed each event before the
// invariants see it), and what the money invariants all weigh at the end.
// A built-in invariant's factory takes it (checks/builtin_invariants.hpp);
// a watch no invariant asked for is never fed.

#include <memory>
#include <optional>

#include <twice/checks/invariant.hpp>

#include "checks/effect_watch.hpp"
#include "checks/job_watch.hpp"
#include "checks/money_books.hpp"

namespace twice {

class check_context {
 public:
  check_context(check_options options, const world_config& config)
      : options_(options), counts_failures_(job_watch_table::counts_failures(config)) {}

  const check_options& options() const { return options_; }
  std::size_t evidence_max() const { return options_.evidence_max; }

  // The shared watches, made when first asked for.
  job_watch_table& jobs() {
    if (!jobs_) jobs_.emplace(counts_failures_);
    return *jobs_;
  }
  effect_watch& effects() {
    if (!effects_) effects_.emplace();
    return *effects_;
  }
  // Those asked for, in the order they see each event, with the kinds they want.
  template <class Visit>
  void for_each_watch(Visit visit) {
    if (jobs_) visit(static_cast<event_observer&>(*jobs_), job_watch_table::kinds());
    if (effects_) visit(static_cast<event_observer&>(*effects_), effect_watch::kinds());
  }
  template <class Visit>
  void for_each_watch(Visit visit) const {
    if (jobs_) visit(static_cast<const event_observer&>(*jobs_), job_watch_table::kinds());
    if (effects_) visit(static_cast<const event_observer&>(*effects_), effect_watch::kinds());
  }

  // The money tools' books, made at the first money verdict and kept for the others.
  const money_books& money(const world& w) {
    if (!money_) money_ = std::make_unique<money_books>(w);
    return *money_;
  }

 private:
  check_options options_;
  bool counts_failures_;
  std::optional<job_watch_table> jobs_;
  std::optional<effect_watch> effects_;
  std::unique_ptr<money_books> money_;
};

}  // namespace twice
