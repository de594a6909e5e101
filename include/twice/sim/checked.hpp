#pragma once
// Checked int64 arithmetic for the simulator's quantities (microseconds,
// cents). Two forms of each operation:
//
//   try_add / try_sub / try_mul / try_div      the result, or nullopt where
//                                              the exact result is not an int64
//   checked_add / checked_sub / checked_mul /  the result, or a kernel check
//   checked_div                                failure naming `what` (on in
//                                              every build type, like TWICE_CHECK)
//
// Both forms test the same builtin (__builtin_*_overflow). All are constexpr:
// an overflow in a constant expression is a compile error. The failure path
// is cold and out of line; the fast path is the operation and one predictable
// branch (`add; jo` on x86-64).

#include <cstdint>
#include <limits>
#include <optional>

#include <twice/sim/check.hpp>

namespace twice::sim {

constexpr std::optional<std::int64_t> try_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

constexpr std::optional<std::int64_t> try_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

constexpr std::optional<std::int64_t> try_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Truncates toward zero, as `/` does. No result for a zero divisor, nor for
// INT64_MIN / -1 (2^63 is not an int64).
constexpr std::optional<std::int64_t> try_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return std::nullopt;
  if (b == -1 && a == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
  return a / b;
}

constexpr std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    detail::overflow_failed(what, a, "+", b);
  return r;
}

constexpr std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]]
    detail::overflow_failed(what, a, "-", b);
  return r;
}

constexpr std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    detail::overflow_failed(what, a, "*", b);
  return r;
}

constexpr std::int64_t checked_div(std::int64_t a, std::int64_t b, const char* what) {
  const std::optional<std::int64_t> r = try_div(a, b);
  if (!r) [[unlikely]]
    detail::overflow_failed(what, a, "/", b);
  return *r;
}

}  // namespace twice::sim
