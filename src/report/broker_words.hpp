#pragma once
// What each broker calls holding a message and giving it back, for the
// summary's queue line and the HTML timeline's legend and tooltips: a
// Sidekiq job is held by its process (no lease runs out) and a failure
// goes to the retry set; a Kafka record is fetched and committed; Pub/Sub
// leases a message until its ack deadline; Celery's Redis transport
// restores an unacked task after its visibility timeout.

#include <string>
#include <string_view>

namespace twice {

struct world_config;

struct broker_words {
  std::string_view waiting;         // a message waiting for a consumer: "visible"
  std::string_view hold;            // legend: the bar from receive to end
  std::string_view ended_done;      // legend: ended by an ack or a dead letter
  std::string_view ended_back;      // legend: ended by a nack or ran out
  std::string_view ended_killed;    // legend: ended by a crash or the pod's stop
  std::string_view still_open;      // legend: still held at the end
  std::string_view ack;             // legend: the ack mark
  std::string_view nack;            // legend: the nack mark
  std::string_view expiry;          // legend: the expiry mark and its arrow
  std::string_view redelivered;     // legend: back after a nack's backoff
  std::string_view expired_what;    // tooltip: "the lease" of job_1 (delivery 1) ran out
  std::string_view again;           // tooltip: the message is "visible again"
  std::string_view by_ack;          // tooltip: ended by "an ack"
  std::string_view by_nack;         // tooltip: ended by "a nack"
  std::string_view by_dead_letter;  // tooltip: ended by "a dead letter"

  // A lease's end in a tooltip: "a nack", "a failure, scheduled in the retry set".
  std::string ended_by(std::string_view how) const;
};

broker_words words_of(const world_config& c);

}  // namespace twice
