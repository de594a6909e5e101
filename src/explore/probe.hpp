#pragma once
// One run of a scenario with the invariant checkers attached, keeping only
// what explore needs: the verdicts, the trace digest and the scenario's size.
// Trace records are not kept (the digest is the same either way), so a run
// costs the world and the checkers, nothing more.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/checks/situations.hpp>
#include <twice/explore/scenario_size.hpp>
#include <twice/scenario/scenario.hpp>

namespace twice::explore {

struct probe_result {
  bool loaded = false;
  std::vector<scenario_error> errors;  // when the text did not load
  std::vector<verdict> verdicts;
  std::uint64_t trace_digest = 0;
  scenario_size size;
  situation_set reached = 0;  // the situations the run reached (checks/situations.hpp)

  // Whether the named invariant was checked and found violated.
  bool violates(std::string_view invariant) const;
};

probe_result probe(const scenario& sc);
// Loads the text, then runs it; a text that does not load is not run.
probe_result probe_text(std::string_view text, const std::string& path_for_messages);
// The same from a parsed document (explore's variants and shrink candidates):
// no text written and parsed again per run.
probe_result probe_document(const scenario_detail::doc_node& root, const std::string& path_for_messages);

}  // namespace twice::explore
