#pragma once
// Files the tests read and write: the repository's own (the catalogue, the
// benchmarks' scenarios, the examples) and empty directories of their own
// for outputs. One copy, so every test reads a file the same way.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace twice::test {

// The repository's root: TWICE_SOURCE_DIR, which the build defines for the
// test programs (an absolute path, so a test may run from any folder);
// otherwise this header's place in tests/support/ (__FILE__ is relative to the build
// folder under Ninja, absolute under Make).
inline std::filesystem::path repo_root() {
#ifdef TWICE_SOURCE_DIR
  return std::filesystem::path(TWICE_SOURCE_DIR);
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

// A whole file as it is, byte for byte; empty when it cannot be read.
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A scenario of the catalogue (scenarios/), as text.
inline std::string catalogue(std::string_view name) { return read_text(repo_root() / "scenarios" / name); }

// `relative` under the temporary directory, emptied (or made).
inline std::filesystem::path empty_temp_dir(const std::filesystem::path& relative) {
  const auto dir = std::filesystem::temp_directory_path() / relative;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace twice::test
