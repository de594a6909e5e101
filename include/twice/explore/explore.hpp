#pragma once
// `twice explore` as a library: run a scenario under many seeds (and the
// variations its [explore] table allows), find the runs where an invariant
// the file did not expect to break broke, shrink the first such run (or the
// first for each invariant), and produce a standalone scenario file that
// reproduces it with `twice run`.
//
//   prepared p = prepare_file("scenarios/key_per_attempt_fixed.toml");
//   explore_result r = run_explore(*p.input, {.runs = 50, .jobs = 4});
//   for (const finding& f : r.findings) write(f.repro_text);
//
// Results depend only on the file, the root seed and the run count: run i
// draws everything from the named stream "explore.run.<i>" of the root seed,
// runs share nothing, and results are gathered in run-index order, so any
// number of threads gives the same findings, the same shrink and the same
// repro text, byte for byte.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <twice/checks/situations.hpp>
#include <twice/explore/run_genes.hpp>
#include <twice/explore/scenario_size.hpp>
#include <twice/explore/shrink_summary.hpp>
#include <twice/explore/time_limit.hpp>
#include <twice/scenario/scenario.hpp>

namespace twice::explore {

struct explore_input {
  std::string path;  // the explored file, as given
  std::string text;  // its bytes, as read
  std::string name;
  std::uint64_t file_seed = 1;
  explore_spec spec;
  expectations expect;  // the file's own: invariants it expects violated are not findings
  // The file's document without [explore], parsed once and shared by every
  // copy (never changed: each run copies what it varies).
  std::shared_ptr<const scenario_detail::doc_node> base;
  std::vector<std::string> kinds;  // the fault kinds present
};

struct prepared {
  std::optional<explore_input> input;  // set exactly when errors is empty
  std::vector<scenario_error> errors;
};

// Loads a file for exploring: the loader's errors first; then each range of
// [explore.vary] is checked by loading the scenario with its lower bound and
// with its upper bound (the others as written), so a bound the scenario
// cannot take is reported at the range, with the loader's reason.
prepared prepare_file(const std::string& path);
prepared prepare_text(std::string_view text, const std::string& path);

struct explore_progress {
  std::size_t done = 0;            // runs finished
  std::size_t total = 0;           // runs asked for
  std::size_t violating_runs = 0;  // finished runs with an unexpected violation
};

// Which of the runs 0 .. runs-1 this process does: i with i % count == index.
struct shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool operator==(const shard&) const = default;
};

// How runs are chosen: each on its own (plain swarm), or in generations,
// favouring near variants of runs that reached rare situations.
enum class guide_mode { none, coverage };

struct explore_options {
  std::size_t runs = 100;
  std::optional<std::uint64_t> root_seed;  // unset: the file's seed
  unsigned jobs = 1;                       // threads running worlds
  // Wall clock, never seen by a world: no run starts after `deadline`, and
  // shrinking stops at `shrink_deadline` (unset: at `deadline`) with what it
  // has. Only a prefix of runs counts (below). limit_time() sets both from
  // --time-limit's split.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::optional<std::chrono::steady_clock::time_point> shrink_deadline;
  std::optional<time_split> time_limit;  // the split the two came from, reported in the result
  bool all = false;               // shrink the first run of every distinct invariant, not only the first violation
  std::size_t shrink_runs = 400;  // candidates each shrink may try
  shard part;                     // collect_runs() does only this shard's runs
  guide_mode guide = guide_mode::none;
  std::size_t generation = 64;  // runs per generation, guided
  // Called on the calling thread about ten times a second while runs go on.
  std::function<void(const explore_progress&)> on_progress;
};

// --time-limit D from `start`: runs until start + split.runs, shrinking until start + D.
void limit_time(explore_options& options, std::chrono::steady_clock::time_point start, sim::duration limit);

