#pragma once
// The whole `twice` command line as a function, for a program that links
// twice (twice::app) with its own handlers, tools and invariants:
//
//   int main(int argc, char** argv) { return twice::main(argc, argv); }
//
// gives it `run`, `lint`, `explore`, `sweep` and every report, exactly as
// the `twice` binary has them. The exit code is one of cli/exit_codes.hpp.

namespace twice {
namespace cli {
// Parse argv, run the chosen command, return its exit code.
int main_command(int argc, const char* const* argv);
}  // namespace cli

inline int main(int argc, const char* const* argv) { return cli::main_command(argc, argv); }
}  // namespace twice
