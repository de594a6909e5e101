#pragma once
// The threads explore and sweep run whole worlds on. Each world is run by
// one thread and written to a slot of its own, so results never depend on
// how many threads there are or which ran what.

#include <functional>

namespace twice::explore {

// Runs `work` on `threads` threads (at least one) and returns when all have
// ended. While waiting, calls `poll` on the calling thread every 100 ms and
// once more at the end (none: no polling). A thread wakes the caller only
// when it ends: a wake per run would cost a context switch per run on a
// two-core machine.
void run_on_threads(unsigned threads, const std::function<void()>& work, const std::function<void()>& poll);

}  // namespace twice::explore
