#pragma once
// The one interface every tool a slice calls implements: the built-in
// payment vendor, email provider, model and read tools, and any tool a user
// writes. The runtime wraps each call in a span (job, attempt, key, worker,
// SHA, result); the tool itself only models the far side.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>

namespace twice {

struct tool_call {
  std::string target;             // invoice id, recipient, document id ...
  std::int64_t amount_cents = 0;  // for tools that move money
  std::optional<std::string> idempotency_key;
  // What the caller calls this request in its own logs ("job_17:step_4:email"),
  // sent along as the metadata most providers accept (a tag, a custom
  // header). The runtime fills it in. A provider without idempotency keys
  // stores it but never dedupes on it: it only lets a reader (and the
  // checkers) tell which step an effect belongs to.
  std::string reference = {};  // (a default, so callers may leave it out of a braced init)
};

// What came back, as an HTTP client sees it. status 0 means no response
// arrived before the client's timeout: the caller cannot tell whether the
// far side acted (an ambiguous outcome).
struct tool_result {
  int status = 0;
  std::string error_code;  // "", "rate_limited", "unavailable", "idempotency_key_in_use", ...
  std::string ref;         // the far side's object id ("re_3"), when it made one
  bool replayed = false;   // an idempotent replay of a stored response (Stripe's Idempotent-Replayed)
  sim::duration retry_after = sim::duration::zero();  // from a 429

  bool ok() const { return status >= 200 && status < 300; }
  bool timed_out() const { return status == 0; }
  // 503, 429, 409 (key in use: retry later), 5xx and timeouts may succeed on
  // a retry; 400 and other 4xx are the caller's mistake and never will.
  bool retryable() const { return status == 0 || status == 409 || status == 429 || status >= 500; }
};

class tool {
 public:
  virtual ~tool() = default;
  virtual std::string_view name() const = 0;
  // Has a side effect in the world (money moved, email sent).
  virtual bool writes() const = 0;
  // The far side honours idempotency keys (Stripe does; most email
  // providers do not).
  virtual bool accepts_key() const = 0;
  // Its effects are money, recorded in our own ledger (the payment vendor's
  // refunds), which the money invariants compare with the far side's.
  virtual bool moves_money() const { return false; }
  virtual sim::task<tool_result> call(tool_call request) = 0;
};

}  // namespace twice
