#include "report/label_rows.hpp"

#include <algorithm>

namespace twice::html_detail {

label_extent extent_at(std::int64_t x, std::int64_t width, std::string_view anchor) {
  if (anchor == "end") return {x - width, x};
  if (anchor == "middle") return {x - width / 2, x - width / 2 + width};
  return {x, x + width};
}

label_extent keep_within(label_extent e, std::int64_t lo, std::int64_t hi) {
  const std::int64_t width = e.right - e.left;
  if (e.right > hi) e = {hi - width, hi};
  if (e.left < lo) e = {lo, lo + width};
  return e;
}

std::vector<std::optional<std::size_t>> stack_labels(const std::vector<label_extent>& labels, std::size_t rows,
                                                     std::int64_t gap) {
  std::vector<std::vector<label_extent>> placed(rows);
  std::vector<std::optional<std::size_t>> out;
  out.reserve(labels.size());
  for (const label_extent& l : labels) {
    std::optional<std::size_t> row;
    for (std::size_t r = 0; r < rows && !row; ++r) {
      const bool clear = std::none_of(placed[r].begin(), placed[r].end(), [&](const label_extent& p) {
        return l.left < p.right + gap && p.left < l.right + gap;
      });
      if (clear) row = r;
    }
    if (row) placed[*row].push_back(l);
    out.push_back(row);
  }
  return out;
}

}  // namespace twice::html_detail
