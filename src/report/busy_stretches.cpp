#include "report/busy_stretches.hpp"

#include <algorithm>

namespace twice {

void add_busy(std::vector<busy_stretch>& stretches, std::int64_t from_us, std::int64_t to_us,
              std::size_t max_stretches) {
  to_us = std::max(from_us, to_us);
  // The first stretch that ends at or after this one starts: the stretches
  // before it end earlier and stay apart.
  auto first = std::lower_bound(stretches.begin(), stretches.end(), from_us,
                                [](const busy_stretch& s, std::int64_t t) { return s.second < t; });
  if (first == stretches.end() || first->first > to_us) {
    stretches.insert(first, {from_us, to_us});
  } else {
    auto last = first;
    std::int64_t end = to_us;
    while (last != stretches.end() && last->first <= to_us) end = std::max(end, (last++)->second);
    first->first = std::min(first->first, from_us);
    first->second = end;
    stretches.erase(first + 1, last);
  }
  while (stretches.size() > std::max<std::size_t>(max_stretches, 1)) {
    std::size_t shortest = 0;
    for (std::size_t i = 1; i + 1 < stretches.size(); ++i)
      if (stretches[i + 1].first - stretches[i].second < stretches[shortest + 1].first - stretches[shortest].second)
        shortest = i;
    stretches[shortest].second = stretches[shortest + 1].second;
    stretches.erase(stretches.begin() + static_cast<std::ptrdiff_t>(shortest) + 1);
  }
}

}  // namespace twice
