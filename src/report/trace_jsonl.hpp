#pragma once
// The trace as JSON lines (`twice run --trace FILE.jsonl`): one object per
// record, {"t_us", "actor", "kind", then the record's own fields}. Tool
// spans carry job_id, attempt, key, worker (the actor), sha and result.

#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/trace.hpp>

namespace twice {

std::string trace_to_jsonl(const std::vector<sim::trace_record>& records);
// One record's line, newline included (a trace streamed as it is made).
std::string jsonl_line(const sim::trace_record& r);

// A trace field's name in the JSON lines: `job` is written `job_id`; every
// other name as it is.
std::string_view jsonl_field_name(std::string_view trace_name);

}  // namespace twice
