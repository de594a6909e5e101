#include "handlers/agent_handler.hpp"

#include <twice/store/store.hpp>

namespace twice {

sim::task<slice_outcome> agent_handler::run(slice_context& ctx) {
  const job_spec& job = ctx.job();
  for (std::size_t step = 1; step <= job.steps.size(); ++step) {
    if (static_cast<std::int32_t>(step) <= ctx.checkpoint_step()) continue;  // durable already
    const step_spec& spec = job.steps[step - 1];
    // A slow step goes to a job of its own, unless this is that job.
    if (spec.tool == ctx.rules().split_tool && !job.then) co_return slice_outcome::hand_off(step);
    tool& t = ctx.tool_named(spec.tool);
    // (Not a ?: with a co_await in each arm: gcc 12 miscompiles that.)
    slice_outcome out;
    if (t.writes()) {
      out = co_await write_step(ctx, step, spec, t);
    } else {
      out = co_await read_step(ctx, step, spec, t);
    }
    if (out.result != slice_outcome::kind::success) co_return out;
  }
  co_return slice_outcome::success();
}

sim::task<void> agent_handler::record_done(slice_context& ctx, std::size_t step, const step_spec& spec) {
  if (spec.checkpointed) co_await ctx.checkpoint(step);
}

namespace {
// Marks that a step's intent is in the outbox, so a later attempt's start
// (after a crash that came before the step's checkpoint) does not add it twice.
std::string intent_marker(const std::string& job, std::size_t step) {
  return "outbox:" + job + ":step_" + std::to_string(step);
}
}  // namespace

sim::task<void> agent_handler::on_slice_start(slice_context& ctx, transaction& tx) {
  if (ctx.rules().checkpoint != checkpoint_mode::outbox) co_return;
  const job_spec& job = ctx.job();
  for (std::size_t step = 1; step <= job.steps.size(); ++step) {
    if (static_cast<std::int32_t>(step) <= ctx.checkpoint_step()) continue;
    const step_spec& spec = job.steps[step - 1];
    if (!ctx.tool_named(spec.tool).writes()) continue;
    const std::string marker = intent_marker(job.id, step);
    if (co_await tx.has_dedupe(marker)) continue;
    outbox_row intent;
    intent.key = ctx.key_for(step, spec.tool);
    intent.job_id = job.id;
    intent.step = static_cast<std::int32_t>(step);
    intent.tool = spec.tool;
    intent.target = spec.target;
    intent.amount_cents = spec.amount_cents;
    co_await tx.insert_outbox(std::move(intent));
    co_await tx.insert_dedupe(marker);
  }
}

sim::task<slice_outcome> agent_handler::read_step(slice_context& ctx, std::size_t step, const step_spec& spec,
                                                  tool& t) {
  co_await ctx.point("before_tool", step, spec.tool);
  tool_call request{spec.target, spec.amount_cents, std::nullopt};
  tool_result r;
  if (ctx.rules().hold_transaction_across_model && spec.tool == "model") {
    // The bug: a connection is taken before the slow call and held through
    // it, so a handful of slow model calls exhaust the pool.
    transaction held = co_await ctx.db().begin(std::string(ctx.worker()) + "/held");
    r = co_await ctx.call(t, std::move(request), step);
    co_await held.commit();  // it wrote nothing: the harm was holding it
  } else {
    r = co_await ctx.call(t, std::move(request), step);
  }
  co_await ctx.point("after_tool", step, spec.tool);
  if (!r.ok()) co_return slice_outcome::from(r);
  co_await record_done(ctx, step, spec);
  co_return slice_outcome::success();
}

sim::task<slice_outcome> agent_handler::write_step(slice_context& ctx, std::size_t step, const step_spec& spec,
                                                   tool& t) {
  const discipline& rules = ctx.rules();
  if (rules.checkpoint == checkpoint_mode::outbox) {
    // The intent was written when the slice started; the relay owns the
    // effect. The step is done as far as this slice is concerned.
    co_await record_done(ctx, step, spec);
    co_return slice_outcome::success();
  }
  const std::string key = ctx.key_for(step, spec.tool);
  // A far side that ignores keys (most email providers, many webhooks): a
  // local claim, when the scenario asks for one, is the only defence,
  // recorded under the step's stable name whatever the key discipline.
  const bool claimed = rules.claims(spec.tool);

  if (rules.ledger_guard && t.moves_money() && !key.empty()) {
    transaction tx = co_await ctx.db().begin(std::string(ctx.worker()));
    const bool done = (co_await tx.find_ledger(key)).has_value();
    co_await tx.commit();
    if (done) {
      co_await record_done(ctx, step, spec);
      co_return slice_outcome::success();
    }
  }
  if (rules.checkpoint == checkpoint_mode::before_effect) {
    // The bug: the step is durable before its effect. A crash between here
    // and the call loses the refund for good; replay skips the step.
    co_await record_done(ctx, step, spec);
  }
  if (claimed) {
    // Claimed and committed before the send, so no later attempt, and no
    // worker overlapping this one, sends it again. The price is at most
    // once: a crash between this commit and the send loses the email, and
    // a send that timed out is never repeated (it may have gone out).
    const bool won = co_await ctx.claim(step, spec.tool);
    if (!won) {
      co_await record_done(ctx, step, spec);
      co_return slice_outcome::success();
    }
  }

  co_await ctx.point("before_tool", step, spec.tool);
  tool_call request{spec.target, spec.amount_cents, std::nullopt};
  if (rules.pass_key_to_vendor && !key.empty()) request.idempotency_key = key;
  const tool_result r = co_await ctx.call(t, std::move(request), step);
  co_await ctx.point("after_tool", step, spec.tool);
  if (!r.ok()) {
    // The provider answered that it sent nothing (503, 4xx): the claim
    // goes back so a retry sends. A timeout keeps it: maybe sent.
    if (claimed && !r.timed_out()) co_await ctx.release_claim(step, spec.tool);
    co_return slice_outcome::from(r);
  }

  // Record the effect locally, with the checkpoint, in one transaction.
  transaction tx = co_await ctx.db().begin(std::string(ctx.worker()));
  if (t.moves_money()) {
    ledger_row row;
    row.key = key;
    row.amount_cents = spec.amount_cents;
    row.job_id = ctx.job().id;
    row.vendor_ref = r.ref;
    co_await tx.insert_ledger(std::move(row));  // a unique-key violation means it is already there
  }
  if (rules.checkpoint == checkpoint_mode::before_effect || !spec.checkpointed) {
    co_await tx.commit();
  } else {
    co_await ctx.commit_step(tx, step);
  }
  co_return slice_outcome::success();
}

}  // namespace twice
