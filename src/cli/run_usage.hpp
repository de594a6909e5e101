#pragma once
// What `twice run` refuses before it loads or runs anything: standard input
// named twice, a file output with more than one scenario, an output that
// would overwrite the scenario, and two outputs naming the same file (one
// would silently overwrite the other).

#include <string>

#include "cli/run_command.hpp"

namespace twice::cli {

// "" or the message (without the "twice run: " prefix).
std::string run_usage_problem(const run_options& options);

}  // namespace twice::cli
