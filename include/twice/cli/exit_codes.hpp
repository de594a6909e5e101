#pragma once
// The process exit codes of `twice`, one meaning each.

namespace twice::cli {
enum class exit_code : int {
  ok = 0,  // ran; expectations met
  expectations_failed = 1,
  bad_input = 2,       // unreadable or invalid input, bad usage
  nondeterminism = 3,  // --check-determinism found two digests
};
constexpr int to_int(exit_code c) { return static_cast<int>(c); }
}  // namespace twice::cli
