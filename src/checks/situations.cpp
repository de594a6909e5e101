#include <twice/checks/situations.hpp>

#include <algorithm>
#include <array>

#include <twice/sim/footprint.hpp>

namespace twice {
namespace {

// Report order: the incidents first (what the invariants exist for), then the
// broker's and the vendor's moves, then the runtime's own defences.
constexpr std::array<situation_info, 19> all = {{
    {"crash_after_write_before_ack",
     "a worker died (a crash, or a kill at the end of a drain) after a slice's write took effect and before the "
     "slice acked"},
    {"lease_expired_mid_slice",
     "a message's lease (visibility timeout, ack deadline) ran out while a slice of its job "
     "was still running"},
    {"redelivered_to_another_worker", "a job's next attempt ran on a different worker than its previous one"},
    {"duplicate_delivery", "the broker delivered a message again while it was still in flight"},
    {"succeeded_after_5xx", "a tool answered 5xx and a later call of the same step succeeded"},
    {"response_lost_after_commit", "a far side acted but its answer was lost on the way back"},
    {"duplicate_absorbed_by_key",
     "a far side answered a repeated request from its idempotency key instead of "
     "acting again"},
    {"claim_stopped_a_repeat", "a claim (a dedupe row) stopped a step from running twice"},
    {"stale_write_fenced", "a slice that had lost its lease was refused a write by its fencing token"},
    {"lease_extended", "a slow slice's heartbeat extended its lease"},
    {"backoff_hit_cap", "a retry's backoff reached its cap"},
    {"retry_refused", "a retry budget or a retry breaker refused a retry and the job was dead-lettered"},
    {"circuit_opened", "a circuit breaker opened on a tool"},
    {"dead_lettered", "a job's message went to the dead-letter queue"},
    {"expired_by_retention", "retention deleted a message"},
    {"orphan_rescued", "a job whose process died was rescued and handed out again"},
    {"pod_drained", "a pod was drained (a deploy or a scale-in) while the run went on"},
    {"drain_timed_out",
     "a drain ran out of time (the grace period or the runtime's shutdown timeout) with a slice in "
     "flight"},
    {"rebalance_mid_batch", "a consumer group rebalanced while a member had a record in flight"},
}};
static_assert(all.size() <= 64, "a run's situations are one 64-bit mask");

// A situation's bit, found at compile time: a name not in the list does not compile.
consteval std::size_t at(std::string_view name) {
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return i;
  throw "no such situation";
}

}  // namespace

std::span<const situation_info> situations() { return all; }

std::optional<std::size_t> situation_index(std::string_view name) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const situation_info& s) { return s.name == name; });
  if (it == all.end()) return std::nullopt;
  return static_cast<std::size_t>(it - all.begin());
}

void situation_tracker::reach(std::size_t situation) { reached_ |= situation_set{1} << situation; }

bool situation_tracker::slice_open_for(ev::name_id job) const {
  return std::any_of(slices_.begin(), slices_.end(), [job](const auto& s) { return s.second.job == job; });
}

