#include "report/trace_jsonl.hpp"

#include <nlohmann/json.hpp>

namespace twice {

std::string trace_to_jsonl(const std::vector<sim::trace_record>& records) {
  std::string out;
  for (const sim::trace_record& r : records) {
    nlohmann::ordered_json line{{"t_us", r.time.us()}, {"actor", r.actor}, {"kind", r.kind}};
    for (const sim::field& f : r.fields)
      std::visit([&](const auto& v) { line[std::string(f.name)] = v; }, f.value);
    out += line.dump();
    out += '\n';
  }
  return out;
}

}  // namespace twice
