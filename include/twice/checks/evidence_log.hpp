#pragma once
// What an invariant found wrong as the trace streamed by: how many
// violations, when the first was, and the earliest few as evidence lines (a
// bug may break an invariant on every delivery; a reader needs the first
// ones, and the count). Every built-in invariant keeps its evidence in one;
// an invariant of a program's own (checks/invariant.hpp) may too:
//
//   if (granted_twice) log_.note(e, names, "the second grant of this step");
//   ...
//   return log_.streaming_verdict("no_points_twice", "every step granted once", "a step granted twice");

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/events/event_log.hpp>

namespace twice {

class evidence_log {
 public:
  // Keeps at most `evidence_max` lines (check_options::evidence_max).
  explicit evidence_log(std::size_t evidence_max = check_options{}.evidence_max) : max_(evidence_max) {}

  // A violation shown by `e`: counted, and kept as the event's line with
  // "  <- why" if it is among the earliest (described only then).
  void note(const ev::event& e, const name_table& names, std::string_view why);
  // A violation at `at` found otherwise (a final pass): counted only.
  void count(sim::instant at);
  // Whether a line at `at` would be among the earliest evidence_max lines.
  bool worth_keeping(sim::instant at) const;
  // Keeps `line` in time order (after any of the same time), dropping the
  // latest beyond evidence_max: a final pass may find violations earlier
  // than ones noted while streaming.
  void keep(sim::instant at, std::string line);

  std::uint64_t violations() const { return count_; }  // every one, not only those kept
  std::optional<sim::instant> first() const { return first_; }
  const std::vector<std::pair<sim::instant, std::string>>& lines() const { return evidence_; }

  // The verdict of an invariant judged as the trace streamed by: held with
  // `held_detail` if nothing was noted, else violated with
  // `violated_detail`, saying how many there were when the evidence cannot
  // show every one.
  verdict streaming_verdict(std::string_view name, std::string held_detail, std::string violated_detail) const;

 private:
  std::size_t max_;
  std::uint64_t count_ = 0;
  std::optional<sim::instant> first_;
  std::vector<std::pair<sim::instant, std::string>> evidence_;  // the earliest, in time order
};

}  // namespace twice
