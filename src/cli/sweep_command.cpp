#include "cli/sweep_command.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <nlohmann/json.hpp>
#include <thread>

#include <twice/cli/exit_codes.hpp>
#include "cli/output_file.hpp"
#include "cli/progress_line.hpp"
#include "cli/sweep_junit.hpp"
#include "cli/sweep_page.hpp"
#include "explore/sweep.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"

namespace twice::cli {
namespace {

std::string seconds(double us) { return fmt::format("{:.3f}s", us / 1e6); }
std::string seconds(std::int64_t us) { return seconds(static_cast<double>(us)); }

// RFC 4180: a field with a comma, a quote or a line break is quoted.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string csv_text(const explore::sweep_result& r) {
  std::string out;
  for (const sweep_axis& a : r.axes) out += csv_field(a.path) + ",";
  out +=
      "runs,runs_all_ended,makespan_mean_s,makespan_ci95_s,makespan_p50_s,makespan_p99_s,job_time_p50_s,"
      "job_time_p99_s,calls_per_job_mean,calls_per_job_ci95,retries_mean,dead_letters_mean,violations\n";
  for (const explore::sweep_cell& c : r.cells) {
    for (const std::string& v : c.values) out += csv_field(v) + ",";
    out += fmt::format("{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.3f},{:.3f},{:.3f},{}\n", c.runs,
                       c.runs_all_ended, c.makespan_us.mean / 1e6, c.makespan_us.ci95 / 1e6,
                       static_cast<double>(c.makespan_us.p50) / 1e6, static_cast<double>(c.makespan_us.p99) / 1e6,
                       static_cast<double>(c.job_time_us.p50) / 1e6, static_cast<double>(c.job_time_us.p99) / 1e6,
                       c.calls_per_job_milli.mean / 1e3, c.calls_per_job_milli.ci95 / 1e3, c.retries, c.dead_letters,
                       csv_field(explore::verdicts_text(c)));
  }
  return out;
}

nlohmann::ordered_json stat_json(const explore::sweep_stat& s, double scale) {
  return {{"n", s.n},
          {"mean", s.mean / scale},
          {"ci95", s.ci95 / scale},
          {"p50", static_cast<double>(s.p50) / scale},
          {"p99", static_cast<double>(s.p99) / scale},
          {"max", static_cast<double>(s.max) / scale}};
}

std::string json_text(const explore::sweep_result& r, const std::string& path) {
  nlohmann::ordered_json out;
  out["path"] = path;
  out["root_seed"] = r.root_seed;
  out["seeds"] = r.world_seeds;
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const sweep_axis& a : r.axes) {
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const auto& v : a.values) values.push_back(explore::value_text(v));
    axes.push_back({{"key", a.path}, {"values", values}});
  }
  out["axes"] = axes;
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const explore::sweep_cell& c : r.cells) {
    nlohmann::ordered_json cell;
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (std::size_t a = 0; a < r.axes.size(); ++a) values[r.axes[a].path] = c.values[a];
    cell["values"] = values;
    cell["runs"] = c.runs;
    cell["runs_all_ended"] = c.runs_all_ended;
    cell["makespan_s"] = stat_json(c.makespan_us, 1e6);
    cell["job_time_s"] = stat_json(c.job_time_us, 1e6);
    cell["calls_per_job"] = stat_json(c.calls_per_job_milli, 1e3);
    nlohmann::ordered_json tools = nlohmann::ordered_json::object();
    for (const auto& [tool, calls] : c.calls_per_job_by_tool) tools[tool] = calls;
    cell["calls_per_job_by_tool"] = tools;
    cell["retries_mean"] = c.retries;
    cell["dead_letters_mean"] = c.dead_letters;
    nlohmann::ordered_json violated = nlohmann::ordered_json::object();
    for (const auto& [name, runs] : c.violated) violated[name] = runs;
    cell["violated_runs"] = violated;
    nlohmann::ordered_json unjudged = nlohmann::ordered_json::object();
    for (const auto& [name, runs] : c.unjudged) unjudged[name] = runs;
    cell["unjudged_runs"] = unjudged;
    cells.push_back(cell);
  }
  out["cells"] = cells;
  return out.dump(2) + "\n";
}

