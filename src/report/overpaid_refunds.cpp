#include "report/overpaid_refunds.hpp"

#include <algorithm>

#include <twice/checks/invariants.hpp>
#include <twice/report/spans.hpp>

namespace twice {

bool names_word(std::string_view text, std::string_view word) {
  const auto in_word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  };
  if (word.empty()) return false;
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool before = at == 0 || !in_word(text[at - 1]);
    const bool after = at + word.size() == text.size() || !in_word(text[at + word.size()]);
    if (before && after) return true;
  }
  return false;
}

std::set<std::string, std::less<>> overpaying_refunds(const std::vector<verdict>& verdicts,
                                                      const std::vector<refund_mark>& refunds) {
  std::set<std::string, std::less<>> out;
  for (const verdict& v : verdicts) {
    if (v.held || v.name != "no_double_payment") continue;
    for (const refund_mark& r : refunds) {
      if (r.nth_for_invoice < 2) continue;
      const bool named = names_word(v.detail, r.invoice) ||
                         std::any_of(v.evidence.begin(), v.evidence.end(),
                                     [&](const std::string& e) { return names_word(e, r.invoice); });
      if (named) out.insert(r.ref);
    }
  }
  return out;
}

}  // namespace twice
