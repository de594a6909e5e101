#pragma once
// A count and its noun, in the number the count asks for: "1 job", "2 jobs",
// "0 retries". Every line a person reads says it this way; "job(s)" is for
// programs that cannot count.

#include <concepts>
#include <string>
#include <string_view>

namespace twice::sim {

// Only the noun: `one` for 1, else `many` (`one` + "s" unless given: "entry", "entries").
template <std::integral N>
std::string noun_for(N n, std::string_view one, std::string_view many = {}) {
  if (n == 1) return std::string(one);
  return many.empty() ? std::string(one) + "s" : std::string(many);
}

// "1 job", "2 jobs", "0 jobs".
template <std::integral N>
std::string counted(N n, std::string_view one, std::string_view many = {}) {
  return std::to_string(n) + " " + noun_for(n, one, many);
}

}  // namespace twice::sim
