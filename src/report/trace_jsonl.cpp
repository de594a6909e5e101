#include "report/trace_jsonl.hpp"

#include <nlohmann/json.hpp>

namespace twice {

std::string_view jsonl_field_name(std::string_view trace_name) {
  // Every span and record names its job as job_id, the name the tracing
  // convention gives it ("attempt, job_id and the key on every tool span");
  // the trace (and its digest) still calls the field `job`.
  return trace_name == "job" ? "job_id" : trace_name;
}

std::string jsonl_line(const sim::trace_record& r) {
  nlohmann::ordered_json line{{"t_us", r.time.us()}, {"actor", r.actor}, {"kind", r.kind}};
  for (const sim::field& f : r.fields)
    std::visit([&](const auto& v) { line[std::string(jsonl_field_name(f.name))] = v; }, f.value);
  std::string out = line.dump();
  out += '\n';
  return out;
}

std::string trace_to_jsonl(const std::vector<sim::trace_record>& records) {
  std::string out;
  for (const sim::trace_record& r : records) out += jsonl_line(r);
  return out;
}

}  // namespace twice
