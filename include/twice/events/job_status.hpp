#pragma once
// A job row's status, shared by the store, the runtime and the trace's
// events without the rows themselves.

#include <cstdint>
#include <string_view>

namespace twice {

enum class job_status : std::uint8_t { queued, running, done, failed, dead_lettered };

constexpr std::string_view to_string(job_status s) {
  switch (s) {
    case job_status::queued:
      return "queued";
    case job_status::running:
      return "running";
    case job_status::done:
      return "done";
    case job_status::failed:
      return "failed";
    case job_status::dead_lettered:
      return "dead_lettered";
  }
  return "unknown";
}

// A job has ended when nothing will run it again ("every job ends").
constexpr bool is_terminal(job_status s) {
  return s == job_status::done || s == job_status::failed || s == job_status::dead_lettered;
}

}  // namespace twice
