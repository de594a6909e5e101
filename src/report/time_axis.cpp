#include "report/time_axis.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include "report/html_format.hpp"
#include "report/label_rows.hpp"
#include "report/text_width.hpp"
#include "sim/duration_text.hpp"

namespace twice::html_detail {

namespace {

// Tick steps in microseconds, smallest first: 1, 2, 5 x 10^k below a
// minute, then steps a clock shows (minutes, hours, days).
std::vector<std::int64_t> tick_steps(std::int64_t end_us) {
  std::vector<std::int64_t> steps;
  for (std::int64_t base = 1; base < 60'000'000; base *= 10)
    for (const std::int64_t m : {1, 2, 5})
      if (base * m < 60'000'000) steps.push_back(base * m);
  for (const std::int64_t s : {60, 120, 300, 600, 1'200, 1'800, 3'600, 7'200, 10'800, 21'600, 43'200, 86'400})
    steps.push_back(s * 1'000'000);
  while (steps.back() < end_us && steps.back() < std::numeric_limits<std::int64_t>::max() / 2)
    steps.push_back(steps.back() * 2);
  return steps;
}

constexpr std::int64_t label_gap = 200;  // tenths of a pixel between two tick labels

}  // namespace

time_axis::time_axis(std::int64_t left, std::int64_t right, std::int64_t end_us)
    : time_axis(left, right, std::max<std::int64_t>(end_us, 1),
                {piece{0, std::max<std::int64_t>(end_us, 1), left, right, false}}) {}

time_axis::time_axis(std::int64_t left, std::int64_t right, std::int64_t end_us, std::vector<piece> pieces)
    : left_(left), right_(right), end_us_(end_us), pieces_(std::move(pieces)) {
  for (const piece& p : pieces_)
    if (p.idle) breaks_.push_back({p.t0, p.t1, p.x0, p.x1});
}

time_axis time_axis::compressing_idle(std::int64_t left, std::int64_t right, std::int64_t end_us,
                                      std::vector<busy_span> busy) {
  const std::int64_t end = std::max<std::int64_t>(end_us, 1);
  // What is drawn, clipped to the story and merged where it overlaps.
  for (busy_span& b : busy) {
    b.from_us = std::clamp<std::int64_t>(b.from_us, 0, end);
    b.to_us = std::clamp<std::int64_t>(b.to_us, b.from_us, end);
  }
  std::sort(busy.begin(), busy.end(), [](const busy_span& a, const busy_span& b) {
    return a.from_us != b.from_us ? a.from_us < b.from_us : a.to_us < b.to_us;
  });
  struct gap {
    std::int64_t from = 0, to = 0;
    bool compressed = false;
  };
  std::vector<gap> gaps;
  std::int64_t cursor = 0;
  bool any = false;
  for (const busy_span& b : busy) {
    if (b.from_us > cursor) gaps.push_back({cursor, b.from_us});
    cursor = std::max(cursor, b.to_us);
    any = true;
  }
  if (!any) return time_axis(left, right, end);
  if (end > cursor) gaps.push_back({cursor, end});

  std::vector<std::size_t> longest(gaps.size());
  for (std::size_t i = 0; i < gaps.size(); ++i) longest[i] = i;
  std::stable_sort(longest.begin(), longest.end(),
                   [&](std::size_t a, std::size_t b) { return gaps[a].to - gaps[a].from > gaps[b].to - gaps[b].from; });
  // Longest first, each while it is longer than everything else still
  // drawn to scale together.
  std::int64_t drawn_time = end;
  std::size_t breaks = 0;
  for (const std::size_t i : longest) {
    const std::int64_t length = gaps[i].to - gaps[i].from;
    if (breaks == max_breaks || length < drawn_time - length || length <= 0) break;
    gaps[i].compressed = true;
    drawn_time -= length;
    ++breaks;
  }
  if (breaks == 0 || drawn_time <= 0) return time_axis(left, right, end);
  // A break starts a little after what comes before it and ends a little
  // before what comes after (8 px at the scale of the rest), so the marks
  // on either side stay clear of it.
  const std::int64_t scale_width = right - left - static_cast<std::int64_t>(breaks) * break_width;
  const std::int64_t pad = axis{0, drawn_time, scale_width}.at(edge_room);
  for (gap& g : gaps) {
    if (!g.compressed) continue;
    const std::int64_t room = std::min(pad, (g.to - g.from) / 4);
    g.from += room;
    g.to -= room;
    drawn_time += 2 * room;
  }

  // Left to right, the stretches to scale and the breaks between them.
  std::vector<piece> pieces;
  std::int64_t t = 0;
  for (const gap& g : gaps) {
    if (!g.compressed) continue;
    if (g.from > t) pieces.push_back({t, g.from, 0, 0, false});
    pieces.push_back({g.from, g.to, 0, 0, true});
    t = g.to;
  }
  if (end > t) pieces.push_back({t, end, 0, 0, false});
  // The stretches share what the breaks leave in proportion to their time,
  // but none gets less than a sixth of it (or an equal share, when there
  // are more than six): the seconds after an idle hour stay readable,
  // each stretch on its own scale (its ticks say which).
  std::vector<std::int64_t> width(pieces.size(), break_width);
  std::vector<bool> at_least(pieces.size(), false);
  std::int64_t stretches = 0;
  for (const piece& p : pieces) stretches += p.idle ? 0 : 1;
  const std::int64_t least =
      std::min<std::int64_t>(scale_width / 6, scale_width / std::max<std::int64_t>(stretches, 1));
  for (bool again = true; again;) {
    again = false;
    std::int64_t free_width = scale_width, free_time = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (pieces[i].idle) continue;
      if (at_least[i])
        free_width -= least;
      else
        free_time += pieces[i].t1 - pieces[i].t0;
    }
    const axis share{0, free_width, std::max<std::int64_t>(free_time, 1)};
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (pieces[i].idle) continue;
      if (at_least[i]) {
        width[i] = least;
        continue;
      }
      width[i] = share.at(pieces[i].t1 - pieces[i].t0);
      if (width[i] < least) {
        at_least[i] = true;
        again = true;
      }
    }
  }
  // Whatever rounding left over goes to the last piece, so the axis ends at right.
  std::int64_t x = left;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    pieces[i].x0 = x;
    x += width[i];
    pieces[i].x1 = i + 1 == pieces.size() ? right : x;
  }
  return time_axis(left, right, end, std::move(pieces));
}

