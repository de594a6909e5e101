#pragma once
// DeleteMessageBatch and ChangeMessageVisibilityBatch on a queue: 1..10
// entries, each named by an id the caller chooses, each answered on its own
// (SQS's Successful and Failed lists, HTTP 200). The request as a whole
// fails, and no entry is tried, when it is empty, has more than 10 entries,
// an id that is not 1..80 of [A-Za-z0-9_-], or two entries with one id
// (SQS API reference, DeleteMessageBatch errors; the first three recorded
// against AWS in LocalStack's test_delete_message_batch_with_too_large_batch,
// test_change_message_visibility_batch_with_too_large_batch and
// test_delete_message_batch_invalid_msg_id).

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "broker/queue.hpp"

namespace twice {

inline constexpr std::size_t max_batch_entries = 10;
inline constexpr std::size_t max_batch_entry_id_length = 80;

struct delete_entry {
  std::string id;
  receipt_handle handle = 0;
};

struct visibility_entry {
  std::string id;
  receipt_handle handle = 0;
  sim::duration timeout;
};

struct batch_entry_result {
  std::string id;
  queue_status status = queue_status::ok;  // as the single call would answer
};

struct batch_result {
  queue_status status = queue_status::ok;   // of the request; not ok: `entries` is empty
  std::vector<batch_entry_result> entries;  // in the request's order
};

batch_result delete_message_batch(queue& q, std::span<const delete_entry> entries);
batch_result change_visibility_batch(queue& q, std::span<const visibility_entry> entries);

}  // namespace twice
