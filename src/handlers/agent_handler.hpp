#pragma once
// The built-in handler: a multi-step agent job whose steps are tool calls
// (read the invoice, ask the model, refund, email the customer). Its
// discipline is configurable because the catalogue must show each choice:
// which key it uses, whether the key reaches the vendor, a local ledger
// guard, when it checkpoints, whether it holds a transaction across the
// model call, whether emails are deduplicated.
//
// A step whose number is at or below the job's checkpoint is durable and is
// skipped on replay; everything else runs again — which is the whole
// question: what happens if this slice runs twice?

#include <string>

#include <twice/runtime/handler.hpp>

namespace twice {

class agent_handler final : public handler {
 public:
  sim::task<slice_outcome> run(slice_context& ctx) override;
  // Outbox discipline: the intent rows of the job's remaining writes, keys
  // chosen, in the transaction that starts the slice.
  sim::task<void> on_slice_start(slice_context& ctx, transaction& tx) override;

 private:
  sim::task<slice_outcome> read_step(slice_context& ctx, std::size_t step, const step_spec& spec, tool& t);
  sim::task<slice_outcome> write_step(slice_context& ctx, std::size_t step, const step_spec& spec, tool& t);
  // Checkpoints `step` when the job's progress records it (step_spec::checkpointed).
  static sim::task<void> record_done(slice_context& ctx, std::size_t step, const step_spec& spec);
};

}  // namespace twice