std::int64_t time_axis::at(std::int64_t us) const {
  const std::int64_t t = std::clamp<std::int64_t>(us, 0, end_us_);
  // The last piece starting at or before t.
  auto it =
      std::upper_bound(pieces_.begin(), pieces_.end(), t, [](std::int64_t v, const piece& p) { return v < p.t0; });
  const piece& p = it == pieces_.begin() ? pieces_.front() : *std::prev(it);
  if (p.t1 <= p.t0) return p.x0;
  return axis{p.x0, p.x1 - p.x0, p.t1 - p.t0}.at(t - p.t0);
}

std::vector<time_tick> time_axis::ticks(std::int64_t font_px) const {
  const std::vector<std::int64_t> steps = tick_steps(end_us_);
  std::vector<time_tick> inner;
  for (const piece& p : pieces_) {
    if (p.idle || p.t1 <= p.t0 || p.x1 <= p.x0) continue;
    for (const std::int64_t step : steps) {
      // Cheap first: no more ticks than 30 px apart.
      if ((p.t1 - p.t0) / step > (p.x1 - p.x0) / 300) continue;
      std::vector<time_tick> here;
      for (std::int64_t v = (p.t0 + step - 1) / step * step; v <= p.t1; v += step) {
        here.push_back({v, at(v), short_secs(v), false});
        if (v > end_us_ - step) break;  // no overflow past the end
      }
      bool fits = true;
      for (std::size_t i = 1; i < here.size() && fits; ++i)
        fits = here[i].x - here[i - 1].x >=
               (text_width(here[i].label, font_px) + text_width(here[i - 1].label, font_px)) / 2 + label_gap;
      if (!fits) continue;
      inner.insert(inner.end(), here.begin(), here.end());
      break;
    }
  }
  // 0 and the end first: they keep their labels; then the rest while there is room.
  std::vector<time_tick> all;
  all.push_back({0, at(0), "0s", false});
  all.push_back({end_us_, at(end_us_), sim::format_clock(sim::duration::from_us(end_us_), 3, true), true});
  for (const time_tick& t : inner)
    if (t.us > 0 && t.us < end_us_) all.push_back(t);
  std::vector<label_extent> extents;
  for (const time_tick& t : all)
    extents.push_back(extent_at(t.x, text_width(t.label, font_px), t.end ? "end" : "middle"));
  const auto rows = stack_labels(extents, 1, label_gap);
  std::vector<time_tick> out;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (rows[i] || all[i].end) out.push_back(all[i]);
  std::sort(out.begin(), out.end(), [](const time_tick& a, const time_tick& b) { return a.us < b.us; });
  return out;
}

}  // namespace twice::html_detail
