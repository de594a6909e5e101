#pragma once
// An exploration's results as files, so its runs can be split over machines
// (a Slurm job array, a Kubernetes Indexed Job, a CI matrix) and merged:
//
//   shard K of N:  twice explore F --shard K/N --out D  ->  D/shard-K-of-N.json
//   merge:         twice merge D --out M                ->  M/explore.json + repro files
//   unsharded:     twice explore F --out M              ->  M/explore.json + repro files
//
// Both `explore.json` files are byte for byte the same: neither holds a
// wall-clock figure, and the merge shrinks what the unsharded run shrinks.
// Every file is stamped with what its runs depend on (the scenario's bytes,
// the root seed, the options that change results, the binary's version), and
// a merge refuses files whose stamps differ, and a shard missing or given twice.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/explore/explore.hpp>

namespace twice::explore {

struct explore_stamp {
  std::string path;           // the explored file, as given
  std::string scenario_hash;  // XXH3-64 of its bytes, 16 hex digits
  std::uint64_t root_seed = 0;
  std::size_t runs = 0;  // asked, of the whole exploration
  bool all = false;
  std::size_t shrink_runs = 0;
  std::string guide = "none";  // --guide: "none" or "coverage"
  std::string version;         // "twice 0.1.0"
  bool operator==(const explore_stamp&) const = default;
};

explore_stamp stamp_of(const explore_input& input, const explore_options& options, std::uint64_t root_seed,
                       std::string version);

// "shard-2-of-7.json"
std::string shard_file_name(shard part);
inline constexpr std::string_view result_file_name = "explore.json";

// A shard's file: its stamp and runs, and the scenario's text (a merge on
// another machine needs no copy of the file).
std::string shard_json(const explore_stamp& stamp, const explore_input& input, const run_set& runs);

// The whole exploration's file (`explore.json`): the stamp, the counts, every
// counted run (index, world seed, invariants violated) and the findings with
// their repro files' names.
std::string result_json(const explore_stamp& stamp, const explore_input& input, const explore_result& result);

struct shard_file {
  std::string file;  // where it was read from, for messages
  explore_stamp stamp;
  shard part;
  std::string scenario_text;
  std::vector<run_record> runs;
};

// A shard file read back, or why it cannot be: "D/shard-0-of-2.json: not a
// twice shard file (no \"stamp\")".
struct shard_read {
  std::optional<shard_file> value;
  std::string error;
};
shard_read read_shard_json(std::string_view text, const std::string& file);

// Why these shards cannot be merged, or "": stamps that differ (naming the
// field and both files), counts that differ, a shard missing or given twice,
// a scenario text that is not the one its stamp hashed.
std::string merge_problem(const std::vector<shard_file>& shards);

}  // namespace twice::explore
