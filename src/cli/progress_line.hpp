#pragma once
// The progress of `twice run`, `explore` and `sweep`, on stderr while they
// work, as --progress asks:
//   auto (the default): on a terminal, one line (the simulated time, the
//     events and the jobs ended; the runs done), redrawn at most five times a
//     second and erased before the results print; never in a pipe, a file or
//     with --json, so scripts see exactly what they saw;
//   json: for machines, one JSON object per line (NDJSON) wherever stderr
//     goes, at most ten a second, then a last one with "final": true and the
//     final counts (a run's: one per scenario);
//   none: nothing.
//
// The wall clock is read here, in the command line, only: the world calls
// the hook every progress_every_events events whatever the time, and the
// hook decides whether to draw (world.hpp: the hook cannot change a run).
// Progress is no output file: its elapsed_s is wall time, and it never
// reaches a trace or a digest.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <twice/world/world.hpp>
#include "cli/progress_mode.hpp"

namespace twice::cli {

inline constexpr std::uint64_t progress_every_events = 4096;

// One look at a command's progress, in both forms.
struct progress_snapshot {
  std::string line;               // for a person: "double_refund: 12.3s simulated, ..."
  nlohmann::ordered_json fields;  // for a machine: {"command": "run", ...} (elapsed_s is added)
};

class progress_line {
 public:
  // `json_stdout`: the command prints JSON on stdout (auto then shows nothing).
  progress_line(progress_mode mode, bool json_stdout);
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  ~progress_line() { erase(); }

  bool enabled() const { return style_ != style::off; }

  // The hook for one run of the scenario `name` (`pass` 2: --check-determinism's
  // second run); empty when not enabled.
  world_progress_hook hook(const std::string& name, int pass = 1);
  // Shows `s`, rate-limited; nothing when not enabled.
  void show(progress_snapshot s);
  // The work is done: the line is erased; in json, `last` (else the last
  // snapshot shown or held back) is written with "final": true.
  void finish(std::optional<progress_snapshot> last = std::nullopt);

  // A run's snapshot: "double_refund: 12.3s simulated, 45678 events, 3/10 jobs ended".
  static progress_snapshot run_snapshot(const std::string& name, const world_progress& p, int pass = 1);

 private:
  enum class style { off, line, ndjson };
  using wall_clock = std::chrono::steady_clock;
  void write_json(nlohmann::ordered_json fields, bool final);
  void erase();

  style style_;
  bool drawn_ = false;  // a line is on the terminal
  bool shown_ = false;  // something was written since the last finish()
  wall_clock::time_point started_ = wall_clock::now();
  wall_clock::time_point last_shown_{};
  std::optional<progress_snapshot> latest_;  // the newest snapshot, shown or not
};

}  // namespace twice::cli
