#pragma once
// The faults a scenario scripts, as rules ([[fault]], [[queue_fault]]):
// crashes and slice errors at named points, and a broker's misbehaviour
// for one job's message. faults/scripted_faults.hpp (src/) applies them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <twice/runtime/faults.hpp>
#include <twice/sim/time.hpp>

namespace twice {

// One rule: where it strikes (empty / unset fields match anything) and what.
struct point_fault {
  std::string point{};  // before_tool, after_tool, before_checkpoint, after_checkpoint, before_ack, after_ack
  std::string tool{};
  std::size_t step = 0;
  std::string job{};
  std::optional<std::uint32_t> attempt{};
  std::string worker{};
  point_action action = point_action::crash;
  std::uint32_t probability_ppm = 1'000'000;  // per matching point, an exact ratio
  std::uint32_t max_times = 0;                // 0: no limit
};

// A broker fault for one job's message: a duplicate delivery on its n-th
// receive, or the loss of its n-th delete (the ack); or, with `job` empty,
// for any message with a probability. A send_timeout is the producer's: its
// n-th send of the job was accepted, the answer never came, and the
// producer sends the job again `resend_after` later.
struct queue_fault {
  enum class kind : std::uint8_t { duplicate_delivery, lose_delete, send_timeout };
  kind what = kind::duplicate_delivery;
  std::string job{};
  std::uint32_t nth = 1;                              // which receive / delete / send of that job's message
  std::uint32_t probability_ppm = 0;                  // with job empty: chance per receive / delete / send
  sim::duration resend_after = default_resend_after;  // send_timeout only
  // botocore's DEFAULT_TIMEOUT (botocore/endpoint.py): 60 s before a send
  // with no answer fails and the producer's own retry sends again.
  static constexpr sim::duration default_resend_after = sim::duration::from_s(60);
};

// Random streams: one per rule, derived from the world's root, named by
// what the rule is rather than by where it sits in the scenario:
//   fault/point=<len>:<point>/tool=<len>:<tool>/step=<n>/job=<len>:<job>/
//     attempt=<n or any>/worker=<len>:<worker>/action=<crash|error>#<k>
//   queue_fault/kind=<duplicate_delivery|lose_delete|send_timeout>/job=<len>:<job>/nth=<n>#<k>
// (lengths make every name unambiguous; k counts earlier rules of the same
// list with the same name, so identical rules still draw independently).
// With one shared stream, or with names by position, adding, removing or
// reordering any rule (swarm testing drops whole fault kinds, shrinking
// deletes rules) shifted every other probabilistic rule's draws; with
// these names a rule's draws change only if the rule itself changes. And
// every matching rule draws at each of its points, even where an earlier
// rule fires (scripted_faults.cpp), so a rule's n-th draw always falls on
// its n-th matching point.
// Probability and max_times are left out of the name on purpose: shrinking
// or exploring a rule's probability keeps its draws, so a lower probability
// fires at a subset of the points a higher one does (same history assumed).
std::vector<std::string> point_fault_stream_names(const std::vector<point_fault>& points);
std::vector<std::string> queue_fault_stream_names(const std::vector<queue_fault>& queue_faults);

}  // namespace twice
