#pragma once
// How far one word is from another, for "did you mean": the scenario
// loader's keys and values, and the command line's options.

#include <cstddef>
#include <string_view>

namespace twice::sim {

// Optimal string alignment distance (Levenshtein plus adjacent
// transpositions: "retyr" is one edit from "retry", "rnu" from "run").
// Inputs are cut to 64 characters so a pathological word costs nothing.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace twice::sim
