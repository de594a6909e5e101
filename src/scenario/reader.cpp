#include "scenario/reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "sim/duration_text.hpp"

namespace twice::scenario_detail {

// ---- diagnostics -------------------------------------------------------------

void diagnostics::error(source_pos at, std::string key, std::string message) {
  if (errors_.size() >= errors_max) {
    ++dropped_;
    return;
  }
  errors_.push_back({file_, at.line, at.column, std::move(key), std::move(message)});
}

std::vector<scenario_error> diagnostics::take() {
  std::stable_sort(errors_.begin(), errors_.end(), [](const scenario_error& a, const scenario_error& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  std::vector<scenario_error> out = std::move(errors_);
  if (dropped_ > 0) {
    out.push_back({file_, 0, 0, {}, std::to_string(dropped_) + " more errors not shown"});
  }
  errors_.clear();
  dropped_ = 0;
  return out;
}

// ---- reads of one value ------------------------------------------------------

namespace {

std::string expected_found(std::string_view expected, const doc_node& n) {
  return "expected " + std::string(expected) + ", found " + describe_found(n);
}

std::string duration_range_problem(sim::duration v, duration_limits limits) {
  const std::string why(limits.why);
  const std::string found = ", found " + sim::format_duration(v);
  if (limits.lo == sim::duration::zero()) return "must be at most " + sim::format_duration(limits.hi) + why + found;
  if (limits.hi == sim::duration::max()) return "must be at least " + sim::format_duration(limits.lo) + why + found;
  return "must be between " + sim::format_duration(limits.lo) + " and " + sim::format_duration(limits.hi) + why + found;
}

std::string integer_range_problem(std::int64_t v, integer_limits limits) {
  const std::string why(limits.why);
  const std::string found = ", found " + std::to_string(v);
  if (limits.hi == std::numeric_limits<std::int64_t>::max()) {
    return "must be at least " + std::to_string(limits.lo) + why + found;
  }
  return "must be between " + std::to_string(limits.lo) + " and " + std::to_string(limits.hi) + why + found;
}

// A decimal in exact units of 10^-decimals: the kernel holds probabilities
// and coefficients as integer ratios, so the file's value must be one.
struct fixed_point {
  unsigned decimals = 0;        // 6: millionths, 3: thousandths
  std::uint64_t lo_scaled = 0;  // inclusive range, in units
  std::uint64_t hi_scaled = 0;
  std::string_view expected;  // "a probability between 0 and 1 like 0.01"
  std::string_view plural;    // "probabilities"
  std::string_view range;     // "between 0 and 1"
  std::string_view why;       // appended to the range problem
};

std::uint64_t scale_of(unsigned decimals) {
  std::uint64_t s = 1;
  for (unsigned i = 0; i < decimals; ++i) s *= 10;
  return s;
}

std::string step_text(unsigned decimals) {
  if (decimals == 0) return "1";
  return "0." + std::string(decimals - 1, '0') + "1";
}

std::string precision_problem(std::string_view written, const fixed_point& f) {
  return std::string(written) + " is more precise than the simulator keeps: " + std::string(f.plural) +
         " are exact to " + std::to_string(f.decimals) + " decimals (steps of " + step_text(f.decimals) + ")";
}

std::string fixed_range_problem(std::string_view written, const fixed_point& f) {
  return "must be " + std::string(f.range) + std::string(f.why) + ", found " + std::string(written);
}

struct decimal_text {
  bool ok = false;
  bool too_precise = false;
  bool too_large = false;
  std::uint64_t scaled = 0;
};

// Digits, optionally '.' and digits; no sign, exponent or spaces. Digits
// past the kept decimals must be zeros.
decimal_text parse_decimal(std::string_view text, unsigned decimals) {
  decimal_text out;
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || !digits(whole) || !digits(frac) || (dot != std::string_view::npos && frac.empty())) return out;
  std::uint64_t value = 0;
  const auto push = [&](char c) {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, static_cast<std::uint64_t>(c - '0'), &value))
      out.too_large = true;
  };
  for (const char c : whole) push(c);
  for (std::size_t i = 0; i < decimals; ++i) push(i < frac.size() ? frac[i] : '0');
  for (std::size_t i = decimals; i < frac.size(); ++i)
    if (frac[i] != '0') out.too_precise = true;
  out.ok = true;
  out.scaled = value;
  return out;
}

std::optional<std::uint64_t> read_fixed(diagnostics& d, const doc_node& n, const std::string& path,
                                        const fixed_point& f) {
  const std::uint64_t scale = scale_of(f.decimals);
  std::string written;
  std::uint64_t scaled = 0;
  bool in_range = true;
  switch (n.type) {
    case doc_node::kind::integer:
      written = std::to_string(n.integer);
      in_range = n.integer >= 0 && static_cast<std::uint64_t>(n.integer) <= f.hi_scaled / scale;
      if (in_range) scaled = static_cast<std::uint64_t>(n.integer) * scale;
      break;
    case doc_node::kind::floating: {
      written = format_number(n.floating);
      const double hi = static_cast<double>(f.hi_scaled) / static_cast<double>(scale);
      in_range = std::isfinite(n.floating) && n.floating >= 0.0 && n.floating <= hi;
      if (!in_range) break;
      scaled = static_cast<std::uint64_t>(std::llround(n.floating * static_cast<double>(scale)));
      // Exact when the nearest double to scaled/scale is the value written:
      // both are correctly rounded images of the same decimal.
      if (static_cast<double>(scaled) / static_cast<double>(scale) != n.floating) {
        d.error(n.pos, path, precision_problem(written, f));
        return std::nullopt;
      }
      break;
    }
    case doc_node::kind::string: {
      written = n.text;
      const decimal_text t = parse_decimal(n.text, f.decimals);
      if (!t.ok) {
        d.error(n.pos, path, expected_found(f.expected, n));
        return std::nullopt;
      }
      if (t.too_precise) {
        d.error(n.pos, path, precision_problem(written, f));
        return std::nullopt;
      }
      in_range = !t.too_large;
      scaled = t.scaled;
      break;
    }
    default:
      d.error(n.pos, path, expected_found(f.expected, n));
      return std::nullopt;
  }
  if (!in_range || scaled < f.lo_scaled || scaled > f.hi_scaled) {
    d.error(n.pos, path, fixed_range_problem(written, f));
    return std::nullopt;
  }
  return scaled;
}

}  // namespace

