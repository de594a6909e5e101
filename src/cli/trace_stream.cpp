#include "cli/trace_stream.hpp"

#include "report/trace_jsonl.hpp"

namespace twice::cli {

void jsonl_trace_stream::on_event(const ev::event& e, const name_table& names) {
  out_.write(jsonl_line(as_record(e, names)));
}

}  // namespace twice::cli
