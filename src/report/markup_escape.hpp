#pragma once
// The one escaper for the markup twice writes, HTML pages and JUnit XML:
// text and attribute values alike, so nothing in a run's data can open a
// tag, end an attribute or start an entity. The two differ only where their
// readers do: HTML 4 has no &apos; (so &#39;), and XML 1.0 cannot hold most
// control characters at all, not even escaped (so they become '?'; a JUnit
// reader refuses the whole file otherwise), where a browser shows them.

#include <string>
#include <string_view>

namespace twice {

enum class markup {
  html,   // ' as &#39;, control characters kept
  xml10,  // ' as &apos;, the control characters XML 1.0 forbids (below 0x20 but tab, LF, CR) as '?'
};

inline std::string escape_markup(std::string_view text, markup dialect) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += dialect == markup::html ? "&#39;" : "&apos;";
        break;
      default:
        if (dialect == markup::xml10 && static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

}  // namespace twice
