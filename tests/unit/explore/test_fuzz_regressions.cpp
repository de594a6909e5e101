// The fuzzers' findings, kept: every input that once crashed or hung a
// fuzzer (tests/fuzz_regressions/<target>/) and the whole committed seed
// corpus (fuzz/corpus/<target>/) go through the same checks the libFuzzer
// targets apply (fuzz/input_checks.hpp), in the normal test run, under gcc
// and under ASan + UBSan, without libFuzzer.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/input_checks.hpp"
#include "test_files.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path source_dir = twice::test::repo_root();

// The inputs of one target, in name order; a directory that is absent has none.
std::vector<fs::path> inputs_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<fs::path> corpus_and_regressions(const std::string& target) {
  std::vector<fs::path> out = inputs_in(source_dir / "fuzz" / "corpus" / target);
  // An empty corpus means a moved directory, not a passing test.
  REQUIRE(out.size() >= 10);
  for (const fs::path& p : inputs_in(source_dir / "tests" / "fuzz_regressions" / target)) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("the scenario loader's seed corpus and past fuzz findings load or fail cleanly", "[fuzz]") {
  for (const fs::path& input : corpus_and_regressions("scenario_loader")) {
    INFO(input.string());
    CHECK(twice::fuzz::check_scenario_text(bytes_of(input)) == "");
  }
}

TEST_CASE("the duration parser's seed corpus and past fuzz findings parse or fail cleanly", "[fuzz]") {
  for (const fs::path& input : corpus_and_regressions("duration_parser")) {
    INFO(input.string());
    const std::string bytes = bytes_of(input);
    CHECK(twice::fuzz::check_duration_text(bytes) == "");
    if (bytes.size() >= sizeof(std::int64_t)) {
      std::int64_t us = 0;
      std::memcpy(&us, bytes.data(), sizeof us);
      CHECK(twice::fuzz::check_duration_value(us) == "");
    }
  }
}