// The write-up a sweep leaves in reports/: no wall-clock figure in it, so
// the same file and build always write the same bytes.
std::string markdown_text(const explore::sweep_result& r, const std::string& path, const std::string& name) {
  std::string keys;
  for (const sweep_axis& a : r.axes) keys += (keys.empty() ? "" : ", ") + ("`" + a.path + "`");
  const std::string grid = r.axes.empty() ? "the file as written, " + sim::counted(r.seeds, "seed")
                                          : fmt::format("{} ({}), {} each", sim::counted(r.cells.size(), "cell"), keys,
                                                        sim::counted(r.seeds, "seed"));
  std::string out =
      fmt::format("# Sweep: {}\n\n`twice sweep {}`: {} (root seed {}).\n\n", name, path, grid, r.root_seed);
  out +=
      "Per cell: the makespan (mean over the seeds, ±95% interval), each job's time from its send to its end, "
      "tool calls per job (amplification), retries and dead letters per run, and the seeds that broke each "
      "invariant.\n\n|";
  for (const sweep_axis& a : r.axes) out += " `" + a.path + "` |";
  out += " makespan | job p50 | job p99 | calls/job | retries | dead letters | violations |\n|";
  for (std::size_t a = 0; a < r.axes.size(); ++a) out += "---|";
  out += "---:|---:|---:|---:|---:|---:|---|\n";
  for (const explore::sweep_cell& c : r.cells) {
    out += "|";
    for (const std::string& v : c.values) out += " " + v + " |";
    out += fmt::format(" {} ±{} | {} | {} | {:.3f} ±{:.3f} | {:.2f} | {:.2f} | {} |\n", seconds(c.makespan_us.mean),
                       seconds(c.makespan_us.ci95), seconds(c.job_time_us.p50), seconds(c.job_time_us.p99),
                       c.calls_per_job_milli.mean / 1e3, c.calls_per_job_milli.ci95 / 1e3, c.retries, c.dead_letters,
                       explore::verdicts_text(c));
  }
  return out;
}

void print_table(const explore::sweep_result& r, const std::string& path, unsigned threads) {
  std::string keys;
  for (const sweep_axis& a : r.axes) keys += (keys.empty() ? "" : " x ") + a.path;
  fmt::print("twice sweep {}\n", path);
  const std::string grid = r.axes.empty() ? "the file as written: 1 cell, " + sim::counted(r.seeds, "seed")
                                          : fmt::format("{}: {}, {} each", keys, sim::counted(r.cells.size(), "cell"),
                                                        sim::counted(r.seeds, "seed"));
  fmt::print("grid       {} (root seed {}), {} on {} in {:.2f}s\n", grid, r.root_seed,
             sim::counted(r.cells.size() * r.seeds, "run"), sim::counted(threads, "thread"),
             std::chrono::duration<double>(r.wall).count());
  std::vector<std::size_t> width;
  for (const sweep_axis& a : r.axes) {
    std::size_t w = a.path.size();
    for (const auto& v : a.values) w = std::max(w, explore::value_text(v).size());
    width.push_back(w);
  }
  std::string header;
  for (std::size_t a = 0; a < r.axes.size(); ++a) header += fmt::format("{:<{}}  ", r.axes[a].path, width[a]);
  fmt::print("\n{}{:>22}  {:>10}  {:>10}  {:>10}  {:>16}  {:>8}  {:>8}  {}\n", header, "makespan mean ±95%", "p99",
             "job p50", "job p99", "calls/job ±95%", "retries", "dead", "violations (runs)");
  for (const explore::sweep_cell& c : r.cells) {
    std::string row;
    for (std::size_t a = 0; a < c.values.size(); ++a) row += fmt::format("{:<{}}  ", c.values[a], width[a]);
    fmt::print("{}{:>22}  {:>10}  {:>10}  {:>10}  {:>16}  {:>8.2f}  {:>8.2f}  {}{}\n", row,
               seconds(c.makespan_us.mean) + " ±" + seconds(c.makespan_us.ci95), seconds(c.makespan_us.p99),
               seconds(c.job_time_us.p50), seconds(c.job_time_us.p99),
               fmt::format("{:.2f} ±{:.2f}", c.calls_per_job_milli.mean / 1e3, c.calls_per_job_milli.ci95 / 1e3),
               c.retries, c.dead_letters, explore::verdicts_text(c),
               c.runs_all_ended < c.runs
                   ? fmt::format("; {} ended at a budget", sim::counted(c.runs - c.runs_all_ended, "run"))
                   : std::string());
  }
}

}  // namespace

