#pragma once
// A kind of job a scenario defines ([[job_type]]): its steps, and where its
// progress lives. The agent job (read, model, refund, email) is one such
// type, built in; a scenario may name its own, and [[job]] and [workload]
// make jobs of any of them.
//
// Progress is what a redelivery finds done:
//   per_step  each step is recorded (checkpointed) when it succeeds; a
//             batch step (items > 1) only after its last item, so a
//             retry mid-batch starts the batch again from its first item;
//   per_item  every item of every batch is recorded as it succeeds;
//   none      nothing is recorded but the job's end (the ack, a committed
//             offset): a redelivery redoes the whole job from step 1.
// With items = 1 everywhere, per_step and per_item are the same.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <twice/runtime/job.hpp>

namespace twice {

enum class progress_mode : std::uint8_t { per_step, per_item, none };
std::string_view to_string(progress_mode);
std::optional<progress_mode> parse_progress_mode(std::string_view);

// One declared step: `items` calls of its tool, one after another. In a
// target, "{job}" stands for the job's id; item i (from 1) of a batch
// targets "<target>_<i>".
struct step_template {
  std::string tool;
  std::string target;
  std::int64_t amount_cents = 0;
  std::int64_t items = 1;
};

struct job_type {
  std::string name;
  progress_mode progress = progress_mode::per_step;
  std::vector<step_template> steps;
  std::string tenant = {};  // the tenant of every job of this type ("": none)

  // The calls a job of this type makes: the sum of its steps' items.
  std::int64_t call_count() const;
};

// The name the built-in agent job goes by in [[job]] `type` and in
// [workload] `types`; no [[job_type]] may take it.
inline constexpr std::string_view agent_type_name = "agent";

// A job of type `t` with id `id`: every batch expanded into one step per
// item (each its own step number, key and fault point), each step's
// `checkpointed` set by the type's progress.
job_spec make_job(const job_type& t, std::string id);

}  // namespace twice
