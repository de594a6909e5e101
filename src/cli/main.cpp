// The `twice` command line.

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/exit_codes.hpp"
#include "cli/explore_command.hpp"
#include "cli/incident_demo.hpp"
#include "cli/kernel_demo.hpp"
#include "cli/lint_command.hpp"
#include "cli/run_command.hpp"

int main(int argc, char** argv) {
  using twice::cli::exit_code;
  CLI::App app{"twice: a deterministic simulator for at-least-once job queues.\n"
               "It answers, for every write a job makes: what happens if this slice runs twice?"};
  app.set_version_flag("--version", std::string("twice ") + TWICE_VERSION);
  app.require_subcommand(1);

  twice::cli::run_options run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run scenario files: timeline, invariant verdicts, expectations");
  run_cmd->add_option("files", run.files, "Scenario files (TOML)")->required();
  run_cmd->add_option("--seed", run.seed, "Root seed, overriding each file's own");
  run_cmd->add_flag("--json", run.json, "Print one JSON object per scenario (see docs/json-output.md)");
  run_cmd->add_option("--trace", run.trace_path, "Write the trace as JSON lines to this file");
  run_cmd->add_option("--markdown", run.markdown_path, "Write the incident write-up (Markdown) to this file");
  run_cmd->add_option("--perfetto", run.perfetto_path, "Write the trace in the Chrome trace event format (Perfetto) to this file");
  run_cmd->add_option("--report", run.report_path, "Write the self-contained HTML report to this file");
  run_cmd->add_flag("--quiet", run.quiet, "Leave out the timeline");
  run_cmd->add_flag("--check-determinism", run.check_determinism,
                    "Run each scenario twice in fresh worlds; exit 3 at the first record where the traces differ");
  run_cmd->footer(
      "Exit status: 0 when every scenario met its expectations, 1 when one did not, 2 for bad input or usage,\n"
      "3 when --check-determinism found two runs that differ.");

  std::vector<std::string> lint_files;
  CLI::App* lint_cmd = app.add_subcommand("lint", "Warn about the classic mistakes in scenario files, before anything runs");
  lint_cmd->add_option("files", lint_files, "Scenario files (TOML)")->required();
  lint_cmd->footer("Exit status: 0 without warnings, 1 with warnings, 2 for bad input. Rules: docs/lint.md.");

  twice::cli::explore_options explore;
  CLI::App* explore_cmd =
      app.add_subcommand("explore", "Run a scenario under many seeds and variations; shrink a violation to a repro file");
  explore_cmd->add_option("file", explore.file, "Scenario file (TOML); its [explore] table says what may vary")->required();
  explore_cmd->add_option("--runs", explore.runs, "Runs")->capture_default_str()->check(CLI::Range(1, 100'000'000));
  explore_cmd->add_option("--seed", explore.seed, "Root seed of the runs' seeds (default: the file's seed)");
  explore_cmd->add_option("--jobs", explore.jobs, "Threads running worlds (default: the core count)")
      ->check(CLI::Range(1, 1024));
  explore_cmd->add_option("--time-limit", explore.time_limit, "Wall-clock budget, like \"10m\": no run starts after it");
  explore_cmd->add_option("--out", explore.out_dir, "Directory for repro files")->capture_default_str();
  explore_cmd->add_flag("--all", explore.all, "Shrink the first run of every violated invariant, not only the first");
  explore_cmd->footer("Exit status: 0 without violations, 1 with violations (repro files written), 2 for bad input.\n"
                      "See docs/explore.md.");

  std::uint64_t seed = 1;
  bool quiet = false;
  CLI::App* demo = app.add_subcommand("demo", "Run a small story on the bare kernel and print its trace digest");
  demo->add_option("--seed", seed, "Root seed of every random stream")->capture_default_str();
  demo->add_flag("--quiet", quiet, "Print only the outcome and the digest");

  bool fixed = false;
  std::optional<std::uint64_t> incident_seed;
  CLI::App* incident =
      app.add_subcommand("incident", "Run the double refund, built in C++, on the world and print its timeline");
  incident->add_flag("--fixed", fixed, "Run it with the stable idempotency key job_17:step_3:refund");
  incident->add_option("--seed", incident_seed, "Root seed (default: the incident's own, 17)");
  incident->add_flag("--quiet", quiet, "Print only the ledgers and the digest");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : twice::cli::to_int(exit_code::bad_input);
  }
  if (*run_cmd) return twice::cli::run_command(run);
  if (*lint_cmd) return twice::cli::lint_command(lint_files);
  if (*explore_cmd) return twice::cli::explore_command(explore);
  if (*demo) return twice::cli::print_kernel_demo(seed, quiet);
  if (*incident) return twice::cli::print_incident(fixed, incident_seed, quiet);
  return twice::cli::to_int(exit_code::bad_input);
}
