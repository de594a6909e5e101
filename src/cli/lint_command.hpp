#pragma once
// `twice lint FILE...`: the classic mistakes, before anything runs.

#include <string>
#include <vector>

namespace twice::cli {
// Exit 0 when no file has a warning, 1 when one has, 2 for bad input.
int lint_command(const std::vector<std::string>& files);
}  // namespace twice::cli
