#include "cli/app.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string_view>

#include <twice/cli/exit_codes.hpp>
#include "cli/incident_demo.hpp"
#include "cli/kernel_demo.hpp"
#include "cli/lint_command.hpp"
#include "cli/usage_errors.hpp"
#include <twice/scenario/sweep_spec.hpp>
#include "sim/byte_size_text.hpp"
#include <twice/world/world.hpp>

namespace twice::cli {
namespace {

// CLI11 reads an unsigned integer with strtoull, which takes "-1" as
// 2^64 - 1: the text is checked before it is converted.
std::string seed_problem(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && ec == std::errc() && end == text.data() + text.size()) return {};
  return fmt::format("expected a seed from 0 to {} (a whole number), found \"{}\"",
                     std::numeric_limits<std::uint64_t>::max(), text);
}

CLI::Validator seed_check() {
  return CLI::Validator([](std::string& text) { return seed_problem(text); }, "", "SEED");
}

// A size in the budget's range, checked as text so the message says what
// was expected; the option then holds it in bytes.
CLI::Validator memory_limit_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const sim::result<std::uint64_t> bytes = sim::parse_byte_size(text);
        if (!bytes.ok()) return bytes.error();
        if (bytes.value() < memory_budget_min || bytes.value() > memory_budget_max)
          return fmt::format("expected a size from 1MiB to 1TiB, found \"{}\"", text);
        text = std::to_string(bytes.value());
        return {};
      },
      "", "SIZE");
}

// --progress's word, checked as text so the message says what was expected;
// the option then holds the enum's number.
CLI::Validator progress_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto& words = progress_mode_words();
        const auto found = words.find(text);
        if (found == words.end()) return fmt::format("expected auto, json or none, found \"{}\"", text);
        text = std::to_string(static_cast<int>(found->second));
        return {};
      },
      "", "auto|json|none");
}

constexpr long long jobs_max = 1024;  // threads
constexpr long long explore_runs_max = 100'000'000;

constexpr const char* bad_usage_only = "Exit status: 0, or 2 for bad usage.";

void add_run(CLI::App& app, run_options& run) {
  CLI::App* cmd = app.add_subcommand("run", "Run scenario files: timeline, invariant verdicts, expectations");
  cmd->add_option("files", run.files, "Scenario files (TOML); - reads one from standard input")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--seed", run.seed, "Root seed, overriding each file's own")->check(seed_check())->type_name("SEED");
  cmd->add_option("--memory-limit", run.memory_limit,
                  "Memory budget, overriding each file's [budget] memory (like 512MiB or 4GiB; default 1GiB)")
      ->transform(memory_limit_check())
      ->type_name("SIZE");
  cmd->add_flag("--json", run.json, "Print one JSON object per scenario (see docs/json-output.md)");
  cmd->add_option("--trace", run.trace_path, "Write the trace as JSON lines to this file")->type_name("FILE");
  cmd->add_option("--markdown", run.markdown_path, "Write the incident write-up (Markdown) to this file")
      ->type_name("FILE");
  cmd->add_option("--perfetto", run.perfetto_path,
                  "Write the trace in the Chrome trace event format (Perfetto) to this file")
      ->type_name("FILE");
  cmd->add_option("--otlp", run.otlp_path,
                  "Write the trace as OpenTelemetry OTLP/JSON (a trace per job, for Jaeger or Tempo) to this file")
      ->type_name("FILE");
  cmd->add_option("--report", run.report_path, "Write the self-contained HTML report to this file")->type_name("FILE");
  cmd->add_option("--junit", run.junit_path,
                  "Write a JUnit XML report (a suite per scenario, a case per invariant) to this file")
      ->type_name("FILE");
  cmd->add_flag("--quiet", run.quiet, "Leave out the timeline");
  cmd->add_flag("--check-determinism", run.check_determinism,
                "Run each scenario twice in fresh worlds; exit 3 at the first record where the traces differ");
  cmd->add_option("--progress", run.progress,
                  "Progress on stderr: auto (a line on a terminal, never in a pipe or with --json), json (one JSON "
                  "object per line, about ten a second and a final one, wherever stderr goes) or none")
      ->transform(progress_check())
      ->default_str("auto")
      ->type_name("auto|json|none");
  cmd->footer(
      "On a terminal, a progress line (simulated time, events, jobs ended) is shown on stderr while a\n"
      "scenario runs; never in a pipe or with --json. --progress json writes it as JSON lines for machines.\n"
      "Exit status: 0 when every scenario met its expectations, 1 when one did not, 2 for bad input or usage,\n"
      "3 when --check-determinism found two runs that differ.");
}

