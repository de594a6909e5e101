#pragma once
// Which jobs a bounded span_collector keeps the spans of (span_bound), once
// their spans are closed: the first jobs seen, and of each kind a reader
// looks for (retried, crashed, dead-lettered, paid twice) the most attempted.
// A rule on integers and the order jobs were first seen, never on addresses
// or a hash's order: the same run keeps the same jobs. Internal to the
// report layer (report/spans.cpp).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace twice::span_sample {

// What makes a job worth its lane; a job may be several.
enum kind : unsigned {
  retried = 1,        // more than one delivery or attempt, or a backoff
  crashed = 2,        // a delivery that ended in a crash, stop, expiry or an interrupted call
  dead_lettered = 4,  // given up on
  duplicated = 8,     // one of its calls was answered by a second refund of an invoice
};
inline constexpr unsigned kinds = 4;

struct job_facts {
  std::uint64_t order = 0;    // when it was first seen: 0 for the run's first job
  std::int64_t attempts = 0;  // as the report counts them (a delivery without an attempt counts one)
  unsigned kind = 0;          // of `kind`
};

// For each candidate, whether to keep it: those among the `first_jobs`
// first seen, and for each kind the `per_kind` of that kind most attempted
// (the earliest seen of equal attempts).
std::vector<bool> choose_kept(const std::vector<job_facts>& candidates, std::size_t first_jobs, std::size_t per_kind);

}  // namespace twice::span_sample
