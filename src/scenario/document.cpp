#include "scenario/document.hpp"

#include <toml++/toml.h>

#include <utility>

#include "scenario/utf8.hpp"

namespace twice::scenario_detail {
namespace {

source_pos pos_of(const toml::source_region& region) {
  return {static_cast<std::uint32_t>(region.begin.line), static_cast<std::uint32_t>(region.begin.column)};
}

// toml++ bounds nesting (TOML_MAX_NESTED_VALUES), so this recursion is
// bounded by the parser before it ever sees a document.
doc_node convert(const toml::node& node);

doc_node convert_table(const toml::table& table) {
  doc_node out;
  out.type = doc_node::kind::table;
  out.pos = pos_of(table.source());
  out.inline_table = table.is_inline();
  out.entries.reserve(table.size());
  for (const auto& [key, value] : table) {
    out.entries.push_back({std::string(key.str()), pos_of(key.source()), convert(value)});
  }
  return out;
}

doc_node convert_array(const toml::array& array) {
  doc_node out;
  out.type = doc_node::kind::array;
  out.pos = pos_of(array.source());
  out.items.reserve(array.size());
  for (const toml::node& item : array) out.items.push_back(convert(item));
  return out;
}

doc_node convert(const toml::node& node) {
  if (const toml::table* t = node.as_table()) return convert_table(*t);
  if (const toml::array* a = node.as_array()) return convert_array(*a);
  doc_node out;
  out.pos = pos_of(node.source());
  if (const auto* s = node.as_string()) {
    out.type = doc_node::kind::string;
    out.text = s->get();
  } else if (const auto* i = node.as_integer()) {
    out.type = doc_node::kind::integer;
    out.integer = i->get();
  } else if (const auto* f = node.as_floating_point()) {
    out.type = doc_node::kind::floating;
    out.floating = f->get();
  } else if (const auto* b = node.as_boolean()) {
    out.type = doc_node::kind::boolean;
    out.boolean = b->get();
  } else {
    // Dates and times: no key of the format takes one.
    out.type = doc_node::kind::date_time;
  }
  return out;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

const doc_node* doc_node::find(std::string_view key) const {
  for (const doc_entry& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

parsed_document parse_document(std::string_view text, std::string_view path) {
  parsed_document out;
  if (const std::optional<utf8_problem> bad = first_invalid_utf8(text)) {
    out.error_pos = bad->pos;
    out.error = bad->message;
    return out;
  }
  try {
    const toml::table root = toml::parse(text, path);
    out.root = convert_table(root);
    out.ok = true;
  } catch (const toml::parse_error& e) {
    out.error_pos = pos_of(e.source());
    out.error = std::string(e.description());
  }
  return out;
}

std::string leading_comment(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
  std::string out;
  bool started = false;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = trim_right(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!started && line.empty()) continue;
    if (!line.starts_with('#')) break;
    line.remove_prefix(1);
    if (line.starts_with(' ')) line.remove_prefix(1);
    if (started) out += '\n';
    out += line;
    started = true;
  }
  return out;
}

}  // namespace twice::scenario_detail
