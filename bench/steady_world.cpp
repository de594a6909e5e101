#include "bench/steady_world.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <twice/checks/checked_run.hpp>
#include "scenario/doc_writer.hpp"
#include "scenario/document.hpp"
#include "scenario/key_path.hpp"
#include <twice/world/world.hpp>

namespace twice::bench {

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "%s\n", why.c_str());
  std::exit(2);
}

}  // namespace

scenario load_steady(const std::string& path, std::uint64_t jobs) {
  namespace sd = scenario_detail;
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot read the benchmark scenario");
  std::ostringstream text;
  text << in.rdbuf();
  sd::parsed_document doc = sd::parse_document(text.str(), path);
  if (!doc.ok) fail(path + ": " + doc.error);
  if (!sd::set_node(doc.root, *sd::parse_key_path("workload.count"), sd::make_integer(static_cast<std::int64_t>(jobs))))
    fail(path + ": no [workload] table to resize");
  load_result loaded = load_scenario_text(sd::write_document(doc.root), path);
  if (!loaded.ok()) {
    std::string all;
    for (const scenario_error& e : loaded.errors) all += e.to_string() + "\n";
    fail(all);
  }
  // The benchmarks measure the whole run: a million steady jobs hold more
  // than the default memory budget today (bench/README.md).
  loaded.value->world.memory_budget = memory_budget_max;
  return std::move(*loaded.value);
}

steady_run run_digest_only(world_config config) {
  const std::uint64_t jobs = job_count(config);
  config.trace_retention = sim::trace_recorder::retention::digest_only;
  const checked_result checked = run_with_checkers(std::move(config));
  const world_result& result = checked.result;
  steady_run out;
  out.jobs = jobs;
  out.events = result.events;
  out.trace_digest = result.trace_digest;
  out.simulated_seconds = static_cast<double>(result.now.us()) / 1e6;
  out.all_jobs_ended = result.all_jobs_ended;
  out.invariants_held = true;
  for (const verdict& v : checked.verdicts) out.invariants_held = out.invariants_held && v.held;
  return out;
}

}  // namespace twice::bench
