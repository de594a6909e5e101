#include "vendors/refund_ledger.hpp"

#include <twice/sim/check.hpp>

namespace twice {

vendor_refund refund_ledger::operator[](std::size_t i) const {
  TWICE_CHECK(i < rows_.size());
  const row& r = rows_[i];
  vendor_refund out;
  out.id = id_of(i);
  out.invoice = std::string(names_->text(r.invoice));
  out.amount_cents = r.amount_cents;
  if (r.has_key) out.idempotency_key = std::string(names_->text(r.key));
  out.committed_at = r.committed_at;
  out.request_id = r.request_id;
  return out;
}

}  // namespace twice
