#pragma once
// A tool's far side as a scenario describes it ([tools.NAME], and the
// built-in refund, email, model and read): what it does, its keys, its
// latency, its errors and its capacity. vendors/service_tool.hpp (src/) is
// the model; its opening comment says what each setting does, in the order
// an execution meets them.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <twice/sim/time.hpp>
#include <twice/vendors/latency_model.hpp>
#include <twice/vendors/server_pool_config.hpp>
#include <twice/vendors/tool_faults.hpp>

namespace twice {

enum class tool_effect : std::uint8_t { read, write };
enum class key_handling : std::uint8_t { ignored, dedupe, stored_response };
enum class draw_order : std::uint8_t { latency_first, rates_first };
std::string_view to_string(tool_effect);
std::string_view to_string(key_handling);

// The error codes a far side answers besides 503 unavailable and 0 timeout
// (vendors/tool_faults.hpp), as Stripe names them.
namespace tool_errors {
inline constexpr std::string_view rate_limited = "rate_limited";                      // 429
inline constexpr std::string_view overloaded = "overloaded";                          // 503, capacity
inline constexpr std::string_view idempotency_key_in_use = "idempotency_key_in_use";  // 409
inline constexpr std::string_view idempotency_error = "idempotency_error";            // 400
inline constexpr std::string_view amount_too_small = "amount_too_small";              // 400, money
inline constexpr std::string_view invoice_not_found = "invoice_not_found";            // 400, bad_targets
inline constexpr std::string_view api_error = "api_error";                            // 500
inline constexpr std::string_view conflict = "conflict";                              // 409, optimistic_lock
}  // namespace tool_errors

struct service_tool_config {
  std::string name;
  tool_effect effect = tool_effect::read;
  key_handling keys = key_handling::ignored;
  latency_model latency;
  // Error probabilities, parts per million (exact ratios).
  std::uint32_t unavailable_ppm = 0;     // 503 before any effect
  std::uint32_t rate_limited_ppm = 0;    // 429 before any effect, with retry_after
  std::uint32_t internal_error_ppm = 0;  // 500 when the execution ends, no effect
  std::uint32_t lost_request_ppm = 0;    // timeout before effect: the request never arrives
  std::uint32_t lost_response_ppm = 0;   // timeout after the effect: the answer never arrives
  sim::duration retry_after = sim::duration::from_s(1);
  sim::duration client_timeout = sim::duration::from_s(30);
  sim::duration round_trip = sim::duration::from_ms(10);  // how long a rejection or replay takes
  sim::duration key_retention = sim::duration::from_s(24 * 3600);
  std::uint32_t capacity = 0;  // requests held at once (executing and waiting); above it 503 overloaded; 0: unlimited
  std::vector<time_window> outages;
  std::vector<latency_spike> latency_spikes;
  server_pool_config pool;  // servers and their queue; none by default (unlimited)
  // The far side's ids for its effects: "<ref_prefix>_<n>" (not a scenario
  // key: the name by default, "re" for the refund tool, "em" for the email).
  std::string ref_prefix;
  // A write whose effects are amounts of money, kept in a ledger (src/vendors/service_tool.hpp).
  bool moves_money = false;
  std::set<std::string, std::less<>> bad_targets;  // money: answered 400 invoice_not_found at execution
  draw_order draws = draw_order::latency_first;    // not a scenario key (src/vendors/service_tool.hpp)
  // A write conditional on the version it read (src/vendors/service_tool.hpp); needs effect = write.
  bool optimistic_lock = false;
};

// The built-in tools, as configs of this one form.
// The payment vendor, called by the refund step: a money write, Stripe's
// keys (24 h), lognormal(p50=300ms, p99=2s), actor "vendor/payments".
service_tool_config payment_tool_config();
service_tool_config email_tool_config();  // write, keys ignored, lognormal(p50=150ms, p99=1s)
service_tool_config model_tool_config();  // read, lognormal(p50=4s, p99=20s)
service_tool_config read_tool_config();   // read, lognormal(p50=5ms, p99=50ms)

}  // namespace twice
