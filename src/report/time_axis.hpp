#pragma once
// The run's time across the page, from 0 to where the story ended, with its
// long idle stretches compressed: a stretch in which nothing is drawn (no
// call or execution under way, no mark) that would take most of the width is
// drawn as a narrow break instead, so a kill at 5 s and a redelivery an hour
// later both get room on one page. Piecewise linear, integer geometry in
// tenths of a pixel; the timeline and the charts under it share one axis, so
// they line up. Breaks are marked where they are drawn (html_sections.hpp).

#include <cstdint>
#include <string>
#include <vector>

namespace twice::html_detail {

// Something drawn over [from_us, to_us] (a point when they are equal).
struct busy_span {
  std::int64_t from_us = 0, to_us = 0;
};

// An idle stretch [from_us, to_us] drawn narrow, over [x0, x1].
struct time_break {
  std::int64_t from_us = 0, to_us = 0;
  std::int64_t x0 = 0, x1 = 0;
};

// A labelled moment on the axis.
struct time_tick {
  std::int64_t us = 0;
  std::int64_t x = 0;
  std::string label;
  bool end = false;  // the story's end
};

class time_axis {
 public:
  // [0, end_us] onto [left, right], to scale.
  time_axis(std::int64_t left, std::int64_t right, std::int64_t end_us);

  // The same, with the idle stretches between the busy spans compressed:
  // longest first, each while it is longer than all the rest still drawn
  // to scale together (so one idle hour does not squeeze the seconds around
  // it into a hairline, and what happens keeps its proportions), at most
  // `max_breaks` of them, each `break_width` wide.
  static time_axis compressing_idle(std::int64_t left, std::int64_t right, std::int64_t end_us,
                                    std::vector<busy_span> busy);
  static constexpr std::int64_t break_width = 300;
  static constexpr std::size_t max_breaks = 8;
  static constexpr std::int64_t edge_room = 80;  // between a break and the marks beside it

  // Where a moment is drawn; a moment outside [0, end] at the nearer end.
  std::int64_t at(std::int64_t us) const;
  std::int64_t end_us() const { return end_us_; }
  std::int64_t left() const { return left_; }
  std::int64_t right() const { return right_; }
  const std::vector<time_break>& breaks() const { return breaks_; }

  // Ticks at round moments in every stretch drawn to scale, as many as
  // their labels (at `font_px`) leave room for, 0 first and the story's end
  // last; no two labels closer than 20 px.
  std::vector<time_tick> ticks(std::int64_t font_px) const;

 private:
  struct piece {
    std::int64_t t0 = 0, t1 = 0, x0 = 0, x1 = 0;
    bool idle = false;  // a break
  };
  time_axis(std::int64_t left, std::int64_t right, std::int64_t end_us, std::vector<piece> pieces);

  std::int64_t left_ = 0, right_ = 0, end_us_ = 1;
  std::vector<piece> pieces_;  // in time order, covering [0, end]
  std::vector<time_break> breaks_;
};

}  // namespace twice::html_detail
