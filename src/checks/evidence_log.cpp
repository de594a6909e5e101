#include <twice/checks/evidence_log.hpp>

#include <algorithm>

#include <fmt/core.h>

namespace twice {

void evidence_log::count(sim::instant at) {
  ++count_;
  if (!first_ || at < *first_) first_ = at;
}

bool evidence_log::worth_keeping(sim::instant at) const {
  if (max_ == 0) return false;
  return evidence_.size() < max_ || at < evidence_.back().first;
}

void evidence_log::keep(sim::instant at, std::string line) {
  const auto later = std::upper_bound(evidence_.begin(), evidence_.end(), at,
                                      [](sim::instant t, const auto& kept) { return t < kept.first; });
  evidence_.emplace(later, at, std::move(line));
  if (evidence_.size() > max_) evidence_.pop_back();
}

void evidence_log::note(const ev::event& e, const name_table& names, std::string_view why) {
  count(e.at);
  // Described only when kept: a bug may break an invariant on every delivery.
  if (worth_keeping(e.at)) keep(e.at, describe(as_record(e, names)) + "  <- " + std::string(why));
}

verdict evidence_log::streaming_verdict(std::string_view name, std::string held_detail,
                                        std::string violated_detail) const {
  verdict v{std::string(name), count_ == 0, std::move(held_detail), {}, first_};
  if (v.held) return v;
  v.detail = std::move(violated_detail);
  if (count_ > evidence_.size()) v.detail += fmt::format(" ({} in all, {} shown)", count_, evidence_.size());
  for (const auto& [at, line] : evidence_) v.evidence.push_back(line);
  return v;
}

}  // namespace twice
