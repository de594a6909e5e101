// `twice explore --shard K/N` and `twice merge`, run as a user runs them:
// the merged result and repro files are byte for byte those of the
// unsharded run, however the runs were split; a merge refuses shards of
// different explorations, a shard missing or given twice, and a file that
// is not a shard, and writes nothing then; `--shard auto` reads Slurm's,
// Kubernetes' and GitLab's variables.

#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_twice.hpp"
#include "test_files.hpp"

namespace {
using twice::test::read_text;
using twice::test::run;
using twice::test::run_result;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  return twice::test::empty_temp_dir(fs::path("twice-cli-shards-test") / name);
}

// key_per_attempt_fixed.toml with its key switched off: explore finds
// no_double_payment and ledgers_agree in some runs, not all.
std::string broken_scenario(const fs::path& dir) {
  std::string text = read_text(std::string(TWICE_SOURCE_DIR) + "/scenarios/key_per_attempt_fixed.toml");
  const std::string from = "key = \"stable\"";
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "key = \"none\"");
  const std::string path = (dir / "broken.toml").string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Every file of a directory, by name, with its bytes.
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) out[entry.path().filename().string()] = read_text(entry.path());
  return out;
}

// The engines' variables, none set: each test sets its own.
const std::string no_engine =
    "-u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN "
    "-u SLURM_ARRAY_TASK_STEP -u JOB_COMPLETION_INDEX -u CI_NODE_INDEX -u CI_NODE_TOTAL";

}  // namespace

TEST_CASE("twice merge of N shards writes byte for byte what the unsharded explore writes", "[cli][shards]") {
  const auto dir = fresh_dir("identical");
  const std::string file = broken_scenario(dir);
  const std::string options = " --runs 30 --all --jobs 2";
  const run_result whole = run("explore " + file + options + " --out " + (dir / "whole").string());
  INFO(whole.out);
  REQUIRE(whole.exit_code == 1);
  const std::map<std::string, std::string> expected = files_of(dir / "whole");
  REQUIRE(expected.size() == 3);  // explore.json and two repro files
  REQUIRE(expected.contains("explore.json"));

  for (const int n : {1, 2, 3, 7}) {
    INFO("N = " << n);
    const fs::path shards = dir / ("shards-" + std::to_string(n));
    for (int k = n - 1; k >= 0; --k) {  // any order: a shard is the same whenever it runs
      const run_result shard = run("explore " + file + options + " --shard " + std::to_string(k) + "/" +
                                   std::to_string(n) + " --out " + shards.string());
      INFO(shard.out);
      REQUIRE(shard.exit_code == 0);  // a shard judges nothing: the merge does
      CHECK(shard.out.find("shard       " + std::to_string(k) + " of " + std::to_string(n) + ": ") !=
            std::string::npos);
    }
    CHECK(files_of(shards).size() == static_cast<std::size_t>(n));
    const fs::path merged = dir / ("merged-" + std::to_string(n));
    const run_result merge = run("merge " + shards.string() + " --out " + merged.string());
    INFO(merge.out);
    CHECK(merge.exit_code == 1);
    CHECK(merge.out.find("runs        30 of 30 (root seed 10) from " + std::to_string(n) +
                         (n == 1 ? " shard" : " shards")) != std::string::npos);
    CHECK(files_of(merged) == expected);
  }
}

