#include "cli/progress_line.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "sim/count_text.hpp"

namespace twice::cli {

namespace {
constexpr auto redraw_interval = std::chrono::milliseconds(200);
// Ten a second: often enough for a progress bar, rare enough not to flood a log.
constexpr auto json_interval = std::chrono::milliseconds(100);
// Back to the start of the line and erase it (ECMA-48 EL).
constexpr const char* erase_line = "\r\033[K";
}  // namespace

progress_line::progress_line(progress_mode mode, bool json_stdout) {
  switch (mode) {
    case progress_mode::automatic:
      style_ = !json_stdout && isatty(fileno(stderr)) != 0 ? style::line : style::off;
      break;
    case progress_mode::json:
      style_ = style::ndjson;
      break;
    case progress_mode::none:
      style_ = style::off;
      break;
  }
}

progress_snapshot progress_line::run_snapshot(const std::string& name, const world_progress& p, int pass) {
  const std::int64_t us = p.now.us();
  progress_snapshot s;
  s.line = fmt::format("{}{}: {}.{}s simulated, {}, {}/{} {} ended", name, pass > 1 ? " (again)" : "", us / 1'000'000,
                       us % 1'000'000 / 100'000, sim::counted(p.events, "event"), p.jobs_ended, p.jobs_total,
                       sim::noun_for(p.jobs_total, "job"));
  s.fields = {{"command", "run"},   {"scenario", name},           {"sim_time_us", us},
              {"events", p.events}, {"jobs_ended", p.jobs_ended}, {"jobs_total", p.jobs_total}};
  if (pass > 1) s.fields["pass"] = pass;
  return s;
}

world_progress_hook progress_line::hook(const std::string& name, int pass) {
  if (!enabled()) return {};
  return [this, name, pass](const world_progress& p) { show(run_snapshot(name, p, pass)); };
}

// The first call shows (a run long enough to call the hook is worth a
// line); then at most one per interval. The newest is kept for finish().
void progress_line::show(progress_snapshot s) {
  if (!enabled()) return;
  const wall_clock::time_point now = wall_clock::now();
  const bool due = !shown_ || now - last_shown_ >= (style_ == style::line ? redraw_interval : json_interval);
  if (due) {
    if (style_ == style::line) {
      fmt::print(stderr, "{}{}", erase_line, s.line);
      std::fflush(stderr);
      drawn_ = true;
    } else {
      write_json(s.fields, false);
    }
    shown_ = true;
    last_shown_ = now;
  }
  latest_ = std::move(s);
}

void progress_line::finish(std::optional<progress_snapshot> last) {
  if (style_ == style::ndjson) {
    if (last) latest_ = std::move(last);
    if (latest_) write_json(latest_->fields, true);
  }
  erase();
  shown_ = false;
  latest_.reset();
}

void progress_line::write_json(nlohmann::ordered_json fields, bool final) {
  const double elapsed = std::chrono::duration<double>(wall_clock::now() - started_).count();
  fields["elapsed_s"] = std::round(elapsed * 1000) / 1000;  // milliseconds are plenty
  if (final) fields["final"] = true;
  fmt::print(stderr, "{}\n", fields.dump());
  std::fflush(stderr);
}

void progress_line::erase() {
  if (!drawn_) return;
  fmt::print(stderr, "{}", erase_line);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace twice::cli
