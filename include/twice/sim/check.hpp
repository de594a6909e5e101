#pragma once
// Kernel assertions. They stay on in every build type (release included):
// a simulator that silently runs past a broken invariant produces verdicts
// nobody should trust. Keep conditions simple and split, one fact per check.

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace twice::sim::detail {
[[noreturn]] inline void check_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "twice: kernel check failed: %s at %s:%d\n", expr, file, line);
  std::abort();
}

// Integer overflow in checked arithmetic (sim/checked.hpp): `what` names the
// operation ("instant + duration overflows int64 microseconds"). Cold and out
// of line so the caller's fast path is one operation and one branch.
[[noreturn, gnu::cold, gnu::noinline]] inline void overflow_failed(const char* what, std::int64_t a, const char* op,
                                                                   std::int64_t b) {
  std::fprintf(stderr, "twice: kernel check failed: %s (%lld %s %lld)\n", what, static_cast<long long>(a), op,
               static_cast<long long>(b));
  std::abort();
}
}  // namespace twice::sim::detail

#define TWICE_CHECK(cond)                                                       \
  do {                                                                          \
    if (!(cond)) ::twice::sim::detail::check_failed(#cond, __FILE__, __LINE__); \
  } while (false)