TEST_CASE("twice merge refuses shards of different explorations, missing or twice, and writes nothing",
          "[cli][shards]") {
  const auto dir = fresh_dir("refused");
  const std::string file = broken_scenario(dir);
  auto shard = [&](const std::string& part, const std::string& out, const std::string& more = {}) {
    const run_result r = run("explore " + file + " --shard " + part + " --out " + (dir / out).string() +
                             (more.empty() ? " --runs 12" : more));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return (dir / out /
            ("shard-" + part.substr(0, part.find('/')) + "-of-" + part.substr(part.find('/') + 1) + ".json"))
        .string();
  };
  const std::string s0 = shard("0/3", "a");
  const std::string s1 = shard("1/3", "a");
  const std::string s2 = shard("2/3", "a");
  const std::string other_seed = shard("2/3", "seed", " --runs 12 --seed 99");
  const std::string other_runs = shard("2/3", "runs", " --runs 13");
  const std::string other_count = shard("1/2", "count");

  auto refused = [&](const std::string& inputs, const std::string& why) {
    const fs::path out = dir / "out";
    const run_result r = run("merge " + inputs + " --out " + out.string());
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find(why) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  };
  refused(s0 + " " + s1, "shard 2 of 3 is missing: a merge needs every shard of the exploration");
  refused(s0, "shards 1, 2 of 3 are missing");
  refused(s0 + " " + s1 + " " + s2 + " " + s1, "shard 1 of 3 is given twice: " + s1 + " and " + s1);
  refused(s0 + " " + s1 + " " + other_seed, "come from different explorations: root seed 10 against 99");
  refused(s0 + " " + s1 + " " + other_runs, "come from different explorations: --runs 12 against 13");
  refused(s0 + " " + s1 + " " + other_count, "come from different explorations: shard count 3 against 2");
  refused((dir / "nothing-here").string() + "-missing", "cannot read");

  // A shard whose scenario text was edited after its stamp was made.
  std::string text = read_text(s2);
  const std::string key = R"(key = \"none\")";  // as JSON escapes it
  const std::size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  text.replace(at, key.size(), R"(key = \"stable\")");
  const std::string edited = (dir / "shard-2-of-3-edited.json").string();
  std::ofstream(edited, std::ios::binary) << text;
  refused(s0 + " " + s1 + " " + edited, edited + ": its scenario text is not the one its stamp hashed");
  // A result file is not a shard file.
  const run_result whole = run("explore " + file + " --runs 12 --out " + (dir / "whole").string());
  REQUIRE(whole.exit_code == 1);
  refused((dir / "whole" / "explore.json").string(), "not a twice shard file");
  fs::create_directories(dir / "empty");
  refused((dir / "empty").string(), "holds no shard files");

  // The shards themselves, in order: accepted.
  const run_result merged = run("merge " + (dir / "a").string() + " --out " + (dir / "merged").string());
  CHECK(merged.exit_code == 1);
  CHECK(files_of(dir / "merged") == files_of(dir / "whole"));
}

TEST_CASE("twice explore --shard auto takes its shard from Slurm, Kubernetes or GitLab", "[cli][shards]") {
  const auto dir = fresh_dir("auto");
  const std::string file = broken_scenario(dir);
  const std::string out = (dir / "out").string();
  auto explore = [&](const std::string& env, const std::string& more = {}) {
    return run("explore " + file + " --runs 10 --shard auto --out " + out + more, {}, no_engine + " " + env);
  };
  auto wrote = [&](const std::string& name) {
    const bool there = fs::exists(fs::path(out) / name);
    fs::remove_all(out);
    return there;
  };
  CHECK(explore("SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=4").exit_code == 0);
  CHECK(wrote("shard-2-of-4.json"));
  // `sbatch --array=1-4` numbers its tasks from 1.
  CHECK(explore("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1").exit_code == 0);
  CHECK(wrote("shard-0-of-4.json"));
  CHECK(explore("JOB_COMPLETION_INDEX=3", " --shards 5").exit_code == 0);
  CHECK(wrote("shard-3-of-5.json"));
  // GitLab's CI_NODE_INDEX counts from 1.
  CHECK(explore("CI_NODE_INDEX=3 CI_NODE_TOTAL=3").exit_code == 0);
  CHECK(wrote("shard-2-of-3.json"));

  const std::map<std::string, std::string> mistakes = {
      {"", "none of SLURM_ARRAY_TASK_ID (a Slurm job array), JOB_COMPLETION_INDEX"},
      {"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"},
      {"SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4", "the shard index 4 must be below the count 4"},
      {"SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_STEP=2", "a Slurm array with a step"},
      {"SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_ID=\"x\" is not a whole number"},
      {"JOB_COMPLETION_INDEX=0", "give the Job's completions as --shards N"},
      {"CI_NODE_INDEX=0 CI_NODE_TOTAL=2", "CI_NODE_INDEX counts from 1 and is 0"},
  };
  for (const auto& [env, why] : mistakes) {
    INFO(env);
    const run_result r = explore(env);
    CHECK(r.exit_code == 2);
    CHECK(r.out.starts_with("twice explore: --shard auto"));
    CHECK(r.out.find(why) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
  for (const auto& [args, why] : std::map<std::string, std::string>{
           {"--shard 3/3", "--shard 3/3: the shard index 3 must be below the count 3"},
           {"--shard 1-3", "--shard: expected K/N (shard K of N, from 0) or auto, found \"1-3\""},
           {"--shard 0/2 --shards 2", "--shards N goes with --shard auto only"},
           {"--shards 2", "--shards N goes with --shard auto"}}) {
    const run_result r = run("explore " + file + " " + args + " --out " + out);
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find(why) != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}
