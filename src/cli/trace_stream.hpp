#pragma once
// `twice run --trace FILE` when nothing else needs the events kept (--quiet
// or --json, no other output): each event is written as its JSON line when
// it happens, so a run of a million jobs holds none of them; the file is
// put in place when the run ends (cli/output_file.hpp).

#include "cli/output_file.hpp"
#include <twice/events/event_log.hpp>

namespace twice::cli {

class jsonl_trace_stream final : public event_observer {
 public:
  explicit jsonl_trace_stream(streamed_file& out) : out_(out) {}
  void on_event(const ev::event& e, const name_table& names) override;

 private:
  streamed_file& out_;
};

}  // namespace twice::cli
