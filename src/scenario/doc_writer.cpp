#include "scenario/doc_writer.hpp"

#include <cmath>
#include <cstdio>

#include "scenario/double_text.hpp"

namespace twice::scenario_detail {
namespace {

std::string write_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (u < 0x20 || u == 0x7f) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
          out += buffer;
        } else {
          out += c;  // UTF-8 bytes pass through: the parser checked them
        }
    }
  }
  out += '"';
  return out;
}

std::string write_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string out = shortest_text(v);  // reads back as the same double
  // TOML needs a '.' or an exponent to read a float ("1" is an integer),
  // and a digit before the exponent's sign is fine ("1e-07").
  if (out.find_first_of(".eEn") == std::string::npos) out += ".0";
  return out;
}

// Arrays of tables written as [[path]]: every item a table none of which
// the file wrote inline.
bool is_table_array(const doc_node& n) {
  if (!n.is_array() || n.items.empty()) return false;
  for (const doc_node& item : n.items)
    if (!item.is_table() || item.inline_table) return false;
  return true;
}

bool is_section(const doc_node& n) { return n.is_table() && !n.inline_table; }

void write_table_body(const doc_node& table, const std::string& path, std::string& out);

void write_header_and_body(const doc_node& table, const std::string& path, bool array_item, std::string& out) {
  // A header for a table that holds only sub-tables would be noise, but an
  // empty table must keep its header to stay in the document.
  bool has_values = table.entries.empty() || array_item;
  for (const doc_entry& e : table.entries)
    has_values = has_values || (!is_section(e.value) && !is_table_array(e.value));
  if (has_values) {
    if (!out.empty()) out += '\n';
    out += array_item ? "[[" + path + "]]\n" : "[" + path + "]\n";
  }
  write_table_body(table, path, out);
}

void write_table_body(const doc_node& table, const std::string& path, std::string& out) {
  for (const doc_entry& e : table.entries) {
    if (is_section(e.value) || is_table_array(e.value)) continue;
    out += write_key(e.key) + " = " + write_inline(e.value) + "\n";
  }
  for (const doc_entry& e : table.entries) {
    const std::string child = path.empty() ? write_key(e.key) : path + "." + write_key(e.key);
    if (is_section(e.value)) write_header_and_body(e.value, child, false, out);
  }
  for (const doc_entry& e : table.entries) {
    const std::string child = path.empty() ? write_key(e.key) : path + "." + write_key(e.key);
    if (!is_table_array(e.value)) continue;
    for (const doc_node& item : e.value.items) write_header_and_body(item, child, true, out);
  }
}

}  // namespace

std::string write_key(std::string_view key) {
  bool bare = !key.empty();
  for (const char c : key)
    bare = bare && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
  return bare ? std::string(key) : write_string(key);
}

std::string write_inline(const doc_node& n) {
  switch (n.type) {
    case doc_node::kind::string:
      return write_string(n.text);
    case doc_node::kind::integer:
      return std::to_string(n.integer);
    case doc_node::kind::floating:
      return write_float(n.floating);
    case doc_node::kind::boolean:
      return n.boolean ? "true" : "false";
    case doc_node::kind::date_time:
      return n.text;
    case doc_node::kind::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (i != 0) out += ", ";
        out += write_inline(n.items[i]);
      }
      return out + "]";
    }
    case doc_node::kind::table: {
      if (n.entries.empty()) return "{}";
      std::string out = "{ ";
      for (std::size_t i = 0; i < n.entries.size(); ++i) {
        if (i != 0) out += ", ";
        out += write_key(n.entries[i].key) + " = " + write_inline(n.entries[i].value);
      }
      return out + " }";
    }
  }
  return {};
}

std::string write_document(const doc_node& root) {
  std::string out;
  write_table_body(root, "", out);
  return out;
}

}  // namespace twice::scenario_detail
