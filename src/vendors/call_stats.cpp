#include <twice/vendors/call_stats.hpp>

#include <algorithm>
#include <iterator>

#include <twice/sim/check.hpp>

namespace twice {

void request_buckets::count(sim::instant t) {
  const std::int64_t index = t.us() / request_bucket_width.us();
  TWICE_CHECK(index >= current_.index);
  if (index != current_.index) current_ = bucket{index, 0};
  ++current_.requests;
  // Counts only grow, so the current bucket climbs the list one place at a
  // time: it is in the list already, or enters it by passing the shortest.
  auto in_list = std::find_if(tallest_.begin(), tallest_.end(), [&](const bucket& b) { return b.index == index; });
  if (in_list == tallest_.end()) {
    if (tallest_.size() == kept && tallest_.back().requests >= current_.requests) return;
    if (tallest_.size() == kept) tallest_.pop_back();
    in_list = tallest_.insert(tallest_.end(), current_);
  }
  in_list->requests = current_.requests;
  // Above every shorter bucket; below any the same height, which got there first.
  while (in_list != tallest_.begin() && std::prev(in_list)->requests < in_list->requests) {
    std::iter_swap(in_list, std::prev(in_list));
    --in_list;
  }
}

}  // namespace twice
