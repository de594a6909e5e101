#include "cli/progress_line.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

#include "sim/count_text.hpp"

namespace twice::cli {

namespace {
constexpr auto redraw_interval = std::chrono::milliseconds(200);
// Back to the start of the line and erase it (ECMA-48 EL).
constexpr const char* erase_line = "\r\033[K";
}  // namespace

bool progress_line::wanted(bool json) { return !json && isatty(fileno(stderr)) != 0; }

std::string progress_line::text(const std::string& name, const world_progress& p) {
  const std::int64_t us = p.now.us();
  return fmt::format("{}: {}.{}s simulated, {}, {}/{} {} ended", name, us / 1'000'000, us % 1'000'000 / 100'000,
                     sim::counted(p.events, "event"), p.jobs_ended, p.jobs_total, sim::noun_for(p.jobs_total, "job"));
}

world_progress_hook progress_line::hook(const std::string& name) {
  if (!enabled_) return {};
  return [this, name](const world_progress& p) { show(text(name, p)); };
}

// The first call draws (a run long enough to call the hook is worth a
// line); then at most one redraw per interval.
void progress_line::show(const std::string& line) {
  if (!enabled_) return;
  const wall_clock::time_point now = wall_clock::now();
  if (drawn_ && now - last_draw_ < redraw_interval) return;
  fmt::print(stderr, "{}{}", erase_line, line);
  std::fflush(stderr);
  drawn_ = true;
  last_draw_ = now;
}

void progress_line::clear() {
  if (!drawn_) return;
  fmt::print(stderr, "{}", erase_line);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace twice::cli
