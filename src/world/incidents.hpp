#pragma once
// The double refund, built in C++: the incident as it happened and as it
// reads with the fix. The scenario files reproduce the same stories; these
// builders are what the tests and `twice incident` run, and a test keeps
// them the same worlds as scenarios/double_refund.toml and
// scenarios/double_refund_fixed.toml, down to the trace digest.
//
// As it happened: no idempotency key; a rolling deploy kills the pod after
// the vendor refunded 1999 cents and before the ack; the message reappears
// when the 30 s lease expires; a second worker refunds again.
// Fixed: the key job_17:step_3:refund reaches the vendor; attempts 0 and 1
// fail after the write; attempt 2 succeeds; the vendor replays its stored
// answer twice and holds one refund.

#include <twice/world/world.hpp>

namespace twice {

world_config double_refund_config(bool fixed);

}  // namespace twice
