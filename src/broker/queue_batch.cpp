#include "broker/queue_batch.hpp"

#include <algorithm>
#include <string_view>

namespace twice {

namespace {

bool valid_entry_id(std::string_view id) {
  if (id.empty() || id.size() > max_batch_entry_id_length) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// The checks on the request as a whole, before any entry is tried.
template <class Entry>
queue_status check_batch(std::span<const Entry> entries) {
  if (entries.empty()) return queue_status::empty_batch;
  if (entries.size() > max_batch_entries) return queue_status::too_many_entries;
  for (const Entry& e : entries)
    if (!valid_entry_id(e.id)) return queue_status::invalid_batch_entry_id;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (entries[i].id == entries[j].id) return queue_status::batch_entry_ids_not_distinct;
  return queue_status::ok;
}

template <class Entry, class Call>
batch_result run_batch(std::span<const Entry> entries, Call call) {
  batch_result out;
  out.status = check_batch(entries);
  if (out.status != queue_status::ok) return out;
  for (const Entry& e : entries) out.entries.push_back({e.id, call(e)});
  return out;
}

}  // namespace

batch_result delete_message_batch(queue& q, std::span<const delete_entry> entries) {
  return run_batch(entries, [&](const delete_entry& e) { return q.delete_message(e.handle); });
}

batch_result change_visibility_batch(queue& q, std::span<const visibility_entry> entries) {
  return run_batch(entries, [&](const visibility_entry& e) { return q.change_visibility(e.handle, e.timeout); });
}

}  // namespace twice
