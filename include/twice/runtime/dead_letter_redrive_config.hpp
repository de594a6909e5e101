#pragma once
// The on-call's redrive of the dead-letter queue when its alarm goes off
// ([dead_letter_redrive]); runtime/dead_letter_redrive.hpp (src/) is the
// model, and its opening comment what each setting means.

#include <cstdint>
#include <optional>

#include <twice/sim/time.hpp>

namespace twice {

struct dead_letter_redrive_config {
  sim::duration after = sim::duration::from_s(3600);  // from the alarm to the move task
  std::uint32_t times = 1;                            // redrives the on-call runs, at most
  // The pager's auto-resolve timeout (PagerDuty's service setting
  // auto_resolve_timeout: "time in seconds that an incident is automatically
  // resolved if left open for that long", terraform-provider-pagerduty,
  // docs/r/service): unset, an incident stays open until someone acts.
  std::optional<sim::duration> auto_resolve;
  // A second alarm, on the dead-letter queue's ApproximateAgeOfOldestMessage
  // at or past this; unset: none.
  std::optional<sim::duration> age_alarm;
  // Re-notification while an alarm stays in ALARM, this often; unset: none.
  // CloudWatch itself runs an alarm's actions only on a state change ("CloudWatch
  // Alarms are designed to invoke only the alarm actions when a state change
  // happens", AWS Cloud Operations blog, "How to enable Amazon CloudWatch
  // Alarms to send repeated notifications", 2022); that post's EventBridge
  // rule starts a Step Functions loop on OK -> ALARM that waits, calls
  // DescribeAlarms and publishes to the alarm's SNS topics again while its
  // state is ALARM. The pager groups a trigger into the open incident with
  // the same dedup key (PagerDuty Events API v2, dedup_key: the alarm), and
  // opens a new incident when none is open.
  std::optional<sim::duration> renotify_every;
  // With any set, the alarms keep CloudWatch's states (src/runtime/dead_letter_redrive.hpp).
  bool alarm_states() const { return auto_resolve.has_value() || age_alarm.has_value() || renotify_every.has_value(); }
  friend bool operator==(const dead_letter_redrive_config&, const dead_letter_redrive_config&) = default;
};

}  // namespace twice
