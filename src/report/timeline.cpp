#include <twice/report/timeline.hpp>

#include <twice/sim/footprint.hpp>

#include <fmt/core.h>

#include <map>

#include "sim/duration_text.hpp"

namespace twice {

namespace {
std::string str(const sim::trace_record& r, std::string_view name) {
  return std::string(r.get_string(name).value_or(""));
}
std::int64_t num(const sim::trace_record& r, std::string_view name) { return r.get_int(name).value_or(0); }
std::string secs(std::int64_t us) { return fmt::format("{}.{:06}s", us / 1'000'000, us % 1'000'000); }

std::string tool_line(const sim::trace_record& r) {
  const std::string key = str(r, "key");
  std::string out =
      fmt::format("{} {} step {} key={}", str(r, "tool"), str(r, "job"), num(r, "step"), key.empty() ? "(none)" : key);
  const std::int64_t status = num(r, "status");
  if (status == 0) {
    out += " -> timeout (no answer)";
  } else {
    out += fmt::format(" -> {}", status);
    if (!str(r, "error").empty()) out += " " + str(r, "error");
    if (!str(r, "ref").empty()) out += " " + str(r, "ref");
  }
  if (r.get_bool("replayed") == true) out += " (replayed)";
  if (r.get_bool("new_write") == true) out += "  new_write";
  return out;
}

using formatter = std::string (*)(const sim::trace_record&);

const std::map<std::string_view, formatter>& formatters() {
  static const std::map<std::string_view, formatter> table{
      {"start", [](const sim::trace_record& r) { return "pod starts on " + str(r, "sha"); }},
      {"crash",
       [](const sim::trace_record& r) {
         return "CRASH (" + str(r, "why") + ")" +
                (r.get_bool("in_flight") == true ? ", " + str(r, "job") + " in flight" : "");
       }},
      {"stop",
       [](const sim::trace_record& r) {
         return "pod stops (" + str(r, "why") + ")" +
                (r.get_bool("in_flight") == true ? ", KILLING " + str(r, "job") + " in flight" : "");
       }},
      {"drain", [](const sim::trace_record&) { return std::string("SIGTERM: drain, stop leasing"); }},
      {"attempt_start",
       [](const sim::trace_record& r) {
         const std::int64_t checkpoint = num(r, "checkpoint");
         return fmt::format(
             "attempt {} of {} starts (delivery {}, {})", num(r, "attempt"), str(r, "job"), num(r, "receive_count"),
             checkpoint < 0 ? std::string("nothing checkpointed") : fmt::format("steps 1..{} durable", checkpoint));
       }},
      {"tool_call", tool_line},
      {"fault_crash",
       [](const sim::trace_record& r) {
         return fmt::format("fault: crash at {} (step {}, attempt {})", str(r, "point"), num(r, "step"),
                            num(r, "attempt"));
       }},
      {"fault_error",
       [](const sim::trace_record& r) {
         return fmt::format("fault: the handler raises at {} (step {}, attempt {})", str(r, "point"), num(r, "step"),
                            num(r, "attempt"));
       }},
      {"backoff",
       [](const sim::trace_record& r) {
         // The broker's words: Sidekiq's retry set, Celery's Task.retry, and
         // Sidekiq's schedule bounded by its last retry where others have a cap.
         const std::string route = str(r, "route");
         const std::string where = route == "retry_set"   ? "to the retry set"
                                   : route == "republish" ? "Task.retry: published again with a countdown"
                                                          : str(r, "mode");
         const std::string cap = r.get_bool("schedule_bound") == true
                                     ? "Sidekiq's schedule, no cap: its last retry waits at most " +
                                           sim::format_duration(sim::duration::from_us(num(r, "cap_us")))
                                     : "cap " + secs(num(r, "cap_us"));
         return fmt::format("backoff {} after attempt {} of {} ({}; {}): {}", secs(num(r, "delay_us")),
                            num(r, "attempt"), str(r, "job"), where, cap, str(r, "error"));
       }},
      {"checkpoint",
       [](const sim::trace_record& r) { return fmt::format("checkpoint {} step {}", str(r, "job"), num(r, "step")); }},
      {"job_done", [](const sim::trace_record& r) { return str(r, "job") + " done"; }},
      {"job_failed", [](const sim::trace_record& r) { return str(r, "job") + " FAILED: " + str(r, "error"); }},
      {"dead_letter",
       [](const sim::trace_record& r) {
         return fmt::format("{} DEAD-LETTERED after {} attempts: {}", str(r, "job"), num(r, "attempts"),
                            str(r, "reason"));
       }},
      {"ack", [](const sim::trace_record& r) { return "ack " + str(r, "job") + " (" + str(r, "status") + ")"; }},
      {"ack_ignored",
       [](const sim::trace_record& r) {
         // The receipt is stale: the message was given out again since this
         // receive, after its lease ran out or as the broker's duplicate copy;
         // SQS then "succeeds, but the message might not be deleted" (the
         // DeleteMessage reference).
         return "ack " + str(r, "job") +
                " ignored: the message was given out again since this receive, so the broker "
                "keeps it";
       }},
      {"claim_skipped",
       [](const sim::trace_record& r) {
         return fmt::format("{} {} step {} skipped: {} already claimed by {}", str(r, "tool"), str(r, "job"),
                            num(r, "step"), str(r, "claim"), str(r, "claimed_by"));
       }},
      {"already_ended",
       [](const sim::trace_record& r) { return "redelivered " + str(r, "job") + ", already " + str(r, "status"); }},
      {"duplicate_delivery",
       [](const sim::trace_record& r) { return "delivers " + str(r, "body") + " twice (no crash)"; }},
      {"delete_lost",
       [](const sim::trace_record& r) { return "the ack of " + str(r, "body") + " is lost on the way"; }},
      {"lost_with_process",
       [](const sim::trace_record& r) { return str(r, "body") + " is lost with the process that fetched it"; }},
      {"orphaned",
       [](const sim::trace_record& r) {
         return str(r, "body") + " orphaned in the dead process's working list (super_fetch), to be recovered";
       }},
      {"orphan_recovered",
       [](const sim::trace_record& r) {
         return fmt::format("recovers {} after {} orphaned (recovery {} in 72 h)", str(r, "body"),
                            secs(num(r, "orphaned_for_us")), num(r, "recoveries"));
       }},
      {"lease_dropped",
       [](const sim::trace_record& r) {
         return fmt::format("stops extending {}'s lease after {} (max_lease_duration); the slice runs on",
                            str(r, "job"), secs(num(r, "held_us")));
       }},
      {"produced",
       [](const sim::trace_record& r) {
         return fmt::format("{} appended to partition {} at offset {}", str(r, "body"), num(r, "partition"),
                            num(r, "offset"));
       }},
      {"fetched",
       [](const sim::trace_record& r) {
         return fmt::format("polls {} (partition {} offset {}, handed out {} time{}, generation {})", str(r, "body"),
                            num(r, "partition"), num(r, "offset"), num(r, "deliveries"),
                            num(r, "deliveries") == 1 ? "" : "s", num(r, "generation"));
       }},
      {"offset_commit",
       [](const sim::trace_record& r) {
         const std::string status = str(r, "status");
         return fmt::format(
             "{}commits partition {} up to offset {}{}", r.get_bool("automatic").value_or(false) ? "auto-" : "",
             num(r, "partition"), num(r, "offset"),
             status == "ok" ? std::string() : " -> " + status + " (CommitFailedException: the group has rebalanced)");
       }},
      {"rebalance_start",
       [](const sim::trace_record& r) {
         return fmt::format("rebalance after generation {}: {} ({}); every member must rejoin", num(r, "generation"),
                            str(r, "reason"), str(r, "member"));
       }},
      {"member_removed",
       [](const sim::trace_record& r) {
         return fmt::format("{} leaves the group: {}", str(r, "member"), str(r, "reason"));
       }},
      {"partitions_assigned",
       [](const sim::trace_record& r) {
         return fmt::format("generation {}: {} gets partition(s) {}", num(r, "generation"), str(r, "member"),
                            str(r, "partitions"));
       }},
      {"eta_held",
       [](const sim::trace_record& r) {
         return fmt::format("holds {} unacked until its ETA {}", str(r, "job"), secs(num(r, "eta_us")));
       }},
      {"worker_lost",
       [](const sim::trace_record& r) {
         return fmt::format("the pool process running attempt {} of {} died (WorkerLostError): {}", num(r, "attempt"),
                            str(r, "job"),
                            r.get_bool("requeued").value_or(false) ? "message requeued" : "acked, task failed");
       }},
      {"execution_timeout",
       [](const sim::trace_record& r) {
         const std::string action = str(r, "action");
         const std::string what = action == "kill" ? "the worker process is killed"
                                  : action == "time_limit"
                                      ? "the pool process is killed (TimeLimitExceeded): task failed, acked"
                                      : "the handler raises a timeout error";
         return fmt::format("attempt {} of {} reaches its {} execution timeout: {}", num(r, "attempt"), str(r, "job"),
                            secs(num(r, "limit_us")), what);
       }},
      {"pushed_back",
       [](const sim::trace_record& r) {
         return str(r, "body") + " pushed back to the head of the queue, to run again";
       }},
      {"send_deduplicated",
       [](const sim::trace_record& r) {
         return fmt::format("accepts a send of {} and drops it: deduplication id {} seen within 5 minutes",
                            str(r, "body"),
                            str(r, "deduplication_id").empty() ? "(the body)" : str(r, "deduplication_id"));
       }},
      {"send_timeout",
       [](const sim::trace_record& r) {
         return fmt::format("the send of {} times out after the broker took it: the producer sends it again in {}",
                            str(r, "body"), secs(num(r, "resend_after_us")));
       }},
      {"resent",
       [](const sim::trace_record& r) {
         return r.get_bool("deduplicated").value_or(false)
                    ? fmt::format("sends {} again; the queue drops it as a duplicate of message {}", str(r, "body"),
                                  num(r, "id"))
                    : fmt::format("sends {} again; the queue takes it as a new message {}", str(r, "body"),
                                  num(r, "id"));
       }},
      {"redrive",
       [](const sim::trace_record& r) {
         return fmt::format("{} moved to the dead-letter queue after {} receives", str(r, "body"),
                            num(r, "receive_count"));
       }},
      {"retention_expired",
       [](const sim::trace_record& r) {
         return fmt::format("{} deleted by retention, {} after it was sent", str(r, "body"), secs(num(r, "age_us")));
       }},
      {"circuit_changed",
       [](const sim::trace_record& r) {
         if (str(r, "state") != "open") return fmt::format("circuit breaker for {} closes", str(r, "tool"));
         return fmt::format("circuit breaker for {} OPENS: {} of {} calls failed", str(r, "tool"), num(r, "failures"),
                            num(r, "calls"));
       }},
      {"probe_failed",
       [](const sim::trace_record& r) {
         const std::int64_t failures = num(r, "failures"), threshold = num(r, "threshold");
         std::string line = fmt::format("liveness probe unanswered ({} of {}), the loop blocked in {}", failures,
                                        threshold, str(r, "job"));
         if (failures >= threshold) line += fmt::format(": SIGTERM now, SIGKILL at {}", secs(num(r, "kill_at_us")));
         return line;
       }},
      {"moved_out",
       [](const sim::trace_record& r) {
         return fmt::format("{} redriven back to {} as message {}", str(r, "body"), str(r, "to"), num(r, "new_id"));
       }},
      {"dead_letter_alarm",
       [](const sim::trace_record& r) {
         return fmt::format("DEAD-LETTER ALARM: {} message(s) waiting; the on-call redrives at {}", num(r, "messages"),
                            secs(num(r, "redrive_at_us")));
       }},
      {"alarm_state",
       [](const sim::trace_record& r) {
         const bool depth = str(r, "alarm") == "depth";
         const std::string value = depth ? fmt::format("{} dead letter(s) visible", num(r, "value"))
                                         : fmt::format("the oldest dead letter {} old", secs(num(r, "value")));
         if (str(r, "to") == "ALARM")
           return fmt::format(
               "CloudWatch alarm on the dead-letter queue's {}: OK -> ALARM ({}); its action pages "
               "once, and it stays in ALARM while the metric breaches",
               depth ? "depth" : "oldest message's age", value);
         return fmt::format("CloudWatch alarm on the dead-letter queue's {}: ALARM -> OK ({})",
                            depth ? "depth" : "oldest message's age", value);
       }},
      {"page",
       [](const sim::trace_record& r) {
         std::string line =
             fmt::format("PAGE #{} ({} alarm): {} dead letter(s); the on-call answers at {}", num(r, "incident"),
                         str(r, "alarm"), num(r, "messages"), secs(num(r, "answer_at_us")));
         if (const std::int64_t resolves = num(r, "resolves_at_us"); resolves >= 0)
           line += fmt::format(", the pager auto-resolves it at {}", secs(resolves));
         return line;
       }},
      {"page_resolved",
       [](const sim::trace_record& r) {
         const std::string why = str(r, "why");
         return fmt::format("page #{} resolved: {}", num(r, "incident"),
                            why == "auto_resolve" ? "the pager's auto-resolve timeout, nobody acted"
                            : why == "alarm_ok"   ? "its alarm returned to OK"
                                                  : "the on-call runs the redrive runbook");
       }},
      {"renotify",
       [](const sim::trace_record& r) {
         const std::int64_t open = num(r, "incident");
         if (open > 0)
           return fmt::format(
               "re-notification: the {} alarm is still in ALARM; the pager groups it into open "
               "page #{}",
               str(r, "alarm"), open);
         return fmt::format(
             "re-notification: the {} alarm is still in ALARM and no page of it is open; a new "
             "page follows",
             str(r, "alarm"));
       }},
      {"page_unanswered",
       [](const sim::trace_record& r) {
         return fmt::format(
             "the on-call comes back to page #{}: nothing open on the pager, so no redrive; {} dead "
             "letter(s) wait for retention, and the alarm, still in ALARM, pages nobody again",
             num(r, "incident"), num(r, "messages"));
       }},
      {"long_transaction",
       [](const sim::trace_record& r) {
         const std::string state = str(r, "state");
         if (state == "begins")
           return fmt::format(
               "{} opens a transaction and holds it: no row version that dies from now on can be "
               "cleaned up",
               str(r, "holder"));
         return fmt::format("{}'s transaction {}: the {} dead row versions every job-table read walked are gone",
                            str(r, "holder"), state == "terminated" ? "TERMINATED by transaction_timeout" : "commits",
                            num(r, "dead_versions"));
       }},
      {"tenant_over_limit",
       [](const sim::trace_record& r) {
         return fmt::format("{} given back for {}: tenant {} has {} slices running, its limit", str(r, "job"),
                            secs(num(r, "delay_us")), str(r, "tenant"), num(r, "running"));
       }},
      {"orphan_rescued",
       [](const sim::trace_record& r) {
         const std::string outcome = str(r, "outcome");
         const std::string did = outcome == "discarded" ? "out of attempts: DISCARDED (dead-lettered)"
                                 : outcome == "granted" ? "out of attempts, GRANTED ONE MORE and queued again"
                                                        : "queued again with a new message";
         return fmt::format("orphan rescue: {} running since {} after {} attempt(s), {}", str(r, "job"),
                            secs(num(r, "claimed_at_us")), num(r, "attempts"), did);
       }},
      {"lease_lost",
       [](const sim::trace_record& r) { return "lease on " + str(r, "job") + " lost (the broker says so)"; }},
      {"abandoned", [](const sim::trace_record& r) { return "abandons " + str(r, "job") + ": " + str(r, "why"); }},
      {"commit",
       [](const sim::trace_record& r) {
         const std::string key = str(r, "key");
         // The payment vendor's rows are refunds; a money tool of the
         // scenario's own says its name ("charge ch_1 committed").
         const std::string_view actor = r.actor;
         const std::string_view what =
             actor.starts_with("vendor/") && actor != "vendor/payments" ? actor.substr(7) : std::string_view("refund");
         return fmt::format("{} {} committed: {} {} cents key={}", what, str(r, "ref"), str(r, "target"),
                            num(r, "amount"), key.empty() ? "(none)" : key);
       }},
      {"response_lost", [](const sim::trace_record& r) { return "the answer to " + str(r, "ref") + " is lost"; }},
      {"dropped",
       [](const sim::trace_record& r) {
         return fmt::format("request {} dropped unserved after {} in the queue (503)", num(r, "req"),
                            secs(num(r, "waited_us")));
       }},
      {"effect",
       [](const sim::trace_record& r) {
         return fmt::format("effect {} on {} for {} (number {} on that target)", str(r, "ref"), str(r, "target"),
                            str(r, "reference"), num(r, "count"));
       }},
      {"hand_off",
       [](const sim::trace_record& r) {
         return fmt::format("hands step {} of {} off to its own job {}", num(r, "step"), str(r, "job"), str(r, "to"));
       }},
      {"resume",
       [](const sim::trace_record& r) {
         return fmt::format("{} resumes after step {} ({} {})", str(r, "job"), num(r, "step"), str(r, "from"),
                            str(r, "why"));
       }},
      {"relayed", [](const sim::trace_record& r) { return "relayed " + str(r, "key") + ", outbox row marked sent"; }},
      {"all_jobs_ended", [](const sim::trace_record&) { return std::string("every job has ended"); }},
  };
  return table;
}

// Whose records a kind belongs to: the vendor's "commit" is a refund; the
// store's is a transaction, too fine-grained for a timeline.
bool wanted(const sim::trace_record& r) {
  if (r.actor == "store") return false;
  if (r.kind == "commit" && !r.actor.starts_with("vendor/")) return false;
  return formatters().contains(r.kind);
}
}  // namespace

void redelivery_causes::observe(const sim::trace_record& r) {
  ended_.reset();
  if (r.kind == "backoff" && r.get_string("mode") == "nack") {
    last_backoff_[r.actor] = backoff_ended{r.actor, num(r, "attempt"), num(r, "delay_us")};
  } else if (r.kind == "nack") {
    const auto b = last_backoff_.find(r.actor);
    // A nack the broker refused (a stale handle) gave nothing back.
    if (b != last_backoff_.end() && r.get_string("status") == "ok") {
      backoff_ended nacked = b->second;
      nacked.nacked_us = r.time.us();
      nacked_.insert_or_assign(str(r, "job"), nacked);
    }
    if (b != last_backoff_.end()) last_backoff_.erase(b);
  } else if (r.kind == "lease_expired") {
    if (const auto n = nacked_.find(str(r, "body")); n != nacked_.end()) {
      ended_ = n->second;
      nacked_.erase(n);
    }
  } else if (r.kind == "receive" || r.kind == "delete" || r.kind == "redrive") {
    // A delivery (or the message's end) before the backoff ran out: the
    // next expiry is that delivery's lease.
    if (const auto n = nacked_.find(str(r, "body")); n != nacked_.end()) nacked_.erase(n);
  }
}

std::optional<redelivery_causes::backoff_ended> redelivery_causes::backoff_for(const sim::trace_record& r) const {
  return r.kind == "lease_expired" ? ended_ : std::nullopt;
}

std::optional<timeline_line> timeline_entry(const sim::trace_record& r,
                                            const std::optional<redelivery_causes::backoff_ended>& backoff) {
  const std::string lease = str(r, "lease");
  if (r.kind == "lease_expired" && lease == "retry_set") {
    // Sidekiq: no lease runs out; a retry comes due in the retry set, and
    // the scheduled poller pushes it to the back of the queue.
    // (The poller looks every few seconds: what came due waits for its look.)
    const std::int64_t due_us = backoff ? backoff->nacked_us + backoff->delay_us : r.time.us();
    const std::string poller = r.time.us() > due_us ? fmt::format(", and the scheduled poller's look came {} later",
                                                                  secs(r.time.us() - due_us))
                                                    : std::string();
    const std::string text =
        backoff ? fmt::format(
                      "{} leaves the retry set for the back of the queue: the {} backoff after attempt {} "
                      "ended{} ({} scheduled the retry of delivery {})",
                      str(r, "body"), secs(backoff->delay_us), backoff->attempt, poller, backoff->worker,
                      num(r, "receive_count"))
                : fmt::format("{} leaves the retry set for the back of the queue: its retry of delivery {} is due",
                              str(r, "body"), num(r, "receive_count"));
    return timeline_line{r.time, r.actor, text};
  }
  if (r.kind == "lease_expired" && lease == "redis_visibility") {
    // Celery's Redis transport: the unacked sweep restores a message taken
    // longer ago than the visibility timeout, whoever still holds it.
    return timeline_line{r.time, r.actor,
                         fmt::format("{} restored by the unacked sweep: delivery {} outlived the visibility timeout "
                                     "unacked",
                                     str(r, "body"), num(r, "receive_count"))};
  }
  if (r.kind == "lease_expired") {
    // SQS's visibility timeout, Pub/Sub's ack deadline.
    const bool pubsub = lease == "ack_deadline";
    const std::string text =
        backoff
            ? fmt::format("{} {} again: the {} backoff after attempt {} ended ({} nacked delivery {})", str(r, "body"),
                          pubsub ? "available" : "visible", secs(backoff->delay_us), backoff->attempt, backoff->worker,
                          num(r, "receive_count"))
            : fmt::format("{} {} again: the {} of delivery {} ran out", str(r, "body"),
                          pubsub ? "available" : "visible", pubsub ? "ack deadline" : "lease", num(r, "receive_count"));
    return timeline_line{r.time, r.actor, text};
  }
  if (!wanted(r)) return std::nullopt;
  return timeline_line{r.time, r.actor, formatters().at(r.kind)(r)};
}

std::string format_timeline_line(const timeline_line& line) {
  return fmt::format("{:>12}  {:<16} {}", secs(line.at.us()), line.actor, line.text);
}

void timeline_collector::on_event(const ev::event& e, const name_table& names) {
  const sim::trace_record r = as_record(e, names);
  causes_.observe(r);
  if (auto line = timeline_entry(r, causes_.backoff_for(r))) {
    ++total_;
    if (lines_.size() < kept_max_) lines_.push_back(std::move(*line));
  }
}

// A line's actor and text: ~100 bytes beside it. The redelivery causes are
// a few per open backoff, not counted.
std::uint64_t timeline_collector::footprint() const { return sim::footprint_of(lines_) + lines_.size() * 100; }

std::vector<timeline_line> build_timeline(const std::vector<sim::trace_record>& records) {
  std::vector<timeline_line> out;
  redelivery_causes causes;
  for (const sim::trace_record& r : records) {
    causes.observe(r);
    if (auto line = timeline_entry(r, causes.backoff_for(r))) out.push_back(std::move(*line));
  }
  return out;
}

}  // namespace twice
