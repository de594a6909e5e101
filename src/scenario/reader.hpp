#pragma once
// Typed, located reads from a parsed document, shared by the section
// loaders. Every read either yields a valid value or reports why not (where,
// which key, what was expected, what was found) and yields nothing, so a
// loader can go on and report the next problem too.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/document.hpp"
#include "scenario/words.hpp"
#include <twice/scenario/scenario.hpp>
#include <twice/sim/time.hpp>

namespace twice::scenario_detail {

// Collects errors; bounded so a million bad jobs cannot flood a terminal.
class diagnostics {
 public:
  static constexpr std::size_t errors_max = 100;

  explicit diagnostics(std::string file) : file_(std::move(file)) {}

  void error(source_pos at, std::string key, std::string message);
  bool empty() const { return errors_.empty() && dropped_ == 0; }
  const std::string& file() const { return file_; }
  // In the order of their place in the file, then of discovery.
  std::vector<scenario_error> take();

 private:
  std::string file_;
  std::vector<scenario_error> errors_;
  std::size_t dropped_ = 0;
};

// ---- limits ------------------------------------------------------------------

struct duration_limits {
  sim::duration lo = sim::duration::zero();
  sim::duration hi = sim::duration::max();
  std::string_view why = {};  // appended to the range: " (SQS's limit)"
};

struct integer_limits {
  std::int64_t lo = 0;
  std::int64_t hi = INT64_MAX;
  std::string_view why = {};
};

template <class E>
struct named {
  std::string_view name;
  E value;
};

// ---- reads of one value ------------------------------------------------------

std::optional<sim::duration> read_duration(diagnostics& d, const doc_node& n, const std::string& path,
                                           duration_limits limits);
std::optional<std::int64_t> read_integer(diagnostics& d, const doc_node& n, const std::string& path,
                                         integer_limits limits);
// Stripe's largest amount (eight digits of the smallest unit). Also what
// keeps every sum of money exact: int64 cents overflow only after 9.2e10
// payments of it, days of simulation past any budget a run is given. The
// ledger sums are checked all the same (sim/checked.hpp): their rows are
// bounded only by the event budget.
inline constexpr std::int64_t cents_max = 99'999'999;
std::optional<std::int64_t> read_cents(diagnostics& d, const doc_node& n, const std::string& path);
std::optional<bool> read_bool(diagnostics& d, const doc_node& n, const std::string& path);
std::optional<std::string> read_string(diagnostics& d, const doc_node& n, const std::string& path);
// A non-empty name of letters, digits, '_', '-' and '.' (ids, SHAs, queue
// names): it goes into trace records and keys, where anything else would
// be ambiguous ("a:b" in "a:b:step_3:refund") or unreadable.
std::optional<std::string> read_identifier(diagnostics& d, const doc_node& n, const std::string& path);
// A probability in [0, 1] as exact parts per million: a number or a decimal
// string with at most six decimals.
std::optional<std::uint32_t> read_ppm(diagnostics& d, const doc_node& n, const std::string& path);
// A decimal in [lo, hi] as exact thousandths (a number or a decimal string).
std::optional<std::uint32_t> read_milli(diagnostics& d, const doc_node& n, const std::string& path,
                                        std::uint32_t lo_milli, std::uint32_t hi_milli);
// An instant, written as the time since the run began ("90s").
std::optional<sim::instant> read_instant(diagnostics& d, const doc_node& n, const std::string& path);

std::optional<std::size_t> read_choice_index(diagnostics& d, const doc_node& n, const std::string& path,
                                             std::span<const std::string_view> names);

template <class E, std::size_t N>
std::optional<E> read_choice(diagnostics& d, const doc_node& n, const std::string& path, const named<E> (&choices)[N]) {
  std::string_view names[N];
  for (std::size_t i = 0; i < N; ++i) names[i] = choices[i].name;
  const std::optional<std::size_t> i = read_choice_index(d, n, path, names);
  if (!i) return std::nullopt;
  return choices[*i].value;
}

// The latest instant anything in a scenario may happen at (ten years): far
// beyond any story, and far enough below the clock's range that adding a
// retention or a backoff to it cannot overflow.
inline constexpr sim::duration instant_offset_max = sim::duration::from_s(87'600LL * 3600);

// ---- one table -----------------------------------------------------------------

// A table and its path. Construction reports every key not in `allowed`
// (with a suggestion), so unknown keys are errors at every level.
class table_reader {
 public:
  table_reader(diagnostics& d, const doc_node& table, std::string path,
               std::initializer_list<std::string_view> allowed);

  diagnostics& diag() const { return *d_; }
  const std::string& path() const { return path_; }
  source_pos pos() const { return table_->pos; }
  const doc_node* get(std::string_view key) const { return table_->find(key); }
  std::string path_of(std::string_view key) const { return child_path(path_, key); }
  // Where a key's value is; the table's own place when the key is absent.
  source_pos pos_of(std::string_view key) const;

  // Each read writes `out` only when the key is present and its value valid.
  bool duration(std::string_view key, sim::duration& out, duration_limits limits = {}) const;
  bool duration(std::string_view key, std::optional<sim::duration>& out, duration_limits limits = {}) const;
  bool instant(std::string_view key, sim::instant& out) const;
  bool boolean(std::string_view key, bool& out) const;
  bool string(std::string_view key, std::string& out) const;
  bool identifier(std::string_view key, std::string& out) const;
  bool ppm(std::string_view key, std::uint32_t& out) const;
  bool cents(std::string_view key, std::int64_t& out) const;

  template <class Int>
  bool integer(std::string_view key, Int& out, integer_limits limits) const {
    const doc_node* n = get(key);
    if (n == nullptr) return false;
    const std::optional<std::int64_t> v = read_integer(*d_, *n, path_of(key), limits);
    if (!v) return false;
    out = static_cast<Int>(*v);
    return true;
  }

  template <class E, std::size_t N>
  bool choice(std::string_view key, E& out, const named<E> (&choices)[N]) const {
    const doc_node* n = get(key);
    if (n == nullptr) return false;
    const std::optional<E> v = read_choice(*d_, *n, path_of(key), choices);
    if (!v) return false;
    out = *v;
    return true;
  }

  // A required key that is absent: reported at the table.
  void missing(std::string_view key, std::string_view expected) const;

  // A sub-table ([retry], or an inline { ... }); nullptr when absent or not a table.
  const doc_node* table(std::string_view key) const;
  // The tables of an array of tables ([[job]]) with their paths ("job[2]");
  // items that are not tables are reported and left out.
  struct item {
    const doc_node* table;
    std::string path;
  };
  std::vector<item> tables(std::string_view key) const;
  // An array's items; nullptr when absent or not an array.
  const std::vector<doc_node>* array(std::string_view key, std::string_view expected) const;

 private:
  diagnostics* d_;
  const doc_node* table_;
  std::string path_;
};

// ---- named exceptions with a reason ----------------------------------------

// One { <name_key> = NAME, reason = TEXT } table of an array such as
// `expect.ignore` or `lint.allow`: both keys required, the reason not blank.
// The name is read as a string; checking it against the known names is the
// caller's (with `name_node` and `name_path` to report at).
struct reasoned_name {
  std::string name;
  std::string reason;
  const doc_node* name_node = nullptr;
  std::string name_path;
};
std::vector<reasoned_name> read_reasoned_names(const table_reader& r, std::string_view key, std::string_view name_key,
                                               std::string_view name_expected);

}  // namespace twice::scenario_detail