void add_lint(CLI::App& app, std::vector<std::string>& files) {
  CLI::App* cmd = app.add_subcommand("lint", "Warn about the classic mistakes in scenario files, before anything runs");
  cmd->add_option("files", files, "Scenario files (TOML); - reads one from standard input")
      ->required()
      ->type_name("FILE");
  cmd->footer("Exit status: 0 without warnings, 1 with warnings, 2 for bad input or usage. Rules: docs/lint.md.");
}

void add_sweep(CLI::App& app, sweep_options& sweep) {
  CLI::App* cmd = app.add_subcommand("sweep", "Run a scenario for every combination of some keys' values, and compare");
  cmd->add_option("file", sweep.file, "Scenario file (TOML); its [sweep] table is the default grid")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--vary", sweep.vary,
                  "A key and its values, like retry.jitter=none,full (repeatable; replaces [sweep])")
      ->type_name("KEY=V1,V2,...");
  cmd->add_option("--seeds", sweep.seeds,
                  fmt::format("Runs per cell, 1 to {}: the root seed, then seeds derived from it", sweep_seeds_max))
      ->check(whole_number_check(1, sweep_seeds_max))
      ->type_name("N");
  cmd->add_option("--seed", sweep.seed, "Root seed (default: the file's seed)")->check(seed_check())->type_name("SEED");
  cmd->add_option("--jobs", sweep.jobs,
                  fmt::format("Threads running worlds, 1 to {} (default: the core count)", jobs_max))
      ->check(whole_number_check(1, jobs_max))
      ->type_name("N");
  cmd->add_flag("--json", sweep.json, "Print the cells as JSON instead of a table");
  cmd->add_option("--csv", sweep.csv_path, "Also write one CSV row per cell to FILE")->type_name("FILE");
  cmd->add_option("--markdown", sweep.markdown_path, "Also write the cells as a Markdown table to FILE")
      ->type_name("FILE");
  cmd->add_option("--report", sweep.report_path,
                  "Also write a self-contained HTML page of charts and the table to FILE")
      ->type_name("FILE.html");
  cmd->add_option("--junit", sweep.junit_path,
                  "Also write a JUnit XML report (a case per cell and invariant, failed with the command that "
                  "reruns the cell under the failing seed) to FILE")
      ->type_name("FILE");
  cmd->add_option("--progress", sweep.progress,
                  "Progress on stderr: auto (a line on a terminal, never in a pipe or with --json), json (one JSON "
                  "object per line, about ten a second and a final one, wherever stderr goes) or none")
      ->transform(progress_check())
      ->default_str("auto")
      ->type_name("auto|json|none");
  cmd->footer(
      "Without --vary or a [sweep] table, --seeds N runs the file as written under N seeds (one cell).\n"
      "On a terminal, the runs done so far are shown on stderr while the sweep runs; never in a pipe or with --json.\n"
      "Exit status: 0 the sweep ran, 2 for bad input or usage. See docs/sweep.md.");
}

