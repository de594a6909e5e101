#include "runtime/outbox_relay.hpp"

#include <twice/sim/condition.hpp>
#include <twice/sim/sleep.hpp>
#include <twice/store/store.hpp>

namespace twice {

namespace {
constexpr std::string_view relay_actor = "relay";
constexpr std::size_t relay_batch = 10;
}  // namespace

outbox_relay::outbox_relay(runtime_services& services, sim::duration poll_interval)
    : services_(services), poll_interval_(poll_interval) {
  TWICE_CHECK(poll_interval > sim::duration::zero());
}

outbox_relay::~outbox_relay() { stop(); }

void outbox_relay::start() {
  ++incarnation_;
  process_ = services_.kernel.spawn(loop(), std::string(relay_actor));
}

void outbox_relay::stop() {
  ++incarnation_;  // no pending restart brings it back
  if (process_.valid()) services_.kernel.kill(process_);
  process_ = {};
}

void outbox_relay::crash() {
  event_log& log = services_.events;
  log.emit(log.name(relay_actor), ev::relay_crash{log.name("fault")});
  if (process_.valid()) services_.kernel.kill(process_);
  process_ = {};
  services_.kernel.schedule_after(services_.config.restart_delay, restart_callback, this, ++incarnation_);
}

void outbox_relay::restart_callback(sim::kernel&, void* ctx, std::uint64_t incarnation) {
  auto* relay = static_cast<outbox_relay*>(ctx);
  if (relay->incarnation_ != incarnation) return;
  relay->start();
}

sim::task<void> outbox_relay::loop() {
  while (true) {
    transaction read = co_await services_.db.begin(std::string(relay_actor));
    const std::vector<outbox_row> rows = co_await read.unsent_outbox(relay_batch);
    read.rollback();  // read only
    bool progress = !rows.empty();
    for (const outbox_row& row : rows) {
      if (!co_await relay_one(row)) {
        progress = false;  // a retryable failure: wait a poll interval before trying again
        break;
      }
    }
    if (!progress) co_await sim::sleep_for(poll_interval_);
  }
}

sim::task<bool> outbox_relay::relay_one(const outbox_row& row) {
  auto tool_it = services_.tools.find(row.tool);
  TWICE_CHECK(tool_it != services_.tools.end());
  tool& t = *tool_it->second;
  const discipline& rules = services_.config.rules;
  tool_call request{row.target, row.amount_cents, std::nullopt};
  request.reference = row.job_id + ":step_" + std::to_string(row.step) + ":" + row.tool;
  if (rules.pass_key_to_vendor && !row.key.empty()) request.idempotency_key = row.key;

  const sim::instant started = services_.kernel.now();
  const std::int64_t step = row.step;
  event_log& log = services_.events;
  const ev::name_id actor = log.name(relay_actor), job = log.name(row.job_id), tool_id = log.name(row.tool),
                    key = log.name(row.key);
  log.emit(actor, ev::relay_tool_start{job, step, tool_id, key, row.id});
  const tool_result r = co_await t.call(request);
  log.emit(actor, ev::relay_tool_call{job, step, tool_id, key, r.status, log.name(r.error_code), log.name(r.ref),
                                      r.replayed, t.writes() && r.ok() && !r.replayed, started, row.id});

  const point_event ev{relay_actor, row.job_id, 0, "after_send", static_cast<std::size_t>(row.step), row.tool};
  if (services_.faults.at_point(ev) == point_action::crash) {
    crash();
    co_await sim::suspend_forever{};
  }
  if (!r.ok() && r.retryable()) co_return false;

  // Sent (or refused for good): record what the far side did, mark the row.
  transaction tx = co_await services_.db.begin(std::string(relay_actor));
  if (r.ok() && t.moves_money()) {
    ledger_row entry;
    entry.key = row.key;
    entry.amount_cents = row.amount_cents;
    entry.job_id = row.job_id;
    entry.vendor_ref = r.ref;
    co_await tx.insert_ledger(std::move(entry));
  }
  co_await tx.mark_outbox_sent(row.id);
  co_await tx.commit();
  if (r.ok())
    log.emit(actor, ev::relayed{job, key, r.status});
  else
    log.emit(actor, ev::relay_gave_up{job, key, r.status});
  co_return true;
}

}  // namespace twice
