#pragma once
// Labels that never pile up: each label is a horizontal extent, and the
// labels go, most important first, onto a few rows; one that overlaps
// whatever is already on every row is left out (the mark it names keeps its
// tooltip). A label that would leave its chart is moved back inside it.
// Integer geometry in tenths of a pixel, so the same labels always land on
// the same rows.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace twice::html_detail {

// A label's box along x, [left, right).
struct label_extent {
  std::int64_t left = 0, right = 0;
};

// Where SVG text anchored at `x` with text-anchor `anchor` ("start",
// "middle", "end") and `width` reaches.
label_extent extent_at(std::int64_t x, std::int64_t width, std::string_view anchor);

// The same extent moved (not resized) to lie within [lo, hi]; a label wider
// than the room starts at lo.
label_extent keep_within(label_extent e, std::int64_t lo, std::int64_t hi);

// Rows for the labels, in the order given (the order is the priority): the
// lowest row on which a label keeps `gap` from every label already placed
// there, or nothing when none of `rows` rows has room for it.
std::vector<std::optional<std::size_t>> stack_labels(const std::vector<label_extent>& labels, std::size_t rows,
                                                     std::int64_t gap);

}  // namespace twice::html_detail
