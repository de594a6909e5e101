#pragma once
// A parsed TOML document as plain values, each with its place in the text.
// Only document.cpp sees toml++: the section loaders work on this tree, so
// the parser's (large) headers stay out of every other translation unit and
// the loaders can be read without knowing its API.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace twice::scenario_detail {

struct source_pos {
  std::uint32_t line = 0;  // 1-based; 0: nowhere
  std::uint32_t column = 0;
};

struct doc_entry;

struct doc_node {
  enum class kind : std::uint8_t { string, integer, floating, boolean, date_time, array, table };

  kind type = kind::table;
  source_pos pos;
  std::string text;                // string: the value; date_time: as written
  std::int64_t integer = 0;        // integer
  double floating = 0.0;           // floating
  bool boolean = false;            // boolean
  bool inline_table = false;       // table written as { ... }
  std::vector<doc_node> items;     // array
  std::vector<doc_entry> entries;  // table, in key order

  const doc_node* find(std::string_view key) const;
  bool is_table() const { return type == kind::table; }
  bool is_array() const { return type == kind::array; }
};

struct doc_entry {
  std::string key;
  source_pos key_pos;
  doc_node value;
};

// A syntax error, or the document.
struct parsed_document {
  bool ok = false;
  doc_node root;
  source_pos error_pos;
  std::string error;  // toml++'s description
};

parsed_document parse_document(std::string_view text, std::string_view path);

// The leading comment block: the '#' lines at the top of the file (blank
// lines before it are skipped), without their markers, joined by '\n'.
std::string leading_comment(std::string_view text);

}  // namespace twice::scenario_detail