void situation_tracker::on_event(const ev::event& e, const name_table& names) {
  constexpr std::size_t crash_after_write = at("crash_after_write_before_ack");
  constexpr std::size_t lease_expired = at("lease_expired_mid_slice");
  constexpr std::size_t other_worker = at("redelivered_to_another_worker");
  constexpr std::size_t duplicate = at("duplicate_delivery");
  constexpr std::size_t after_5xx = at("succeeded_after_5xx");
  constexpr std::size_t response_lost = at("response_lost_after_commit");
  constexpr std::size_t absorbed = at("duplicate_absorbed_by_key");
  constexpr std::size_t claim = at("claim_stopped_a_repeat");
  constexpr std::size_t fenced = at("stale_write_fenced");
  constexpr std::size_t extended = at("lease_extended");
  constexpr std::size_t capped = at("backoff_hit_cap");
  constexpr std::size_t refused = at("retry_refused");
  constexpr std::size_t circuit = at("circuit_opened");
  constexpr std::size_t dead = at("dead_lettered");
  constexpr std::size_t retention = at("expired_by_retention");
  constexpr std::size_t rescued = at("orphan_rescued");
  constexpr std::size_t drained = at("pod_drained");
  constexpr std::size_t drain_timeout = at("drain_timed_out");
  constexpr std::size_t rebalance = at("rebalance_mid_batch");

  if (const auto* start = std::get_if<ev::attempt_start>(&e.body)) {
    slices_[e.actor] = {start->job, false};
    if (start->job >= last_actor_.size())
      last_actor_.resize(std::max<std::size_t>(start->job + 1, 2 * last_actor_.size()));
    ev::name_id& last = last_actor_[start->job];
    if (last != 0 && last != e.actor) reach(other_worker);
    last = e.actor;
    return;
  }
  if (const auto* call = std::get_if<ev::tool_call>(&e.body)) {
    const bool ok = call->status >= 200 && call->status < 300;
    if (call->new_write && ok)
      if (const auto s = slices_.find(e.actor); s != slices_.end() && s->second.job == call->job)
        s->second.wrote = true;
    const auto key = std::tuple{call->job, call->step, call->tool};
    if (call->status >= 500) failed_5xx_.insert(key);
    if (ok && failed_5xx_.erase(key) > 0) reach(after_5xx);
    if (call->replayed) reach(absorbed);
    return;
  }
  if (std::holds_alternative<ev::slice_end>(e.body)) {
    slices_.erase(e.actor);
    return;
  }
  if (const auto* crash = std::get_if<ev::crash>(&e.body)) {
    if (const auto s = slices_.find(e.actor); s != slices_.end()) {
      if (crash->in_flight && s->second.wrote) reach(crash_after_write);
      slices_.erase(s);
    }
    return;
  }
  if (const auto* stop = std::get_if<ev::stop>(&e.body)) {
    // The run's own end (shutdown) stops every pod: no situation of the world's.
    const bool killed =
        stop->why == ev::stop_reason::grace_period_expired || stop->why == ev::stop_reason::shutdown_timeout;
    if (stop->in_flight && killed) reach(drain_timeout);
    if (const auto s = slices_.find(e.actor); s != slices_.end()) {
      if (stop->in_flight && stop->why != ev::stop_reason::shutdown && s->second.wrote) reach(crash_after_write);
      slices_.erase(s);
    }
    return;
  }
  if (const auto* expired = std::get_if<ev::lease_expired>(&e.body)) {
    if (slice_open_for(expired->body)) reach(lease_expired);
    return;
  }
  if (std::holds_alternative<ev::lease_lost>(e.body) || std::holds_alternative<ev::lease_dropped>(e.body))
    return reach(lease_expired);
  if (std::holds_alternative<ev::duplicate_delivery>(e.body)) return reach(duplicate);
  if (std::holds_alternative<ev::vendor_response_lost>(e.body)) return reach(response_lost);
  if (std::holds_alternative<ev::vendor_replay>(e.body)) return reach(absorbed);
  if (std::holds_alternative<ev::claim_skipped>(e.body)) return reach(claim);
  if (std::holds_alternative<ev::fenced>(e.body) || std::holds_alternative<ev::store_fenced>(e.body))
    return reach(fenced);
  if (const auto* beat = std::get_if<ev::heartbeat>(&e.body)) {
    if (beat->status == queue_status::ok) reach(extended);
    return;
  }
  if (const auto* b = std::get_if<ev::backoff>(&e.body)) {
    if (b->cap.us() > 0 && b->delay >= b->cap) reach(capped);
    return;
  }
  if (const auto* dl = std::get_if<ev::dead_letter>(&e.body)) {
    reach(dead);
    // The worker's words for it (runtime/worker.cpp): no event of its own.
    const std::string_view reason = names.text(dl->reason);
    if (reason.starts_with("retry budget spent") || reason.starts_with("retry breaker open")) reach(refused);
    return;
  }
  if (const auto* changed = std::get_if<ev::circuit_changed>(&e.body)) {
    if (names.text(changed->state) == "open") reach(circuit);
    return;
  }
  if (std::holds_alternative<ev::retention_expired>(e.body)) return reach(retention);
  if (std::holds_alternative<ev::orphan_rescued>(e.body) || std::holds_alternative<ev::orphan_recovered>(e.body))
    return reach(rescued);
  if (std::holds_alternative<ev::drain>(e.body)) return reach(drained);
  if (std::holds_alternative<ev::rebalance_start>(e.body)) {
    if (!slices_.empty()) reach(rebalance);
    return;
  }
}

std::uint64_t situation_tracker::footprint() const {
  return sim::tree_footprint(slices_) + sim::footprint_of(last_actor_) + sim::tree_footprint(failed_5xx_);
}

}  // namespace twice
