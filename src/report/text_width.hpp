#pragma once
// How wide a line of SVG text is drawn, estimated without a browser, so the
// pages can keep labels apart and inside their charts with integer geometry.
// The estimate is DejaVu Sans's advance widths (Debian's Chromium draws
// system-ui and sans-serif with it, and it is wider than the common
// alternatives: Arial, Helvetica, Segoe UI, SF), so on other fonts a label
// is narrower than its estimate, never wider.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace twice::html_detail {

// The width, in tenths of a pixel, of `text` (UTF-8) at `font_px` pixels;
// bold text is wider. A character beyond ASCII counts as a full em.
std::int64_t text_width(std::string_view text, std::int64_t font_px, bool bold = false);

// `text`, or when it is wider than `width` its start and end around an
// ellipsis ("vendor/notif\u2026service"), as wide as fits; cut between
// characters, never inside one.
std::string shortened_to(std::string_view text, std::int64_t width, std::int64_t font_px, bool bold = false);

// `text` in lines no wider than `width`: broken at spaces, a word too long
// for a line after a '.', '/' or '_' in it, or else between characters.
std::vector<std::string> wrapped_to(std::string_view text, std::int64_t width, std::int64_t font_px, bool bold = false);

}  // namespace twice::html_detail
