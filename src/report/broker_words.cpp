#include "report/broker_words.hpp"

#include <twice/world/world.hpp>

namespace twice {

namespace {

// SQS: a receive starts a lease of the visibility timeout.
constexpr broker_words sqs{
    "visible",
    "lease: a worker holds the message, from its receive to its end",
    "lease ended by an ack or a dead letter",
    "lease ended by a nack or ran out",
    "lease ended by a crash or the pod's stop",
    "lease still open, or its slice returned without an ack",
    "ack (the message deleted)",
    "nack (retry after a backoff)",
    "lease ran out (&#x25c6;) and the redelivery it caused (dashed arrow)",
    "redelivery when a nack's backoff ended: nothing was lost",
    "the lease",
    "visible again",
    "an ack",
    "a nack",
    "a dead letter",
};

// Sidekiq's BasicFetch: BRPOP takes the job off the list; nothing runs out.
constexpr broker_words sidekiq{
    "enqueued",
    "held: the process took the job off the queue (BRPOP) and holds it until it ends; no lease runs out",
    "job ended: finished, or moved to the dead set",
    "job failed: scheduled in the retry set",
    "job ended by a crash or the pod's stop (pushed back, or lost with the process)",
    "job still held, or its slice returned without finishing",
    "the job finished (Sidekiq acknowledges it)",
    "failure: the job is scheduled in the retry set",
    "the job came back without finishing (&#x25c6;) and the run it caused (dashed arrow)",
    "the retry set's job back in the queue when its retry was due: nothing was lost",
    "the hold",
    "enqueued again",
    "the job finishing",
    "a failure, scheduled in the retry set",
    "a move to the dead set",
};

// A Pub/Sub subscription: a lease until the ack deadline.
constexpr broker_words pubsub{
    "undelivered",
    "lease: the subscriber holds the message until its ack or its ack deadline",
    "lease ended by an ack or a dead letter",
    "lease ended by a nack or its ack deadline ran out",
    "lease ended by a crash or the pod's stop",
    "lease still open, or its slice returned without an ack",
    "ack",
    "nack (redelivery after the subscription's retry policy)",
    "ack deadline ran out (&#x25c6;) and the redelivery it caused (dashed arrow)",
    "redelivery when a nack's backoff ended: nothing was lost",
    "the ack deadline",
    "available again",
    "an ack",
    "a nack",
    "a dead letter",
};

// Celery over Redis: an unacked task, restored after the visibility timeout.
constexpr broker_words celery{
    "waiting in the list",
    "unacked: the worker holds the task until its ack; the visibility timeout restores it",
    "task ended: acked",
    "task retried, or restored after the visibility timeout",
    "task ended by a crash or the pod's stop",
    "task still unacked, or its slice returned without an ack",
    "ack (the task leaves the unacked set)",
    "retry (Task.retry: the task comes back after its countdown)",
    "restored by the unacked sweep (&#x25c6;) and the redelivery it caused (dashed arrow)",
    "the task back when its retry countdown ended: nothing was lost",
    "the visibility timeout",
    "restored to the list",
    "an ack",
    "a retry",
    "a dead letter",
};

// A Kafka consumer: a record fetched by a poll, done when its offset commits.
constexpr broker_words kafka{
    "not yet fetched",
    "fetched: the consumer holds the record from its poll until its offset is committed",
    "record done: its offset committed",
    "record given back: its partition moved to another consumer",
    "record's consumer crashed or stopped",
    "record still held, or its slice returned without a commit",
    "record done: its offset is committed with the next commit",
    "retry in place",
    "the partition moved (&#x25c6;) and the re-read it caused (dashed arrow)",
    "the record read again: nothing was lost",
    "the hold",
    "read again",
    "a commit",
    "a retry",
    "a dead letter",
};

}  // namespace

std::string broker_words::ended_by(std::string_view how) const {
  if (how == "ack") return std::string(by_ack);
  if (how == "nack") return std::string(by_nack);
  if (how == "dead_letter") return std::string(by_dead_letter);
  if (how == "expired") return std::string(expired_what) + " running out";
  if (how == "crash") return "a crash";
  if (how == "stop") return "the pod's stop";
  return std::string(how);
}

broker_words words_of(const world_config& c) {
  if (c.runtime.kafka) return kafka;
  if (c.queue.hold_until_ack) return sidekiq;
  if (c.queue.pubsub) return pubsub;
  if (c.runtime.celery) return celery;
  return sqs;
}

}  // namespace twice
