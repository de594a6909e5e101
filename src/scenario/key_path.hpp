#pragma once
// Key paths as error messages print them ("crash[0].at",
// "vendor.error_rates.lost_response"), parsed, and looked up or changed in a
// parsed document. [explore.vary] names the values it varies this way, and
// `twice explore` edits a scenario through them.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/document.hpp"

namespace twice::scenario_detail {

struct key_segment {
  std::string name;
  std::optional<std::size_t> index;  // "crash[0]": an element of an array of tables
};

struct key_path {
  std::vector<key_segment> segments;

  // "crash[].at": the path with its indices left out.
  std::string pattern() const;
  std::vector<std::size_t> indices() const;
  std::string to_string() const;
};

// Names of letters, digits, '_' and '-', each optionally followed by [N],
// joined by '.'; nullopt for anything else.
std::optional<key_path> parse_key_path(std::string_view text);

// The node a path names; nullptr when any part of it is absent.
const doc_node* find_node(const doc_node& root, const key_path& path);
doc_node* find_node(doc_node& root, const key_path& path);

// Sets the value a path names, creating the tables on the way (not array
// elements: those must exist). False when an element is missing or a part
// of the path is not a table.
bool set_node(doc_node& root, const key_path& path, doc_node value);

// Removes the key (or array element) a path names; false when absent.
bool remove_node(doc_node& root, const key_path& path);

doc_node make_string(std::string text);
doc_node make_integer(std::int64_t v);
doc_node make_table(bool inline_table);

}  // namespace twice::scenario_detail
