#pragma once
// How an execution's answer reaches its caller, or does not: the slots a
// caller waits on with a deadline (answer_desk), and the same with the far
// side's per-execution state beside each slot (response_desk).

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

#include <twice/sim/check.hpp>
#include <twice/sim/kernel.hpp>
#include <twice/sim/task.hpp>
#include <twice/sim/time.hpp>
#include <twice/tools/tool.hpp>

namespace twice {

// Answers of executions in flight: per slot a one-shot signal the caller
// awaits with a deadline, and the response. A slot is recycled once both
// sides are done with it: the far side has delivered (or dropped) its answer,
// and the caller has read it, given up, or died. So a million calls keep only
// as many slots as were ever in flight at once.
//
// The slots sit behind a shared_ptr that every waiting caller also holds:
// when a world is torn down, the kernel may destroy suspended callers after
// the tool itself is gone, and their clean-up must not touch freed memory.
//
// The coroutine lives in the .cpp on purpose: clang 14 cannot compile an
// inline or template coroutine under -fsanitize=function ("Cannot represent a
// difference across sections"), which TWICE_SANITIZE turns on.
class answer_desk {
 public:
  explicit answer_desk(sim::kernel& k);
  answer_desk(const answer_desk&) = delete;
  answer_desk& operator=(const answer_desk&) = delete;

  // A fresh slot for one execution.
  std::uint32_t open();
  // The far side's answer reaches the caller now (if it still waits).
  void deliver(std::uint32_t slot, tool_result response);
  // The far side finished but its answer never reaches the caller.
  void drop(std::uint32_t slot);
  // Caller side: the answer, or nullopt if `deadline` passed first.
  sim::task<std::optional<tool_result>> wait(std::uint32_t slot, sim::instant deadline) const;

  std::size_t slots_allocated() const;

  struct state;  // defined in the .cpp

 private:
  std::shared_ptr<state> state_;
};

// An answer_desk plus what the far side needs to finish each execution
// (`Work`). The far side is done with the Work once it answers, so the Work
// is released then, even if the caller has not read the answer yet.
template <class Work>
class response_desk {
 public:
  explicit response_desk(sim::kernel& k) : answers_(k) {}

  std::uint32_t open(Work work) {
    const std::uint32_t slot = answers_.open();
    // deque: growing at the end keeps references to other slots' Work valid.
    while (works_.size() <= slot) works_.emplace_back();
    works_[slot] = std::move(work);
    return slot;
  }
  Work& work(std::uint32_t slot) {
    TWICE_CHECK(slot < works_.size());
    return works_[slot];
  }
  void deliver(std::uint32_t slot, tool_result response) {
    work(slot) = Work{};
    answers_.deliver(slot, std::move(response));
  }
  void drop(std::uint32_t slot) {
    work(slot) = Work{};
    answers_.drop(slot);
  }
  const answer_desk& answers() const { return answers_; }
  std::size_t records_allocated() const { return answers_.slots_allocated(); }

 private:
  answer_desk answers_;
  std::deque<Work> works_;
};

}  // namespace twice
