#include "explore/probe.hpp"

#include <twice/checks/checked_run.hpp>
#include "sim/count_text.hpp"

namespace twice::explore {

scenario_size size_of(const world_config& c) {
  scenario_size s;
  s.jobs = job_count(c);
  s.workers = c.workers;
  s.faults = c.point_faults.size() + c.crashes.size() + c.deploys.size() + c.queue_faults.size();
  s.faults += c.payments.outages.size() + c.payments.latency_spikes.size();
  for (const std::uint32_t ppm :
       {c.payments.unavailable_ppm, c.payments.rate_limited_ppm, c.payments.internal_error_ppm,
        c.payments.lost_request_ppm, c.payments.lost_response_ppm})
    s.faults += ppm != 0;
  for (const service_tool_config* t : service_tools(c)) {
    s.faults += t->outages.size() + t->latency_spikes.size();
    for (const std::uint32_t ppm :
         {t->unavailable_ppm, t->rate_limited_ppm, t->internal_error_ppm, t->lost_request_ppm, t->lost_response_ppm})
      s.faults += ppm != 0;
  }
  return s;
}

std::string describe(const scenario_size& s) {
  return sim::counted(s.jobs, "job") + ", " + sim::counted(s.workers, "worker") + ", " +
         sim::counted(s.faults, "fault");
}

bool probe_result::violates(std::string_view invariant) const {
  for (const verdict& v : verdicts)
    if (v.name == invariant) return !v.held;
  return false;
}

probe_result probe(const scenario& sc) {
  world_config config = sc.world;
  config.trace_retention = sim::trace_recorder::retention::digest_only;
  situation_tracker situations;
  checked_run_options options;
  options.observers = {&situations};
  checked_result checked = run_with_checkers(std::move(config), options);
  probe_result out;
  out.reached = situations.reached();
  out.loaded = true;
  out.verdicts = std::move(checked.verdicts);
  out.trace_digest = checked.result.trace_digest;
  out.size = size_of(sc.world);
  return out;
}

namespace {

probe_result probe_loaded(load_result loaded) {
  if (!loaded.ok()) {
    probe_result out;
    out.errors = std::move(loaded.errors);
    return out;
  }
  return probe(*loaded.value);
}

}  // namespace

probe_result probe_text(std::string_view text, const std::string& path_for_messages) {
  return probe_loaded(load_scenario_text(text, path_for_messages));
}

probe_result probe_document(const scenario_detail::doc_node& root, const std::string& path_for_messages) {
  return probe_loaded(load_scenario_document(root, path_for_messages));
}

}  // namespace twice::explore
