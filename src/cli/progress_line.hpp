#pragma once
// The progress line of `twice run` and `twice sweep`: on a terminal, while a
// scenario runs, one line on stderr (the simulated time, the events and the
// jobs ended; a sweep's runs done), redrawn at most five times a second and
// erased before the results print.
// Never in a pipe, a file or with --json: scripts see exactly what they saw.
//
// The wall clock is read here, in the command line, only: the world calls
// the hook every progress_every_events events whatever the time, and the
// hook decides whether to draw (world.hpp: the hook cannot change a run).

#include <chrono>
#include <cstdint>
#include <string>

#include <twice/world/world.hpp>

namespace twice::cli {

inline constexpr std::uint64_t progress_every_events = 4096;

class progress_line {
 public:
  // Draws only when `enabled`; see wanted().
  explicit progress_line(bool enabled) : enabled_(enabled) {}
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  ~progress_line() { clear(); }

  // Whether a person is watching: stderr is a terminal and stdout is not JSON.
  static bool wanted(bool json);

  // The hook for one run of the scenario `name`; empty when not enabled.
  world_progress_hook hook(const std::string& name);
  // Draws `line` (rate-limited as the hook is); nothing when not enabled.
  void show(const std::string& line);
  bool enabled() const { return enabled_; }
  // Erases the line, if one is drawn.
  void clear();

  // "double_refund: 12.3s simulated, 45678 events, 3/10 jobs ended"
  static std::string text(const std::string& name, const world_progress& p);

 private:
  using wall_clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  wall_clock::time_point last_draw_{};
};

}  // namespace twice::cli