void add_explore(CLI::App& app, explore_options& explore) {
  CLI::App* cmd = app.add_subcommand(
      "explore", "Run a scenario under many seeds and variations; shrink a violation to a repro file");
  cmd->add_option("file", explore.file,
                  "Scenario file (TOML; - reads standard input); its [explore] table says what may vary")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--runs", explore.runs, fmt::format("Runs, 1 to {}", explore_runs_max))
      ->capture_default_str()
      ->check(whole_number_check(1, explore_runs_max))
      ->type_name("N");
  cmd->add_option("--seed", explore.seed, "Root seed of the runs' seeds (default: the file's seed)")
      ->check(seed_check())
      ->type_name("SEED");
  cmd->add_option("--jobs", explore.jobs,
                  fmt::format("Threads running worlds, 1 to {} (default: the core count)", jobs_max))
      ->check(whole_number_check(1, jobs_max))
      ->type_name("N");
  cmd->add_option("--time-limit", explore.time_limit,
                  "Wall-clock budget, like \"10m\": no run starts after 4/5 of it, the rest is kept for shrinking")
      ->type_name("DURATION");
  cmd->add_option("--shrink-runs", explore.shrink_runs, "Candidates each shrink may try, 1 to 100000")
      ->capture_default_str()
      ->check(whole_number_check(1, 100000))
      ->type_name("N");
  cmd->add_option("--out", explore.out_dir,
                  "Directory for repro files (default explore-out); given, it also gets explore.json, the result")
      ->type_name("DIR");
  cmd->add_flag("--all", explore.all, "Shrink the first run of every violated invariant, not only the first");
  cmd->add_option("--guide", explore.guide,
                  "coverage: in generations of 64 runs, favour near variants of runs that reached rare situations")
      ->check(CLI::IsMember({"none", "coverage"}))
      ->capture_default_str()
      ->type_name("none|coverage");
  cmd->add_option("--shard", explore.shard,
                  "Only runs i with i mod N = K, written to DIR/shard-K-of-N.json for twice merge; auto reads "
                  "Slurm's, Kubernetes' or GitLab's variables")
      ->type_name("K/N|auto");
  cmd->add_option("--shards", explore.shards, "The shard count, with --shard auto in a Kubernetes Indexed Job")
      ->check(whole_number_check(1, explore_runs_max))
      ->type_name("N");
  cmd->add_flag("--json", explore.json, "Print the result (or the shard's) as JSON instead of text");
  cmd->add_option("--junit", explore.junit_path,
                  "Write a JUnit XML report (a case per invariant and per [expect] reach) to this file")
      ->type_name("FILE");
  cmd->add_option("--known", explore.known_path,
                  "Accepted findings (invariant and repro digest): fail only on new ones; implies --all")
      ->type_name("FILE");
  cmd->add_flag("--update-known", explore.update_known, "Rewrite the --known file with this exploration's findings");
  cmd->add_option("--progress", explore.progress,
                  "Progress on stderr: auto (a line on a terminal, never in a pipe or with --json), json (one JSON "
                  "object per line, about ten a second and a final one, wherever stderr goes) or none")
      ->transform(progress_check())
      ->default_str("auto")
      ->type_name("auto|json|none");
  cmd->footer(
      "Exit status: 0 without violations, 1 with violations (repro files written), 2 for bad input or usage;\n"
      "a shard exits 0 once its file is written (twice merge judges). See docs/explore.md.");
}

void add_merge(CLI::App& app, merge_options& merge) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "Merge the shards of an exploration (explore --shard) into one result, shrunk as one run would be");
  cmd->add_option("inputs", merge.inputs, "Shard files, or directories of shard-K-of-N.json files")
      ->required()
      ->type_name("DIR|FILE");
  cmd->add_option("--out", merge.out_dir, "Directory for explore.json and the repro files (default explore-out)")
      ->type_name("DIR");
  cmd->add_flag("--json", merge.json, "Print the result as JSON instead of text");
  cmd->add_option("--junit", merge.junit_path, "Write a JUnit XML report, as explore's, to this file")
      ->type_name("FILE");
  cmd->add_option("--known", merge.known_path, "Accepted findings, as explore's --known (the shards need --all)")
      ->type_name("FILE");
  cmd->add_flag("--update-known", merge.update_known, "Rewrite the --known file with the merged findings");
  cmd->footer(
      "The shards must come from one exploration (same scenario bytes, root seed, options and binary), every\n"
      "one of them once. The result and repro files are byte for byte those of the unsharded run.\n"
      "Exit status: 0 without violations, 1 with violations (repro files written), 2 for bad input or usage.");
}

void add_demo(CLI::App& app, command_values& v) {
  CLI::App* cmd = app.add_subcommand("demo", "Run a small story on the bare kernel and print its trace digest");
  cmd->add_option("--seed", v.demo_seed, "Root seed of every random stream")
      ->capture_default_str()
      ->check(seed_check())
      ->type_name("SEED");
  cmd->add_flag("--quiet", v.demo_quiet, "Print only the outcome and the digest");
  cmd->footer(bad_usage_only);
}

void add_incident(CLI::App& app, command_values& v) {
  CLI::App* cmd =
      app.add_subcommand("incident", "Run the double refund, built in C++, on the world and print its timeline");
  cmd->add_flag("--fixed", v.incident_fixed, "Run it with the stable idempotency key job_17:step_3:refund");
  cmd->add_option("--seed", v.incident_seed, "Root seed (default: the incident's own, 17)")
      ->check(seed_check())
      ->type_name("SEED");
  cmd->add_flag("--quiet", v.incident_quiet, "Print only the ledgers and the digest");
  cmd->footer(bad_usage_only);
}

void add_help(CLI::App& app, command_values& v) {
  CLI::App* cmd = app.add_subcommand("help", "Print this help, or a command's");
  cmd->add_option("command", v.help_topic, "The command to explain")->type_name("COMMAND");
  cmd->footer(bad_usage_only);
}

// ---- commands that are not there -------------------------------------------------