struct finding {
  std::string invariant;
  std::size_t run_index = 0;
  std::uint64_t world_seed = 0;
  std::vector<std::pair<std::string, std::string>> drawn;  // the run's [explore.vary] values
  std::vector<std::string> kinds_kept;
  std::vector<std::string> kinds_dropped;
  scenario_size original_size;  // the run's scenario, before shrinking
  shrink_summary shrunk;
  scenario_size shrunk_size;
  std::string repro_text;          // the standalone scenario file
  std::uint64_t repro_digest = 0;  // trace digest of the repro, loaded back from repro_text and run
  bool repro_checked = false;      // the repro text loads and violates the invariant
};

// One run's outcome: all a merge needs of it (its values are redrawn from
// the root seed and the index when it is shrunk).
struct run_record {
  std::size_t index = 0;
  std::uint64_t world_seed = 0;
  // The invariants it violated that the file neither expected violated nor
  // ignored, in report order.
  std::vector<std::string> violated;
  situation_set reached = 0;  // the situations it reached
  bool operator==(const run_record&) const = default;
};

// The runs of one shard, before anything is shrunk.
struct run_set {
  std::uint64_t root_seed = 0;
  std::size_t runs_asked = 0;  // of the whole exploration, every shard's
  shard part;
  // The shard's runs in index order; with a deadline, the longest prefix of
  // them that finished.
  std::vector<run_record> runs;
  bool deadline_hit = false;
  std::chrono::steady_clock::duration runs_wall{};
  std::size_t violating_runs = 0;
  // As in explore_result: the first run whose drawn values do not load.
  std::optional<std::size_t> bad_run;
  std::vector<scenario_error> bad_run_errors;
  // Guided only: what each run drew (its plan is not plan_run's).
  std::vector<run_genes> genes;
};

struct explore_result {
  std::uint64_t root_seed = 0;
  std::size_t runs_asked = 0;
  // Runs counted: all of them, or with a deadline the longest prefix
  // 0 .. n-1 that finished (later runs that happened to finish are dropped,
  // so `--runs n` reproduces the same result).
  std::size_t runs_done = 0;
  bool deadline_hit = false;
  std::optional<time_split> time_limit;  // options.time_limit: how --time-limit was split
  // Wall-clock time the runs took (shrinking excluded): for runs per second only.
  std::chrono::steady_clock::duration runs_wall{};
  std::size_t violating_runs = 0;
  // Per invariant (report order), how many counted runs violated it without the file expecting it.
  std::vector<std::pair<std::string, std::size_t>> violations;
  std::vector<finding> findings;
  std::vector<run_record> runs;  // the counted runs, 0 .. runs_done-1
  // Per situation (situations() order), how many counted runs reached it.
  std::vector<std::size_t> reached;
  // The situations the file's [expect] reach lists that no counted run reached.
  std::vector<std::string> unreached_expected;
  // A run whose drawn values gave a scenario that does not load (two
  // ranges that clash): bad input, reported with the run's index.
  std::optional<std::size_t> bad_run;
  std::vector<scenario_error> bad_run_errors;
};

// collect_runs() over every run (options.part ignored), then finish_exploration().
explore_result run_explore(const explore_input& input, const explore_options& options);

// The runs of options.part, unshrunk.
run_set collect_runs(const explore_input& input, const explore_options& options);

// From the runs of every shard (any order, each run once): counts them up to
// the first run missing (a shard's deadline), then shrinks the first
// violating run (or, with options.all, the first per invariant) and writes
// its repro. `root_seed` and `runs_asked` are the exploration's.
// `genes[i]`, when given, is what run i drew (a guided run's, from run_set::genes).
explore_result finish_exploration(const explore_input& input, const explore_options& options, std::uint64_t root_seed,
                                  std::size_t runs_asked, std::vector<run_record> runs,
                                  const std::vector<run_genes>& genes = {});

// The repro file's name for a scenario name and an invariant:
// "double_refund-no_double_payment.toml" (only name characters kept).
std::string repro_file_name(std::string_view scenario_name, std::string_view invariant);

}  // namespace twice::explore
