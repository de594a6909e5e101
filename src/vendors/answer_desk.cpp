#include "vendors/answer_desk.hpp"

#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <twice/sim/signal.hpp>

namespace twice {

struct answer_desk::state {
  struct slot_record {
    std::optional<sim::signal> answered;  // re-made per use: a signal is one-shot
    tool_result response;
    bool in_use = false;
    bool far_side_done = false;
    bool caller_attached = false;
  };

  explicit state(sim::kernel& k) : kernel(&k) {}

  slot_record& live(std::uint32_t slot) {
    TWICE_CHECK(slot < records.size());
    TWICE_CHECK(records[slot].in_use);
    return records[slot];
  }

  void release_if_done(std::uint32_t slot) {
    slot_record& r = live(slot);
    if (!r.far_side_done || r.caller_attached) return;
    r.answered.reset();
    r.response = tool_result{};
    r.in_use = false;
    free_slots.push_back(slot);
  }

  sim::kernel* kernel;
  std::deque<slot_record> records;  // deque: stable addresses while it grows
  std::vector<std::uint32_t> free_slots;
};

namespace {

// Lives in the caller's frame: destroyed on return *and* when the caller is
// killed, so the slot learns the caller is gone either way.
class caller_ticket {
 public:
  caller_ticket(std::shared_ptr<answer_desk::state> s, std::uint32_t slot) : state_(std::move(s)), slot_(slot) {
    answer_desk::state::slot_record& r = state_->live(slot_);
    TWICE_CHECK(!r.caller_attached);
    r.caller_attached = true;
  }
  caller_ticket(const caller_ticket&) = delete;
  caller_ticket& operator=(const caller_ticket&) = delete;
  ~caller_ticket() {
    state_->live(slot_).caller_attached = false;
    state_->release_if_done(slot_);
  }

 private:
  std::shared_ptr<answer_desk::state> state_;
  std::uint32_t slot_;
};

sim::task<std::optional<tool_result>> wait_for_answer(std::shared_ptr<answer_desk::state> s, std::uint32_t slot,
                                                      sim::instant deadline) {
  const caller_ticket ticket(s, slot);
  const bool answered = co_await s->live(slot).answered->wait_until(deadline);
  if (!answered) co_return std::nullopt;
  co_return s->live(slot).response;
}

}  // namespace

answer_desk::answer_desk(sim::kernel& k) : state_(std::make_shared<state>(k)) {}

std::uint32_t answer_desk::open() {
  state& s = *state_;
  std::uint32_t slot = 0;
  if (!s.free_slots.empty()) {
    slot = s.free_slots.back();
    s.free_slots.pop_back();
  } else {
    TWICE_CHECK(s.records.size() < UINT32_MAX);
    slot = static_cast<std::uint32_t>(s.records.size());
    s.records.emplace_back();
  }
  state::slot_record& r = s.records[slot];
  TWICE_CHECK(!r.in_use);
  r.answered.emplace(*s.kernel);
  r.in_use = true;
  r.far_side_done = false;
  r.caller_attached = false;
  return slot;
}

void answer_desk::deliver(std::uint32_t slot, tool_result response) {
  state::slot_record& r = state_->live(slot);
  TWICE_CHECK(!r.far_side_done);
  r.response = std::move(response);
  r.far_side_done = true;
  r.answered->trigger();  // the caller resumes later, at this instant
  state_->release_if_done(slot);
}

void answer_desk::drop(std::uint32_t slot) {
  state::slot_record& r = state_->live(slot);
  TWICE_CHECK(!r.far_side_done);
  r.far_side_done = true;
  state_->release_if_done(slot);
}

sim::task<std::optional<tool_result>> answer_desk::wait(std::uint32_t slot, sim::instant deadline) const {
  return wait_for_answer(state_, slot, deadline);
}

std::size_t answer_desk::slots_allocated() const { return state_->records.size(); }

}  // namespace twice