std::string command_list(const CLI::App& app) {
  std::string out = "commands:\n";
  for (const CLI::App* c : app.get_subcommands({}))
    out += fmt::format("  {:<10}{}\n", c->get_name(), c->get_description());
  return out;
}

const CLI::App* find_command(const CLI::App& app, std::string_view name) {
  for (const CLI::App* c : app.get_subcommands({}))
    if (c->get_name() == name) return c;
  return nullptr;
}

int unknown_command(const CLI::App& app, std::string_view word) {
  std::vector<std::string> names;
  for (const CLI::App* c : app.get_subcommands({})) names.push_back(c->get_name());
  const std::optional<std::string> guess = closest_word(word, names);
  fmt::print(stderr, "twice: unknown command \"{}\"{}\n{}Run twice --help for more information.\n", word,
             guess ? fmt::format("; did you mean \"{}\"?", *guess) : "", command_list(app));
  return to_int(exit_code::bad_input);
}

// The command word is the first argument that is not an option: the
// top-level options (--help, --version) take no values. CLI11 would only
// say "A subcommand is required" for a word it does not know.
int unknown_or_missing_command(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.starts_with('-')) continue;
    if (find_command(app, word) != nullptr) return -1;
    return unknown_command(app, word);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--help" || word == "-h" || word == "--version") return -1;  // CLI11 answers these
  }
  fmt::print(stderr, "twice: a command is required\n{}Run twice --help for more information.\n", command_list(app));
  return to_int(exit_code::bad_input);
}

int print_help(const CLI::App& app, const std::string& topic) {
  // Not app.help(): that would explain the selected subcommand, `help` itself.
  if (topic.empty()) {
    fmt::print("{}", app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal));
  } else {
    const CLI::App* cmd = find_command(app, topic);
    if (cmd == nullptr) return unknown_command(app, topic);
    fmt::print(
        "{}", cmd->get_formatter()->make_help(cmd, app.get_name() + " " + cmd->get_name(), CLI::AppFormatMode::Normal));
  }
  return to_int(exit_code::ok);
}

}  // namespace

std::unique_ptr<CLI::App> make_app(command_values& v) {
  auto app = std::make_unique<CLI::App>(
      "twice: a deterministic simulator for at-least-once job queues.\n"
      "It answers, for every write a job makes: what happens if this slice runs twice?",
      "twice");
  app->set_version_flag("--version", std::string("twice ") + TWICE_VERSION);
  app->require_subcommand(1);
  add_run(*app, v.run);
  add_lint(*app, v.lint_files);
  add_explore(*app, v.explore);
  add_merge(*app, v.merge);
  add_sweep(*app, v.sweep);
  add_demo(*app, v);
  add_incident(*app, v);
  add_help(*app, v);
  app->footer(
      "Run twice COMMAND --help (or twice help COMMAND) for a command's options and exit status.\n"
      "Exit status: 0 success, 1 expectations not met, lint warnings or violations found,\n"
      "2 bad input or usage, 3 a run that is not deterministic (run --check-determinism).");
  return app;
}

int main_command(int argc, const char* const* argv) {
  command_values v;
  const std::unique_ptr<CLI::App> app = make_app(v);
  if (const int code = unknown_or_missing_command(*app, argc, argv); code >= 0) return code;
  try {
    app->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app->exit(e);  // --help, --version
    // In the words of the command the arguments chose (or of twice itself).
    const CLI::App* command = app.get();
    for (int i = 1; i < argc; ++i)
      if (const CLI::App* c = find_command(*app, argv[i]); c != nullptr) {
        command = c;
        break;
      }
    const std::string name = command == app.get() ? "twice" : "twice " + command->get_name();
    fmt::print(stderr, "{}: {}\nRun {} --help for its options.\n", name, usage_error_text(*command, e), name);
    return to_int(exit_code::bad_input);
  }
  const auto chosen = [&](std::string_view name) { return bool(*app->get_subcommand(std::string(name))); };
  if (chosen("run")) return run_command(v.run);
  if (chosen("lint")) return lint_command(v.lint_files);
  if (chosen("explore")) return explore_command(v.explore);
  if (chosen("merge")) return merge_command(v.merge);
  if (chosen("sweep")) return sweep_command(v.sweep);
  if (chosen("demo")) return print_kernel_demo(v.demo_seed, v.demo_quiet);
  if (chosen("incident")) return print_incident(v.incident_fixed, v.incident_seed, v.incident_quiet);
  if (chosen("help")) return print_help(*app, v.help_topic);
  return to_int(exit_code::bad_input);
}

}  // namespace twice::cli
