#pragma once
// What a per-attempt execution timeout (runtime.execution_timeout) does at
// its limit, by flavour: each runtime's own mechanism.
//
//  * kill_process (sqs, sqs_fifo): the process running the job is killed.
//    Laravel's queue worker arms pcntl_alarm($timeout) for each job and its
//    handler kills the worker process (Illuminate/Queue/Worker.php,
//    registerTimeoutHandler, kill(static::EXIT_ERROR)); the job stays
//    reserved and returns once retry_after (the SQS visibility timeout)
//    passes; a supervisor starts a new worker. Laravel's docs ("Job
//    Expirations and Timeouts", laravel.com/docs/queues): "--timeout should
//    always be at least several seconds shorter than your retry_after ...
//    your jobs may be processed twice". An AWS Lambda function timeout with
//    an SQS event source is the same: the invocation fails, the message is
//    not deleted, it returns after the visibility timeout and its receive
//    counts toward maxReceiveCount (docs.aws.amazon.com/lambda/latest/dg/
//    with-sqs.html). Here: the pod crashes (restart after restart_delay).
//  * kill_pool_process (celery_redis): Celery's hard time_limit. The pool
//    process is killed and replaced; Request.on_timeout (celery/worker/
//    request.py) marks the task FAILURE with TimeLimitExceeded and, with
//    acks_late, acks it (task_acks_on_failure_or_timeout defaults to True):
//    no retry, whatever ran before the kill stands.
//  * raise (sidekiq, pubsub, kafka): none of them has a limit of its own;
//    the application's (Ruby's Timeout.timeout around the job, a deadline
//    in the callback or the record's processing) raises inside the handler,
//    a failure like any other: Sidekiq's retry set, a Pub/Sub nack, a
//    Kafka in-place retry. Celery's soft_time_limit (SoftTimeLimitExceeded)
//    is the same kind and is not modelled separately. A call in flight at the
//    limit is abandoned there (its far side carries on); otherwise the
//    raise comes at the handler's next step.

#include <cstdint>

namespace twice {

enum class execution_timeout_action : std::uint8_t { kill_process, kill_pool_process, raise };

// `celery`, `hold_until_ack` (Sidekiq), `pubsub`, `kafka`: the world's flavour.
constexpr execution_timeout_action execution_timeout_action_for(bool celery, bool kafka, bool hold_until_ack,
                                                                bool pubsub) {
  if (celery) return execution_timeout_action::kill_pool_process;
  if (kafka || hold_until_ack || pubsub) return execution_timeout_action::raise;
  return execution_timeout_action::kill_process;
}

}  // namespace twice
