#pragma once
// What a job is asked to do: an ordered list of steps, each one tool call.
// The built-in agent job reads the invoice, asks the model, refunds, and
// optionally emails the customer; steps are numbered from 1 so keys read
// as people write them: "job_17:step_3:refund".

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <twice/sim/time.hpp>

namespace twice {

struct step_spec {
  std::string tool;               // a registered tool's name: "read", "model", "refund", "email", or a user's
  std::string target;             // invoice id, recipient, document
  std::int64_t amount_cents = 0;  // for money-moving tools
  // The handler records this step done (a checkpoint on the job row) once it
  // succeeded. False inside a batch recorded only at its end, and in jobs
  // whose progress lives only in the ack (runtime/job_type.hpp): a
  // redelivery then runs the step again.
  bool checkpointed = true;
};

// A job split out of another's step (the slow call handed off to a queue
// of its own): when it ends done, `job` resumes after `step`; when it ends
// failed or dead-lettered, so does `job`.
struct continuation {
  std::string job;
  std::int32_t step = 0;
};

struct job_spec {
  std::string id;  // "job_17"
  std::vector<step_spec> steps;
  std::string type = {};    // its [[job_type]]'s name; "" for the agent job and a job that lists its own steps
  std::string tenant = {};  // whose job it is (a customer, an account); "" for none
  sim::instant enqueue_at;  // when the job's message is sent
  std::optional<continuation> then = {};  // set on split-out jobs only
};

// The job a split hands `step` of `parent` to: one step, named as the
// stable key names it ("job_17:step_2:model"), resuming `parent` after.
job_spec split_job(const job_spec& parent, std::size_t step);

// The classic agent job: read the invoice, ask the model, refund, and (when
// `email` is set) tell the customer.
job_spec agent_job(std::string id, std::string invoice, std::int64_t amount_cents, bool email = false);

}  // namespace twice