int sweep_command(const sweep_options& options) {
  std::vector<sweep_axis> axes;
  for (const std::string& v : options.vary) {
    std::string problem;
    std::optional<sweep_axis> axis = explore::parse_vary_argument(v, problem);
    if (!axis) {
      fmt::print(stderr, "twice sweep: --vary {}: {}\n", v, problem);
      return to_int(exit_code::bad_input);
    }
    if (std::any_of(axes.begin(), axes.end(), [&](const sweep_axis& a) { return a.path == axis->path; })) {
      fmt::print(stderr, "twice sweep: --vary {}: the key is varied twice\n", v);
      return to_int(exit_code::bad_input);
    }
    axes.push_back(std::move(*axis));
  }
  // Every output can be written, and none overwrites the scenario or another, or nothing runs.
  const std::vector<std::pair<std::string_view, const std::string*>> output_options{
      {"--csv", &options.csv_path},
      {"--markdown", &options.markdown_path},
      {"--report", &options.report_path},
      {"--junit", &options.junit_path}};
  std::string problem = outputs_clash(output_options, options.file);
  if (problem.empty()) problem = outputs_problem(output_options);
  if (!problem.empty()) {
    fmt::print(stderr, "twice sweep: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  const explore::sweep_prepared prepared =
      explore::prepare_sweep_file(options.file, std::move(axes), options.seeds, options.seed);
  for (const scenario_error& e : prepared.errors) fmt::print(stderr, "{}\n", e.to_string());
  if (!prepared.input) return to_int(exit_code::bad_input);
  const unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  // The runs done so far: a line on a terminal, NDJSON with --progress json (cli/progress_line.hpp).
  progress_line progress(options.progress, options.json);
  const auto started = std::chrono::steady_clock::now();
  std::function<void(const explore::sweep_progress&)> on_progress;
  if (progress.enabled())
    on_progress = [&](const explore::sweep_progress& p) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      progress.show({fmt::format("sweep {}: {}/{} {}, {:.1f}s", prepared.input->name, p.done, p.total,
                                 sim::noun_for(p.total, "run"), seconds),
                     {{"command", "sweep"}, {"scenario", prepared.input->name}, {"done", p.done}, {"total", p.total}}});
    };
  // The last poll comes after every run ended: its counts are the final ones.
  const explore::sweep_result result = explore::run_sweep(*prepared.input, jobs, on_progress);
  progress.finish();
  if (result.bad_cell) {
    std::string values;
    for (std::size_t a = 0; a < result.axes.size(); ++a) {
      const std::size_t cells_after = explore::cell_count(
          std::vector<sweep_axis>(result.axes.begin() + static_cast<std::ptrdiff_t>(a) + 1, result.axes.end()));
      const auto& v = result.axes[a].values[(*result.bad_cell / cells_after) % result.axes[a].values.size()];
      values += (values.empty() ? "" : ", ") + result.axes[a].path + " = " + explore::value_text(v);
    }
    fmt::print(stderr, "twice sweep: the cell {} does not load:\n", values);
    for (const scenario_error& e : result.bad_cell_errors) fmt::print(stderr, "  {}\n", e.to_string());
    return to_int(exit_code::bad_input);
  }
  const std::string& path = prepared.input->path;
  const std::string& name = prepared.input->name;
  const std::pair<const std::string*, std::function<std::string()>> outputs[] = {
      {&options.markdown_path, [&] { return markdown_text(result, path, name); }},
      {&options.csv_path, [&] { return csv_text(result); }},
      {&options.report_path, [&] { return sweep_page_html(result, path, name); }},
      {&options.junit_path,
       [&] {
         std::vector<std::pair<std::string, std::string>> written;
         for (const auto& [option, file] : output_options)
           if (!file->empty() && file != &options.junit_path) written.emplace_back(option, *file);
         return junit_xml("twice sweep", {sweep_junit(result, path, name, written)});
       }},
  };
  for (const auto& [file, text] : outputs) {
    if (file->empty()) continue;
    const std::string error = write_file_atomically(*file, text());
    if (!error.empty()) {
      fmt::print(stderr, "twice sweep: {}\n", error);
      return to_int(exit_code::bad_input);
    }
  }
  if (options.json)
    fmt::print("{}", json_text(result, path));
  else
    print_table(result, path, jobs);
  return to_int(exit_code::ok);
}

}  // namespace twice::cli
