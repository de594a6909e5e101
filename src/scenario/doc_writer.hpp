#pragma once
// A parsed document back to TOML text: how `twice explore` writes the
// scenario it shrank. Reading the text back with parse_document gives the
// same tree (keys, values, array order, inline or not), so a scenario that
// loads from the tree loads from the file, setting for setting. Comments
// and the original layout are not kept: the writer puts scalars first, then
// each table as [path], then each array of tables as [[path]]; tables the
// file wrote inline stay inline.

#include <string>

#include "scenario/document.hpp"

namespace twice::scenario_detail {

std::string write_document(const doc_node& root);

// One value as TOML writes it inline: "30s" -> "\"30s\"", a table -> "{ a = 1 }".
std::string write_inline(const doc_node& value);

// A key, bare when it can be ("max_times") and quoted otherwise ("\"crash[0].at\"").
std::string write_key(std::string_view key);

}  // namespace twice::scenario_detail
