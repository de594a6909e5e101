#pragma once
// The rows of the local database workers write: the job table, the money
// ledger, the outbox and the dedupe table. Plain values; the store (see
// store/store.hpp) decides when they become durable.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <twice/sim/time.hpp>
#include <twice/events/job_status.hpp>

namespace twice {

struct job_row {
  std::string job_id;
  job_status status = job_status::queued;
  // The attempt counter lives on the row, not on the message: re-enqueueing
  // a message must never reset it. Only the runtime changes it.
  std::uint32_t attempts = 0;
  std::int32_t checkpoint_step = -1;  // last step whose effect is durable; -1 = none
  std::uint64_t lease_token = 0;      // fencing token of the slice that owns the job; 0 = none
  std::string last_error;
  // Times an operator redrove the job from the dead-letter queue; each
  // grants the retry policy's maximum attempts once more, as Oban's
  // retry_job raises max_attempts instead of resetting the count.
  std::uint32_t redrives = 0;
  // Attempts an orphan rescue granted beyond the policy's (Oban's Lifeline
  // with retry_exhausted, which raises max_attempts by one on each rescue).
  std::uint32_t attempts_granted = 0;
  // When the slice running the job claimed it (Oban's attempted_at): what an
  // orphan rescue asks of a row stuck running. The table keeps it only while
  // the row is running; a row read in any other status has none.
  std::optional<sim::instant> attempted_at;
  // When the job first failed (Sidekiq's failed_at, which retry_for counts
  // from: job_retry.rb lines 162-168, 185). Written only where retry_for
  // asks for it.
  std::optional<sim::instant> failed_at;
  friend bool operator==(const job_row&, const job_row&) = default;
};

// A column-wise change to a job row, applied at commit to the row as it is
// then — like `UPDATE jobs SET status = ?, last_error = ? WHERE id = ?` — so
// a slice that updates its own columns never clobbers a column another
// slice changed since it read the row (the attempt counter above all).
struct job_update {
  std::optional<job_status> status;
  std::optional<std::int32_t> checkpoint_step;
  std::optional<std::string> last_error;
  // checkpoint_step = max(checkpoint_step, this): a split-out job resuming
  // its parent, where a late duplicate must not move the parent back.
  std::optional<std::int32_t> raise_checkpoint_to;
  // Fencing: apply only if the row still carries this lease token, checked
  // again at commit (the commit fails with store_status::fenced).
  std::optional<std::uint64_t> expect_lease_token;
  // A new fencing token. Ending a job revokes every lease on it, so a slice
  // that read the row before the end cannot claim it afterwards.
  std::optional<std::uint64_t> lease_token;
  // Leave a row that has already ended (done, failed, dead-lettered) as it
  // is: `... WHERE status NOT IN ('done', 'failed', 'dead_lettered')`.
  bool unless_ended = false;
  // The redrive runbook's `UPDATE jobs SET status = 'queued', redrives =
  // redrives + 1 WHERE status NOT IN ('done', 'failed')`: a job that did end
  // stays as it is; one dead-lettered (or still open) is queued again.
  bool requeue_redriven = false;
  // attempts = attempts + this: a failure recorded (runtime.count_attempts =
  // at_failure counts attempts here instead of at the start; twice with
  // runtime.count_failures = "twice").
  std::uint32_t count_failure = 0;
  // attempts_granted = attempts_granted + 1 (an orphan rescue's grant).
  bool grant_attempt = false;
  // attempts = max(attempts - this, 0): attempts given back
  // (runtime.uncount_unavailable).
  std::uint32_t take_back = 0;
  // failed_at = COALESCE(failed_at, this): the first failure's time.
  std::optional<sim::instant> first_failed_at;

  void apply_to(job_row& row) const {
    if (requeue_redriven) {
      if (row.status == job_status::done || row.status == job_status::failed) return;
      row.status = job_status::queued;
      ++row.redrives;
    }
    if (unless_ended && is_terminal(row.status)) return;
    row.attempts += count_failure;
    if (grant_attempt) ++row.attempts_granted;
    row.attempts -= std::min(row.attempts, take_back);
    if (status) row.status = *status;
    if (checkpoint_step) row.checkpoint_step = *checkpoint_step;
    if (raise_checkpoint_to) row.checkpoint_step = std::max(row.checkpoint_step, *raise_checkpoint_to);
    if (last_error) row.last_error = *last_error;
    if (lease_token) row.lease_token = *lease_token;
    if (first_failed_at && !row.failed_at) row.failed_at = first_failed_at;
  }
};

struct ledger_row {
  // The idempotency key. Empty when the discipline uses none; an empty key
  // behaves as SQL NULL: never unique-checked, never found by key.
  std::string key;
  std::int64_t amount_cents = 0;
  std::string job_id;
  std::string vendor_ref;  // the vendor's object id: the tie-break between the two ledgers
  sim::instant at;
  friend bool operator==(const ledger_row&, const ledger_row&) = default;
};

// An intent to call a tool, written in the same transaction as "slice
// started" with its key already chosen; a relay sends it (maybe twice).
struct outbox_row {
  std::uint64_t id = 0;  // assigned by the store at insert
  std::string key;
  std::string job_id;
  std::int32_t step = 0;
  std::string tool;
  std::string target;
  std::int64_t amount_cents = 0;
  bool sent = false;
  friend bool operator==(const outbox_row&, const outbox_row&) = default;
};

// "This side effect was done": for effects whose far side takes no key (an
// email provider), the worker's own record is the only dedupe there is.
struct dedupe_row {
  std::string key;
  sim::instant at;  // the commit that made it durable
  std::string by;   // who claimed it, as the trace says it ("attempt 0, delivery 1, worker/0"); may be empty
  friend bool operator==(const dedupe_row&, const dedupe_row&) = default;
};

}  // namespace twice
