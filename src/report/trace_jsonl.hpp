#pragma once
// The trace as JSON lines (`twice run --trace FILE.jsonl`): one object per
// record, {"t_us", "actor", "kind", then the record's own fields}. Tool
// spans carry job, attempt, key, worker (the actor), sha and result.

#include <string>
#include <vector>

#include "sim/trace.hpp"

namespace twice {

std::string trace_to_jsonl(const std::vector<sim::trace_record>& records);

}  // namespace twice
