// The WebAssembly module's one entry point (scripts/web.sh): a command of the
// `twice` binary, asked for as JSON instead of argv, run by the same library
// functions the binary calls, so a run in the page or under Node is the run
// `twice run` makes natively: same digest, same verdicts, same report.
//
//   {"command": "run", "files": ["/work/double_refund.toml"], "json": true,
//    "report": "/work/report.html", "seed": 7, "quiet": true}
//   {"command": "lint", "files": [...]}
//   {"command": "explore", "file": "...", "runs": 200, "out": "/work/explore-out", "json": true}
//
// Files are paths in the module's in-memory file system (the JavaScript side
// writes the scenario there and reads the outputs back); what the command
// prints goes to the module's print and printErr. Returns the command's exit
// code (cli/exit_codes.hpp): 2 for a request that is not one of these.

#include <emscripten/emscripten.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <twice/cli/exit_codes.hpp>
#include "cli/explore_command.hpp"
#include "cli/lint_command.hpp"
#include "cli/run_command.hpp"

namespace {

using nlohmann::json;
using twice::cli::exit_code;

// A field of the request, or `fallback` when absent; a wrong type throws
// json::type_error, reported as bad input.
template <class T>
T field(const json& request, const char* name, T fallback) {
  const auto it = request.find(name);
  return it == request.end() ? fallback : it->get<T>();
}

int run(const json& r) {
  twice::cli::run_options o;
  o.files = field(r, "files", std::vector<std::string>{});
  if (r.contains("seed")) o.seed = r.at("seed").get<std::uint64_t>();
  if (r.contains("memory_limit")) o.memory_limit = r.at("memory_limit").get<std::uint64_t>();
  o.json = field(r, "json", false);
  o.quiet = field(r, "quiet", false);
  o.report_path = field(r, "report", std::string{});
  o.markdown_path = field(r, "markdown", std::string{});
  o.perfetto_path = field(r, "perfetto", std::string{});
  o.trace_path = field(r, "trace", std::string{});
  o.junit_path = field(r, "junit", std::string{});
  o.progress = twice::cli::progress_mode::none;  // no terminal to redraw a line on
  return twice::cli::run_command(o);
}

int explore(const json& r) {
  twice::cli::explore_options o;
  o.file = field(r, "file", std::string{});
  o.runs = field(r, "runs", o.runs);
  if (r.contains("seed")) o.seed = r.at("seed").get<std::uint64_t>();
  o.jobs = 1;
  o.out_dir = field(r, "out", std::string{});
  o.all = field(r, "all", false);
  o.json = field(r, "json", false);
  o.shrink_runs = field(r, "shrink_runs", o.shrink_runs);
  o.progress = twice::cli::progress_mode::none;
  return twice::cli::explore_command(o);
}

int dispatch(const char* request_text) {
  try {
    const json r = json::parse(request_text);
    const std::string command = field(r, "command", std::string{});
    if (command == "run") return run(r);
    if (command == "lint") return twice::cli::lint_command(field(r, "files", std::vector<std::string>{}));
    if (command == "explore") return explore(r);
    fmt::print(stderr, "twice: unknown command '{}' (expected run, lint or explore)\n", command);
  } catch (const json::exception& e) {
    fmt::print(stderr, "twice: bad request: {}\n", e.what());
  }
  return twice::cli::to_int(exit_code::bad_input);
}

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE int twice_command(const char* request_text) {
  const int code = dispatch(request_text);
  // The module's print sees a line only once it is flushed.
  std::fflush(stdout);
  std::fflush(stderr);
  return code;
}
