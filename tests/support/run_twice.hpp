#pragma once
// Runs the built `twice` binary (its path comes from CMake) as a user would,
// for the command-line tests.

#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace twice::test {

struct run_result {
  int exit_code = -1;
  std::string out;
};

// stdout; stderr goes to `err_file` when given, else with stdout. `env`,
// when given, is what env(1) sets for the binary alone ("-u NAME NAME=value").
inline run_result run(const std::string& args, const std::string& err_file = {}, const std::string& env = {}) {
  const std::string command = (env.empty() ? std::string() : "env " + env + " ") + std::string(TWICE_BINARY) + " " +
                              args + (err_file.empty() ? " 2>&1" : " 2>" + err_file);
  run_result r;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) r.out += buffer.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace twice::test
