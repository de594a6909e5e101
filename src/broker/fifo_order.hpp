#pragma once
// The delivery order of an SQS FIFO queue: which visible messages a receive
// may take, and in what order. Every rule below is what AWS answered in
// LocalStack's AWS-validated FIFO tests (localstack/localstack@8b9a79f05846,
// tests/aws/services/sqs/test_sqs.py; tests/conformance/sqs_conformance.md names each).
//
//  * A message group keeps its messages in send order. A receive may take a
//    group's messages only from its head on, and only up to the first one
//    not visible: one in flight blocks every message behind it in its group
//    (test_fifo_message_group_visibility,
//    test_fifo_group_visibility_extends_with_change_message_visibility), but
//    a message before it that came back is served
//    (test_fifo_message_group_visibility_after_terminate_visibility_timeout).
//  * One receive takes as many as it can of the first ready group, then of
//    the next (test_fifo_receive_message_group_id_ordering).
//  * Groups are ready in the order of their head's place. A message gets its
//    place when sent, and a new place at the back when its lease ends
//    without a delete (it expired, or its visibility went to 0): a group that
//    came back is served after the groups that waited
//    (test_fifo_receive_message_visibility_timeout_shared_in_group,
//    test_fifo_receive_message_with_zero_visibility_timeout). A delete moves
//    nobody: the group's next message keeps the place it was sent with
//    (test_fifo_message_group_visibility_after_delete).
//  * The scan window: a receive looks for ready groups only among the first
//    `scan_window` messages held, by place (20,000 on SQS). If every one of
//    them is in a group blocked by a message in flight, the receive comes
//    back empty although other groups have messages further back (AWS
//    re:Post knowledge center, "Why aren't messages returned from my SQS FIFO
//    queue", examples A and B): one group's backlog starves the rest.
//
// The queue owns the messages; this index holds, per message, its group, its
// place in its group and in the queue, and whether it is visible, and is
// told of every change.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <twice/events/event_basics.hpp>

namespace twice {

class fifo_order {
 public:
  using id_type = std::uint64_t;  // the queue's message id
  explicit fifo_order(std::uint32_t scan_window) : scan_window_(scan_window) {}

  // A message entered the queue (sent, or redriven into it): last of its
  // group, at place `place`.
  void enter(ev::name_id group, id_type id, std::uint64_t place, bool visible);
  // It left (deleted, expired, redriven, purged, moved).
  void leave(ev::name_id group, id_type id);
  // It became visible (a delay or a lease ended; a lease's end brings a new
  // place) or not (received).
  void set_visible(ev::name_id group, id_type id, bool visible, std::uint64_t place);

  // Up to `max` messages a receive may take now, in delivery order.
  std::vector<id_type> ready(std::uint32_t max) const;

  std::size_t size() const { return places_.size(); }
  std::uint64_t footprint() const;

 private:
  struct entry {
    std::uint64_t place = 0;
    bool visible = false;
  };
  struct group_state {
    std::uint64_t next_rank = 0;  // the next message's rank in the group (send order)
    std::map<std::uint64_t, id_type> by_rank;
    std::map<id_type, std::pair<std::uint64_t, entry>> members;  // id -> (rank, entry)
    bool ready = false;
    std::uint64_t ready_place = 0;  // its key in ready_, while ready
  };

  // Re-derives whether the group is ready (its head visible) and under which place.
  void refresh(ev::name_id group, group_state& g);
  // The place of the first held message past the scan window; none when
  // the queue holds no more than the window.
  std::optional<std::uint64_t> window_end() const;

  std::uint32_t scan_window_;
  std::map<ev::name_id, group_state> groups_;
  std::set<std::pair<std::uint64_t, ev::name_id>> ready_;  // (head's place, group)
  std::set<std::pair<std::uint64_t, id_type>> places_;     // every held message by place
};

}  // namespace twice
