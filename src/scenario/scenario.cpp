#include <twice/scenario/scenario.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "scenario/document.hpp"
#include "scenario/sections.hpp"

namespace twice {

std::string scenario_error::to_string() const {
  // Appends only: g++ 12 at -O2 flags `":" + std::to_string(...)` with a
  // false -Wrestrict.
  std::string out = file;
  if (line != 0) {
    out += ':';
    out += std::to_string(line);
    out += ':';
    out += std::to_string(column);
  }
  out += ": ";
  if (!key.empty()) {
    out += key;
    out += ": ";
  }
  out += message;
  return out;
}

namespace {

using namespace scenario_detail;

std::string default_name(const std::string& path) {
  if (path == scenario_stdin_name) return "stdin";
  const std::string stem = std::filesystem::path(path).stem().string();
  return stem.empty() ? "scenario" : stem;
}

void load_name(const table_reader& root, scenario& out) {
  const doc_node* n = root.get("name");
  if (n == nullptr) return;
  const std::optional<std::string> name = read_string(root.diag(), *n, "name");
  if (!name) return;
  if (name->empty() || name->size() > 200) {
    root.diag().error(n->pos, "name", "expected a name of 1 to 200 characters, found " + quote(*name));
    return;
  }
  out.name = *name;
}

load_result failed(diagnostics& d) { return {std::nullopt, d.take()}; }

}  // namespace

namespace {

load_result load_root(diagnostics& d, const doc_node& doc_root, std::string path_for_messages, std::string story) {
  scenario out;
  out.path = std::move(path_for_messages);
  out.name = default_name(out.path);
  out.story = std::move(story);
  const table_reader root(
      d, doc_root, "",
      {"name",     "seed",    "budget",   "trace",      "queue",  "tenants", "alarms",      "dead_letter_queue",
       "workers",  "runtime", "retry",    "discipline", "split",  "store",   "vendor",      "tools",
       "job_type", "job",     "workload", "fault",      "crash",  "deploy",  "queue_fault", "expect",
       "explore",  "sweep",   "lint",     "sidekiq",    "celery", "pubsub",  "kafka"});
  load_state state{d, out.world, out.expect, {}, {}, {}, true, {}, {}, {}, {}};
  load_name(root, out);
  // In dependency order: faults refer to workers and jobs.
  load_settings(root, state);
  load_tools(root, state);
  load_jobs(root, state);
  check_tenant_queues(root, state);
  load_faults(root, state);
  load_expect(root, state);
  load_explore(root, state, out.explore);
  load_sweep(root, state, out.sweep);
  load_lint(root, state, out.lint_allow);
  // A file that defines no job runs nothing and would pass every
  // expectation: an empty file, or one of only comments, is a mistake (a
  // wrong path, a truncated file), not a scenario. Said only when nothing
  // else is wrong, since a misspelt [[jobs]] has already been reported.
  if (d.empty() && job_count(out.world) == 0)
    d.error(source_pos{1, 1}, {},
            "the scenario defines no jobs: add at least one [[job]] (id, invoice and amount_cents, or id and steps) or "
            "a [workload] (count and interval)");
  if (!d.empty()) return failed(d);
  return {std::move(out), {}};
}

}  // namespace

load_result load_scenario_text(std::string_view text, std::string path_for_messages) {
  diagnostics d(path_for_messages);
  const parsed_document doc = parse_document(text, path_for_messages);
  if (!doc.ok) {
    d.error(doc.error_pos, {}, doc.error);
    return failed(d);
  }
  return load_root(d, doc.root, std::move(path_for_messages), leading_comment(text));
}

load_result load_scenario_document(const doc_node& root, std::string path_for_messages) {
  diagnostics d(path_for_messages);
  return load_root(d, root, std::move(path_for_messages), {});
}

load_result load_scenario_file(const std::string& path) {
  diagnostics d(path);
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  if (!regular) {
    d.error({}, {}, ec ? "cannot read the file: " + ec.message() : "cannot read the file: not a regular file");
    return failed(d);
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > scenario_file_size_max) {
    d.error({}, {}, ec ? "cannot read the file: " + ec.message() : "the file is larger than 16 MiB");
    return failed(d);
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) {
    d.error({}, {}, "cannot read the file: " + std::generic_category().message(errno));
    return failed(d);
  }
  return load_scenario_text(text.str(), path);
}

}  // namespace twice