std::optional<sim::duration> read_duration(diagnostics& d, const doc_node& n, const std::string& path,
                                           duration_limits limits) {
  if (n.type != doc_node::kind::string) {
    d.error(n.pos, path, expected_found("a duration string like \"30s\"", n));
    return std::nullopt;
  }
  const sim::result<sim::duration> r = sim::parse_duration(n.text);
  if (!r) {
    d.error(n.pos, path, r.error());
    return std::nullopt;
  }
  if (r.value() < limits.lo || r.value() > limits.hi) {
    d.error(n.pos, path, duration_range_problem(r.value(), limits));
    return std::nullopt;
  }
  return r.value();
}

std::optional<std::int64_t> read_integer(diagnostics& d, const doc_node& n, const std::string& path,
                                         integer_limits limits) {
  if (n.type != doc_node::kind::integer) {
    d.error(n.pos, path, expected_found("an integer", n));
    return std::nullopt;
  }
  if (n.integer < limits.lo || n.integer > limits.hi) {
    d.error(n.pos, path, integer_range_problem(n.integer, limits));
    return std::nullopt;
  }
  return n.integer;
}

std::optional<std::int64_t> read_cents(diagnostics& d, const doc_node& n, const std::string& path) {
  if (n.type != doc_node::kind::integer) {
    d.error(n.pos, path, expected_found("an amount in whole cents like 1999", n));
    return std::nullopt;
  }
  if (n.integer < 0) {
    d.error(n.pos, path, "amounts cannot be negative, found " + std::to_string(n.integer) + " cents");
    return std::nullopt;
  }
  if (n.integer > cents_max) {
    d.error(n.pos, path,
            "must be at most " + std::to_string(cents_max) + " cents (Stripe's limit, $999,999.99), found " +
                std::to_string(n.integer));
    return std::nullopt;
  }
  return n.integer;
}

