#include "scenario/words.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "sim/edit_distance.hpp"
#include "sim/quoted_text.hpp"
#include "scenario/double_text.hpp"

namespace twice::scenario_detail {
namespace {

constexpr std::size_t quoted_length_max = 40;

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The same words written another way: "maxReceiveCount", "max-receive-count".
std::string normalize(std::string_view word) {
  std::string out;
  for (const char c : word)
    if (c != '_' && c != '-' && c != ' ' && c != '.') out += lower(c);
  return out;
}

using sim::edit_distance;

// What people coming from Temporal, SQS, Kubernetes or the design notes
// write instead. A synonym is only offered when its target is allowed where
// the mistake was made.
constexpr std::array<std::pair<std::string_view, std::string_view>, 22> synonyms{{
    {"cap", "maximum_interval"},
    {"max_interval", "maximum_interval"},
    {"max_backoff", "maximum_interval"},
    {"maximum_backoff", "maximum_interval"},
    {"base", "initial_interval"},
    {"initial_backoff", "initial_interval"},
    {"backoff_coefficient", "coefficient"},
    {"multiplier", "coefficient"},
    {"max_attempts", "maximum_attempts"},
    {"attempts", "maximum_attempts"},
    {"max_receives", "max_receive_count"},
    {"dlq", "dead_letter_queue"},
    {"dead_letter", "dead_letter_queue"},
    {"crashes", "crash"},
    {"jobs", "job"},
    {"payments", "vendor"},
    {"refund", "vendor"},
    {"replicas", "count"},
    {"pods", "count"},
    {"terminationgraceperiodseconds", "grace_period"},
    {"delay_seconds", "enqueue_at"},
    {"expected", "expect"},
}};

}  // namespace

std::string format_number(double v) {
  const bool fixed = std::fabs(v) < 1e6 && (v == 0.0 || std::fabs(v) >= 1e-9);
  return fixed ? shortest_fixed_text(v) : shortest_text(v);
}

bool contains(std::span<const std::string_view> words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

std::string quote(std::string_view text) { return sim::quoted_text(text, '"', quoted_length_max); }

std::string describe_found(const doc_node& node) {
  switch (node.type) {
    case doc_node::kind::string:
      return "string " + quote(node.text);
    case doc_node::kind::integer:
      return "integer " + std::to_string(node.integer);
    case doc_node::kind::floating:
      return "float " + format_number(node.floating);
    case doc_node::kind::boolean:
      return node.boolean ? "boolean true" : "boolean false";
    case doc_node::kind::date_time:
      return "a date-time";
    case doc_node::kind::array:
      return "an array";
    case doc_node::kind::table:
      return "a table";
  }
  return "a value";
}

std::optional<std::string_view> closest(std::string_view word, std::span<const std::string_view> candidates) {
  const std::string normal = normalize(word);
  for (const std::string_view c : candidates)
    if (normalize(c) == normal) return c;
  for (const auto& [from, to] : synonyms)
    if (normalize(from) == normal && contains(candidates, to)) return to;
  std::optional<std::string_view> best;
  std::size_t best_score = std::numeric_limits<std::size_t>::max();
  for (const std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    // One edit in a short word, up to three in a long one.
    const std::size_t threshold = std::max<std::size_t>(1, std::min<std::size_t>(3, (c.size() + 1) / 3));
    std::size_t score = d <= threshold ? d : std::numeric_limits<std::size_t>::max();
    // "heartbeat" for heartbeat_interval, "visibility_timeout_s" for visibility_timeout.
    const bool prefix = (word.size() >= 3 && c.starts_with(word)) || (c.size() >= 4 && word.starts_with(c));
    if (prefix) score = std::min<std::size_t>(score, 2);
    if (score < best_score) {
      best_score = score;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  const std::optional<std::string_view> c = closest(word, candidates);
  if (!c) return {};
  return "; did you mean `" + std::string(*c) + "`?";
}

std::string join(std::span<const std::string_view> words) {
  std::string out;
  for (const std::string_view w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

std::string quoted_choices(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += quote(names[i]);
  }
  return out;
}

std::string child_path(std::string_view path, std::string_view key) {
  const bool bare =
      !key.empty() && std::all_of(key.begin(), key.end(), [](char c) { return is_name_char(c) && c != '.'; });
  std::string out(path);
  if (!out.empty()) out += '.';
  out += bare ? std::string(key) : quote(key);
  return out;
}

std::string index_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

}  // namespace twice::scenario_detail
