#pragma once
// Kernel assertions. They stay on in every build type (release included):
// a simulator that silently runs past a broken invariant produces verdicts
// nobody should trust. Keep conditions simple and split, one fact per check.

#include <cstdio>
#include <cstdlib>

namespace twice::sim::detail {
[[noreturn]] inline void check_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "twice: kernel check failed: %s at %s:%d\n", expr, file, line);
  std::abort();
}
}  // namespace twice::sim::detail

#define TWICE_CHECK(cond)                                                  \
  do {                                                                     \
    if (!(cond)) ::twice::sim::detail::check_failed(#cond, __FILE__, __LINE__); \
  } while (false)