std::optional<bool> read_bool(diagnostics& d, const doc_node& n, const std::string& path) {
  if (n.type != doc_node::kind::boolean) {
    d.error(n.pos, path, expected_found("true or false", n));
    return std::nullopt;
  }
  return n.boolean;
}

std::optional<std::string> read_string(diagnostics& d, const doc_node& n, const std::string& path) {
  if (n.type != doc_node::kind::string) {
    d.error(n.pos, path, expected_found("a string", n));
    return std::nullopt;
  }
  return n.text;
}

std::optional<std::string> read_identifier(diagnostics& d, const doc_node& n, const std::string& path) {
  constexpr std::size_t length_max = 128;
  const std::optional<std::string> s = read_string(d, n, path);
  if (!s) return std::nullopt;
  if (s->empty() || s->size() > length_max || !std::all_of(s->begin(), s->end(), is_name_char)) {
    d.error(n.pos, path, "expected 1 to 128 letters, digits, '_', '-' or '.', found " + quote(*s));
    return std::nullopt;
  }
  return s;
}

std::optional<std::uint32_t> read_ppm(diagnostics& d, const doc_node& n, const std::string& path) {
  static constexpr fixed_point probability{
      6, 0, 1'000'000, "a probability between 0 and 1 like 0.01", "probabilities", "between 0 and 1", ""};
  const std::optional<std::uint64_t> v = read_fixed(d, n, path, probability);
  if (!v) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

std::optional<std::uint32_t> read_milli(diagnostics& d, const doc_node& n, const std::string& path,
                                        std::uint32_t lo_milli, std::uint32_t hi_milli) {
  const std::string range = "between " + std::to_string(lo_milli / 1000) + " and " + std::to_string(hi_milli / 1000);
  const fixed_point f{3,
                      lo_milli,
                      hi_milli,
                      "a decimal number like 2.0 or \"1.5\"",
                      "coefficients",
                      range,
                      " (below 1 the backoff would shrink)"};
  const std::optional<std::uint64_t> v = read_fixed(d, n, path, f);
  if (!v) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

std::optional<sim::instant> read_instant(diagnostics& d, const doc_node& n, const std::string& path) {
  const std::optional<sim::duration> v =
      read_duration(d, n, path, {sim::duration::zero(), instant_offset_max, " after the start"});
  if (!v) return std::nullopt;
  return sim::instant::epoch() + *v;
}

std::optional<std::size_t> read_choice_index(diagnostics& d, const doc_node& n, const std::string& path,
                                             std::span<const std::string_view> names) {
  const std::string expected = quoted_choices(names);
  if (n.type != doc_node::kind::string) {
    d.error(n.pos, path, expected_found(expected, n));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == n.text) return i;
  d.error(n.pos, path, expected_found(expected, n) + did_you_mean(n.text, names));
  return std::nullopt;
}

// ---- table_reader --------------------------------------------------------------

table_reader::table_reader(diagnostics& d, const doc_node& table, std::string path,
                           std::initializer_list<std::string_view> allowed_keys)
    : d_(&d), table_(&table), path_(std::move(path)) {
  const std::span<const std::string_view> keys(allowed_keys.begin(), allowed_keys.size());
  for (const doc_entry& e : table.entries) {
    if (contains(keys, e.key)) continue;
    std::string hint = did_you_mean(e.key, keys);
    if (hint.empty()) hint = "; expected one of " + join(keys);
    d.error(e.key_pos, child_path(path_, e.key), "unknown key" + hint);
  }
}

source_pos table_reader::pos_of(std::string_view key) const {
  const doc_node* n = get(key);
  return n != nullptr ? n->pos : table_->pos;
}

bool table_reader::duration(std::string_view key, sim::duration& out, duration_limits limits) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  const std::optional<sim::duration> v = read_duration(*d_, *n, path_of(key), limits);
  if (v) out = *v;
  return v.has_value();
}

bool table_reader::duration(std::string_view key, std::optional<sim::duration>& out, duration_limits limits) const {
  sim::duration v;
  if (!duration(key, v, limits)) return false;
  out = v;
  return true;
}

bool table_reader::instant(std::string_view key, sim::instant& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  const std::optional<sim::instant> v = read_instant(*d_, *n, path_of(key));
  if (v) out = *v;
  return v.has_value();
}

bool table_reader::boolean(std::string_view key, bool& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  const std::optional<bool> v = read_bool(*d_, *n, path_of(key));
  if (v) out = *v;
  return v.has_value();
}

bool table_reader::string(std::string_view key, std::string& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  std::optional<std::string> v = read_string(*d_, *n, path_of(key));
  if (v) out = std::move(*v);
  return v.has_value();
}

bool table_reader::identifier(std::string_view key, std::string& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  std::optional<std::string> v = read_identifier(*d_, *n, path_of(key));
  if (v) out = std::move(*v);
  return v.has_value();
}

bool table_reader::ppm(std::string_view key, std::uint32_t& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  const std::optional<std::uint32_t> v = read_ppm(*d_, *n, path_of(key));
  if (v) out = *v;
  return v.has_value();
}

bool table_reader::cents(std::string_view key, std::int64_t& out) const {
  const doc_node* n = get(key);
  if (n == nullptr) return false;
  const std::optional<std::int64_t> v = read_cents(*d_, *n, path_of(key));
  if (v) out = *v;
  return v.has_value();
}

void table_reader::missing(std::string_view key, std::string_view expected) const {
  d_->error(table_->pos, path_of(key), "required key is missing; expected " + std::string(expected));
}

const doc_node* table_reader::table(std::string_view key) const {
  const doc_node* n = get(key);
  if (n == nullptr) return nullptr;
  if (!n->is_table()) {
    const std::string path = path_of(key);
    d_->error(n->pos, path, expected_found("a table ([" + path + "] or { ... })", *n));
    return nullptr;
  }
  return n;
}

std::vector<table_reader::item> table_reader::tables(std::string_view key) const {
  std::vector<item> out;
  const doc_node* n = get(key);
  if (n == nullptr) return out;
  const std::string path = path_of(key);
  const std::string header = "[[" + path + "]]";
  if (n->is_table()) {
    d_->error(n->pos, path,
              "expected an array of tables (" + header + "), found a single table; write " + header + " for each one");
    return out;
  }
  if (!n->is_array()) {
    d_->error(n->pos, path, expected_found("an array of tables (" + header + ")", *n));
    return out;
  }
  for (std::size_t i = 0; i < n->items.size(); ++i) {
    if (n->items[i].is_table()) {
      out.push_back({&n->items[i], index_path(path, i)});
    } else {
      d_->error(n->items[i].pos, index_path(path, i),
                expected_found("a table (" + header + " or { ... })", n->items[i]));
    }
  }
  return out;
}

const std::vector<doc_node>* table_reader::array(std::string_view key, std::string_view expected) const {
  const doc_node* n = get(key);
  if (n == nullptr) return nullptr;
  if (!n->is_array()) {
    d_->error(n->pos, path_of(key), expected_found(expected, *n));
    return nullptr;
  }
  return &n->items;
}

std::vector<reasoned_name> read_reasoned_names(const table_reader& r, std::string_view key, std::string_view name_key,
                                               std::string_view name_expected) {
  std::vector<reasoned_name> out;
  for (const table_reader::item& item : r.tables(key)) {
    const table_reader t(r.diag(), *item.table, item.path, {name_key, "reason"});
    if (t.get(name_key) == nullptr) t.missing(name_key, name_expected);
    if (t.get("reason") == nullptr) t.missing("reason", "a sentence saying why");
    reasoned_name n;
    bool reasoned = t.string("reason", n.reason);
    if (reasoned && n.reason.find_first_not_of(" \t") == std::string::npos) {
      t.diag().error(t.pos_of("reason"), t.path_of("reason"), "expected a sentence saying why, found an empty string");
      reasoned = false;
    }
    if (!t.string(name_key, n.name) || !reasoned) continue;
    n.name_node = t.get(name_key);
    n.name_path = t.path_of(name_key);
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace twice::scenario_detail
