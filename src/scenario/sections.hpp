#pragma once
// The section loaders behind load_scenario_text, one file per group of
// sections. They run in a fixed order because later sections refer to what
// earlier ones defined: faults name workers and jobs, so [workers] and the
// jobs are loaded first.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/runtime/job_type.hpp>
#include "scenario/reader.hpp"
#include <twice/scenario/scenario.hpp>
#include "sim/duration_text.hpp"

namespace twice::scenario_detail {

// What the loaders share. Where a definition was itself bad (a worker count
// that did not load, a job without a valid id), references to it are not
// checked: one mistake gives one error, not a cascade.
struct load_state {
  diagnostics& d;
  world_config& world;
  expectations& expect;
  std::optional<std::uint32_t> worker_count;                      // unset when [workers] count was bad
  std::map<std::string, source_pos, std::less<>> job_ids;         // every job id -> where it was defined
  std::vector<std::string> named_job_ids;                         // the [[job]] ids, for "did you mean"
  bool job_ids_complete = true;                                   // false when some job's id did not load
  std::map<std::string, job_type, std::less<>> job_types;         // [[job_type]] by name
  std::map<std::string, source_pos, std::less<>> job_type_names;  // every [[job_type]] name, loaded or not
  // The tools a step or a fault may name: the built-ins, then the
  // scenario's own (views of world.tools' names), set by load_tools.
  std::vector<std::string_view> tool_names;
  // Every table under [tools], loaded or not: a step naming one whose table
  // had an error is not a second error.
  std::vector<std::string> tool_tables;
};

void load_settings(const table_reader& root, load_state& s);  // seed, name aside: [budget] .. [store]
// queue.flavour and each flavour's own checks (load_flavour.cpp).
void load_flavour_choice(const table_reader& queue, load_state& s);  // sets the flavour's defaults
void load_sidekiq(const table_reader& root, load_state& s);          // [sidekiq]
void load_celery(const table_reader& root, load_state& s);           // [celery]
void load_pubsub(const table_reader& root, load_state& s);           // [pubsub]
void load_kafka(const table_reader& root, load_state& s);            // [kafka]
void check_flavour(const table_reader& root, load_state& s);         // what the flavour does not take
void load_tools(const table_reader& root, load_state& s);            // [vendor], [tools.*]
void load_jobs(const table_reader& root, load_state& s);             // [[job_type]], [[job]], [workload]
void check_tenant_queues(const table_reader& root, load_state& s);   // [tenants] queues against the jobs
void load_faults(const table_reader& root, load_state& s);  // [[fault]], [[crash]], [[deploy]], [[queue_fault]]
void load_expect(const table_reader& root, load_state& s);  // [expect]
void load_explore(const table_reader& root, load_state& s, explore_spec& out);              // [explore]
void load_sweep(const table_reader& root, load_state& s, sweep_spec& out);                  // [sweep]
void load_lint(const table_reader& root, load_state& s, std::vector<lint_allowance>& out);  // [lint]

// Checks a reference to a worker index / job id; reports a bad one.
// A window's `start` and `end` (load_tools.cpp): both required, end after
// start; `ok` false when an error was reported.
struct window_read {
  bool ok = false;
  time_window window;
};
window_read load_window(const table_reader& r);

// Reads a step's or a fault's `tool`: one of tool_names. An unknown name is
// an error that lists the tools and says how to define one of your own.
std::optional<std::string_view> read_tool_name(const load_state& s, const doc_node& n, const std::string& path);

bool check_worker_ref(const load_state& s, const doc_node& n, const std::string& path, std::uint32_t index);
bool check_job_ref(const load_state& s, const doc_node& n, const std::string& path, const std::string& id);

}  // namespace twice::scenario_detail
