#include "scenario/key_path.hpp"

#include <algorithm>

namespace twice::scenario_detail {
namespace {

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

doc_node* child(doc_node& table, std::string_view key) {
  for (doc_entry& e : table.entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

}  // namespace

std::string key_path::pattern() const {
  std::string out;
  for (const key_segment& s : segments) {
    if (!out.empty()) out += '.';
    out += s.name;
    if (s.index) out += "[]";
  }
  return out;
}

std::vector<std::size_t> key_path::indices() const {
  std::vector<std::size_t> out;
  for (const key_segment& s : segments)
    if (s.index) out.push_back(*s.index);
  return out;
}

std::string key_path::to_string() const {
  std::string out;
  for (const key_segment& s : segments) {
    if (!out.empty()) out += '.';
    out += s.name;
    if (s.index) out += "[" + std::to_string(*s.index) + "]";
  }
  return out;
}

std::optional<key_path> parse_key_path(std::string_view text) {
  key_path out;
  std::size_t i = 0;
  while (true) {
    key_segment seg;
    while (i < text.size() && is_key_char(text[i])) seg.name += text[i++];
    if (seg.name.empty()) return std::nullopt;
    if (i < text.size() && text[i] == '[') {
      const std::size_t close = text.find(']', i);
      // At most six digits: no scenario has a million faults.
      if (close == std::string_view::npos || close == i + 1 || close - i > 7) return std::nullopt;
      std::size_t index = 0;
      for (std::size_t k = i + 1; k < close; ++k) {
        if (text[k] < '0' || text[k] > '9') return std::nullopt;
        index = index * 10 + static_cast<std::size_t>(text[k] - '0');
      }
      seg.index = index;
      i = close + 1;
    }
    out.segments.push_back(std::move(seg));
    if (i == text.size()) return out;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
}

const doc_node* find_node(const doc_node& root, const key_path& path) {
  return find_node(const_cast<doc_node&>(root), path);
}

doc_node* find_node(doc_node& root, const key_path& path) {
  doc_node* n = &root;
  for (const key_segment& s : path.segments) {
    if (!n->is_table()) return nullptr;
    n = child(*n, s.name);
    if (n == nullptr) return nullptr;
    if (s.index) {
      if (!n->is_array() || *s.index >= n->items.size()) return nullptr;
      n = &n->items[*s.index];
    }
  }
  return n;
}

bool set_node(doc_node& root, const key_path& path, doc_node value) {
  if (path.segments.empty()) return false;
  doc_node* n = &root;
  for (std::size_t i = 0; i + 1 < path.segments.size(); ++i) {
    const key_segment& s = path.segments[i];
    if (!n->is_table()) return false;
    doc_node* next = child(*n, s.name);
    if (next == nullptr) {
      if (s.index) return false;
      n->entries.push_back({s.name, {}, make_table(false)});
      next = &n->entries.back().value;
    }
    if (s.index) {
      if (!next->is_array() || *s.index >= next->items.size()) return false;
      next = &next->items[*s.index];
    }
    n = next;
  }
  const key_segment& last = path.segments.back();
  if (!n->is_table()) return false;
  doc_node* existing = child(*n, last.name);
  if (last.index) {
    if (existing == nullptr || !existing->is_array() || *last.index >= existing->items.size()) return false;
    existing->items[*last.index] = std::move(value);
    return true;
  }
  if (existing != nullptr) {
    *existing = std::move(value);
  } else {
    n->entries.push_back({last.name, {}, std::move(value)});
  }
  return true;
}

bool remove_node(doc_node& root, const key_path& path) {
  if (path.segments.empty()) return false;
  key_path parent_path{std::vector<key_segment>(path.segments.begin(), path.segments.end() - 1)};
  doc_node* parent = parent_path.segments.empty() ? &root : find_node(root, parent_path);
  if (parent == nullptr || !parent->is_table()) return false;
  const key_segment& last = path.segments.back();
  const auto it = std::find_if(parent->entries.begin(), parent->entries.end(),
                               [&](const doc_entry& e) { return e.key == last.name; });
  if (it == parent->entries.end()) return false;
  if (!last.index) {
    parent->entries.erase(it);
    return true;
  }
  std::vector<doc_node>& items = it->value.items;
  if (!it->value.is_array() || *last.index >= items.size()) return false;
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(*last.index));
  // An empty array of tables would read back as an empty array: leave no trace.
  if (items.empty()) parent->entries.erase(it);
  return true;
}

doc_node make_string(std::string text) {
  doc_node n;
  n.type = doc_node::kind::string;
  n.text = std::move(text);
  return n;
}

doc_node make_integer(std::int64_t v) {
  doc_node n;
  n.type = doc_node::kind::integer;
  n.integer = v;
  return n;
}

doc_node make_table(bool inline_table) {
  doc_node n;
  n.type = doc_node::kind::table;
  n.inline_table = inline_table;
  return n;
}

}  // namespace twice::scenario_detail
