#include "report/text_width.hpp"

#include <array>
#include <vector>

namespace twice::html_detail {

namespace {

// Advance widths of ASCII 32..126 in thousandths of an em, read from
// DejaVuSans.ttf and DejaVuSans-Bold.ttf (version 2.37, hmtx), rounded down.
constexpr std::array<std::int16_t, 95> regular = {
    317, 400, 459, 837, 636, 950, 779, 274, 390, 390, 500, 837, 317, 360,  317, 336, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 336, 336, 837, 837, 837, 530, 1000, 684, 686, 698, 770, 631,
    575, 774, 751, 294, 294, 655, 557, 862, 748, 787, 603, 787, 694, 634,  610, 731, 684, 988, 685,
    610, 685, 390, 336, 390, 837, 500, 500, 612, 634, 549, 634, 615, 352,  634, 633, 277, 277, 579,
    277, 974, 633, 611, 634, 634, 411, 520, 392, 633, 591, 817, 591, 591,  524, 636, 336, 636, 837};
constexpr std::array<std::int16_t, 95> bold_widths = {
    348, 456,  520, 837, 695, 1001, 872, 306, 457, 457, 522, 837, 379, 415,  379, 365, 695, 695,  695,
    695, 695,  695, 695, 695, 695,  695, 399, 399, 837, 837, 837, 580, 1000, 773, 762, 733, 830,  683,
    683, 820,  836, 372, 372, 774,  637, 995, 836, 850, 732, 850, 770, 720,  682, 812, 773, 1103, 770,
    724, 725,  457, 365, 457, 837,  500, 500, 674, 715, 592, 715, 678, 435,  715, 711, 342, 342,  665,
    342, 1041, 711, 687, 715, 715,  493, 595, 478, 711, 651, 923, 645, 651,  582, 711, 365, 711,  837};

}  // namespace

std::int64_t text_width(std::string_view text, std::int64_t font_px, bool bold) {
  const auto& widths = bold ? bold_widths : regular;
  std::int64_t milli_em = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 32 && byte <= 126)
      milli_em += widths[byte - 32];
    else if ((byte & 0xC0) != 0x80)
      milli_em += 1000;  // a character's first byte (UTF-8), or a control
  }
  // Thousandths of an em at font_px pixels, in tenths of a pixel, rounded up.
  return (milli_em * font_px * 10 + 999) / 1000;
}

std::string shortened_to(std::string_view text, std::int64_t width, std::int64_t font_px, bool bold) {
  if (text_width(text, font_px, bold) <= width) return std::string(text);
  // Character boundaries: a byte that is not a UTF-8 continuation byte.
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  starts.push_back(text.size());
  const std::size_t chars = starts.size() - 1;
  constexpr std::string_view ellipsis = "\xe2\x80\xa6";
  // Drop characters from the middle, one more each time, until it fits.
  for (std::size_t keep = chars; keep-- > 0;) {
    const std::size_t head = (keep + 1) / 2, tail = keep - head;
    std::string s(text.substr(0, starts[head]));
    s += ellipsis;
    s += text.substr(starts[chars - tail]);
    if (text_width(s, font_px, bold) <= width || keep == 0) return s;
  }
  return std::string(ellipsis);
}

std::vector<std::string> wrapped_to(std::string_view text, std::int64_t width, std::int64_t font_px, bool bold) {
  const auto fits = [&](std::string_view t) { return text_width(t, font_px, bold) <= width; };
  // The pieces a line may end after: words, and the parts of a word too long.
  std::vector<std::string> pieces;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t space = text.find(' ', at);
    if (space == std::string_view::npos) space = text.size();
    std::string_view word = text.substr(at, space - at);
    while (!fits(word)) {
      // The longest start of the word that fits, ending after '.', '/' or
      // '_' if one does, else after any whole character.
      std::size_t cut = 0, soft = 0;
      for (std::size_t i = 1; i <= word.size(); ++i) {
        if (i < word.size() && (static_cast<unsigned char>(word[i]) & 0xC0) == 0x80) continue;
        if (!fits(word.substr(0, i))) break;
        cut = i;
        const char c = word[i - 1];
        if (c == '.' || c == '/' || c == '_') soft = i;
      }
      if (cut == 0) {  // not even one character fits: one a line
        cut = 1;
        while (cut < word.size() && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) ++cut;
      }
      const std::size_t take = soft > 0 ? soft : cut;
      if (take >= word.size()) break;
      pieces.emplace_back(word.substr(0, take));
      word.remove_prefix(take);
    }
    if (!word.empty()) pieces.emplace_back(std::string(word) + (space < text.size() ? " " : ""));
    at = space + 1;
  }
  // Greedy lines; a line's trailing space is dropped.
  std::vector<std::string> lines;
  std::string line;
  auto trimmed = [](std::string l) {
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l;
  };
  for (const std::string& p : pieces) {
    if (!line.empty() && !fits(trimmed(line + p))) {
      lines.push_back(trimmed(line));
      line.clear();
    }
    line += p;
  }
  if (!trimmed(line).empty() || lines.empty()) lines.push_back(trimmed(line));
  return lines;
}

}  // namespace twice::html_detail
