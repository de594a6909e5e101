#pragma once
// One row of a money tool's ledger at its far side (the payment vendor's
// refunds), as read: what the reports and the checkers show of it. Kept
// apart from the ledger (vendors/refund_ledger.hpp) so a report's types
// need no vendor model.

#include <cstdint>
#include <optional>
#include <string>

#include <twice/sim/time.hpp>

namespace twice {

struct vendor_refund {
  std::string id;  // "re_1", "re_2", ...
  std::string invoice;
  std::int64_t amount_cents = 0;
  std::optional<std::string> idempotency_key;
  sim::instant committed_at;
  std::uint64_t request_id = 0;
};

}  // namespace twice
