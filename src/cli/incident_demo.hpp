#pragma once
// `twice incident [--fixed]`: the double refund built in C++ and run on the
// world, printed as a timeline with the two ledgers side by side.

#include <cstdint>
#include <optional>

namespace twice::cli {
int print_incident(bool fixed, std::optional<std::uint64_t> seed, bool quiet);
}
