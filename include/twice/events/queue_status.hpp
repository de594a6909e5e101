#pragma once
// What the broker answers, and where a message is: small enumerations the
// queue's callers and the trace's events share without the queue itself.

#include <cstdint>
#include <string_view>

namespace twice {

// New values go at the end: a value's number is part of the trace digest.
enum class queue_status : std::uint8_t {
  ok,
  invalid_handle,   // never issued by this queue, or forgotten (ReceiptHandleIsInvalid)
  stale_handle,     // strict semantics only: a newer receive owns the message
  invalid_timeout,  // negative, above 12 h, or past 12 h in flight since the receive
  // A change of visibility for a message that is gone (deleted, expired,
  // redriven, purged): "Message does not exist or is not available for
  // visibility timeout change".
  message_not_available,
  invalid_parameter,  // a receive's wait, message count or timeout, or a send's delay, out of range
  too_many_entries,   // a batch of more than 10
  empty_batch,
  invalid_batch_entry_id,  // not 1..80 of [A-Za-z0-9_-]
  batch_entry_ids_not_distinct,
  purge_in_progress,  // a second purge within 60 s
  // FIFO queues: a send without a MessageGroupId (MissingParameter, "The
  // request must contain the parameter MessageGroupId.").
  missing_group,
  // FIFO queues: a send without a MessageDeduplicationId to a queue without
  // ContentBasedDeduplication ("The queue should either have
  // ContentBasedDeduplication enabled or MessageDeduplicationId provided
  // explicitly").
  missing_deduplication_id,
  // FIFO queues: a delete or change of visibility with a handle whose lease
  // ended ("The receipt handle has expired.").
  receipt_handle_expired,
};

constexpr std::string_view to_string(queue_status status) {
  switch (status) {
    case queue_status::ok:
      return "ok";
    case queue_status::invalid_handle:
      return "invalid_handle";
    case queue_status::stale_handle:
      return "stale_handle";
    case queue_status::invalid_timeout:
      return "invalid_timeout";
    case queue_status::message_not_available:
      return "message_not_available";
    case queue_status::invalid_parameter:
      return "invalid_parameter";
    case queue_status::too_many_entries:
      return "too_many_entries";
    case queue_status::empty_batch:
      return "empty_batch";
    case queue_status::invalid_batch_entry_id:
      return "invalid_batch_entry_id";
    case queue_status::batch_entry_ids_not_distinct:
      return "batch_entry_ids_not_distinct";
    case queue_status::purge_in_progress:
      return "purge_in_progress";
    case queue_status::missing_group:
      return "missing_group";
    case queue_status::missing_deduplication_id:
      return "missing_deduplication_id";
    case queue_status::receipt_handle_expired:
      return "receipt_handle_expired";
  }
  return "unknown";
}

// The error code SQS answers with (JSON protocol; the query protocol drops
// the "AWS.SimpleQueueService." prefix), as AWS-validated tests recorded them
// (tests/conformance/sqs_conformance.md). Empty for ok, and for stale_handle, which SQS
// never answers (handle_semantics::strict is Pub/Sub's exactly-once rule).
constexpr std::string_view aws_error_code(queue_status status) {
  switch (status) {
    case queue_status::ok:
      return "";
    case queue_status::invalid_handle:
      return "ReceiptHandleIsInvalid";
    case queue_status::stale_handle:
      return "";
    case queue_status::invalid_timeout:
      return "InvalidParameterValue";
    case queue_status::message_not_available:
      return "InvalidParameterValue";
    case queue_status::invalid_parameter:
      return "InvalidParameterValue";
    case queue_status::too_many_entries:
      return "AWS.SimpleQueueService.TooManyEntriesInBatchRequest";
    case queue_status::empty_batch:
      return "AWS.SimpleQueueService.EmptyBatchRequest";
    case queue_status::invalid_batch_entry_id:
      return "AWS.SimpleQueueService.InvalidBatchEntryId";
    case queue_status::batch_entry_ids_not_distinct:
      return "AWS.SimpleQueueService.BatchEntryIdsNotDistinct";
    case queue_status::purge_in_progress:
      return "AWS.SimpleQueueService.PurgeQueueInProgress";
    case queue_status::missing_group:
      return "MissingParameter";
    case queue_status::missing_deduplication_id:
      return "InvalidParameterValue";
    case queue_status::receipt_handle_expired:
      return "InvalidParameterValue";
  }
  return "";
}

enum class message_state : std::uint8_t { delayed, visible, in_flight };

constexpr std::string_view to_string(message_state state) {
  switch (state) {
    case message_state::delayed:
      return "delayed";
    case message_state::visible:
      return "visible";
    case message_state::in_flight:
      return "in_flight";
  }
  return "unknown";
}

}  // namespace twice
