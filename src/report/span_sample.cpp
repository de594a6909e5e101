#include "report/span_sample.hpp"

#include <algorithm>

namespace twice::span_sample {

std::vector<bool> choose_kept(const std::vector<job_facts>& candidates, std::size_t first_jobs, std::size_t per_kind) {
  std::vector<bool> kept(candidates.size(), false);
  for (std::size_t i = 0; i < candidates.size(); ++i) kept[i] = candidates[i].order < first_jobs;
  std::vector<std::size_t> of_kind;
  for (unsigned k = 0; k < kinds; ++k) {
    of_kind.clear();
    for (std::size_t i = 0; i < candidates.size(); ++i)
      if ((candidates[i].kind & (1U << k)) != 0) of_kind.push_back(i);
    const std::size_t n = std::min(per_kind, of_kind.size());
    std::partial_sort(of_kind.begin(), of_kind.begin() + static_cast<std::ptrdiff_t>(n), of_kind.end(),
                      [&](std::size_t a, std::size_t b) {
                        const job_facts& x = candidates[a];
                        const job_facts& y = candidates[b];
                        return x.attempts != y.attempts ? x.attempts > y.attempts : x.order < y.order;
                      });
    for (std::size_t i = 0; i < n; ++i) kept[of_kind[i]] = true;
  }
  return kept;
}

}  // namespace twice::span_sample
