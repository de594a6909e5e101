#pragma once
// How a handler treats its side effects. Every switch exists because the
// catalogue must show both choices: the bug as it happens in production and
// the fix. Defaults are the correct discipline.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace twice {

enum class key_mode : std::uint8_t {
  none,         // no idempotency key at all
  per_attempt,  // a new key minted every attempt (the bug: retries look new)
  stable,       // job:step:tool, the same on every attempt ("job_17:step_3:refund")
};

// What names a unit of work: the idempotency key of each write, and the
// progress (checkpoint) and end the consumer records.
enum class work_id_mode : std::uint8_t {
  job,      // the job's id: "job_17:step_3:refund", the job row's checkpoint and end
  message,  // the message's id, as a consumer keyed on the SQS messageId (AWS Lambda
            // Powertools' IdempotencyConfig(event_key_jmespath="messageId")): a
            // message it has not seen is new work from the first step, so a job
            // sent twice as two messages runs twice
};

enum class checkpoint_mode : std::uint8_t {
  before_effect,  // the bug: the step is marked done before the tool runs
  after_success,  // the step is marked done (with its ledger row) after the tool succeeded
  outbox,         // the intent row is written with the slice start; a relay sends it
};

enum class retry_mode : std::uint8_t {
  nack,      // give the message back with a visibility delay = the backoff
  in_slice,  // sleep the backoff inside the slice (heartbeats keep the lease) and retry
};

struct discipline {
  key_mode key = key_mode::stable;
  work_id_mode work_id = work_id_mode::job;
  bool pass_key_to_vendor = true;
  bool ledger_guard = false;  // `if key in ledger: skip` before a write tool
  checkpoint_mode checkpoint = checkpoint_mode::after_success;
  retry_mode retry = retry_mode::nack;
  bool retry_non_retryable = false;  // the bug: 400s retried like 503s
  // The bug: attempts counted with the message, so the counter restarts on
  // every delivery (nack, crash, lease expiry) and never reaches the limit.
  bool reset_attempts_on_reenqueue = false;
  bool hold_transaction_across_model = false;  // the bug: a DB connection held for a slow call
  // The write tools whose steps are claimed before the call ([tools.NAME]
  // claim): a row "job_7:step_4:email" inserted and committed in its own
  // transaction first, and a step already claimed skipped. At most once,
  // for a far side that takes no key; the built-in email tool is claimed
  // unless a scenario says otherwise, a tool of its own only if it asks.
  std::vector<std::string> claimed_tools = {"email"};
  bool claims(std::string_view tool) const;
  bool stop_on_lost_lease = true;  // abandon the slice when the runtime learns it lost the lease
  bool fencing = false;            // a lease token on the job row, checked at checkpoint
  // The fix when a slice cannot heartbeat through a slow call: steps calling
  // this tool are handed off as jobs of their own to a queue whose
  // visibility timeout fits the call (world_config::split). Empty: none.
  std::string split_tool = {};
};

std::string_view to_string(key_mode);
std::string_view to_string(work_id_mode);
std::string_view to_string(checkpoint_mode);
std::string_view to_string(retry_mode);
std::optional<key_mode> parse_key_mode(std::string_view);
std::optional<checkpoint_mode> parse_checkpoint_mode(std::string_view);
std::optional<retry_mode> parse_retry_mode(std::string_view);

}  // namespace twice
