// [explore]: swarm mode and the ranges `twice explore` draws from. Each key
// of [explore.vary] is a key path as error messages print it ("crash[0].at",
// "vendor.error_rates.lost_response"); its value is [lo, hi] in that key's
// own type. Only values explore knows how to draw and write back may vary.

#include <algorithm>

#include "scenario/key_path.hpp"
#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

struct variable_key {
  std::string_view pattern;  // "[]" stands for an array index
  explore_value kind;
  std::int64_t lo;  // limits in the kind's unit; times are always 0 .. ten years
  std::int64_t hi;
};

constexpr std::int64_t us_per_s = 1'000'000;
constexpr std::int64_t day_us = 24 * 3600 * us_per_s;
constexpr std::int64_t ten_years_us = 87'600LL * 3600 * us_per_s;
constexpr std::int64_t year_us = 8'760LL * 3600 * us_per_s;
constexpr std::int64_t twelve_h_us = 12 * 3600 * us_per_s;
constexpr std::int64_t fourteen_days_us = 14 * day_us;  // SQS's longest retention

constexpr variable_key time_key(std::string_view p) { return {p, explore_value::time, 0, ten_years_us}; }
constexpr variable_key day_key(std::string_view p) { return {p, explore_value::duration, 0, day_us}; }
constexpr variable_key ppm_key(std::string_view p) { return {p, explore_value::probability, 0, 1'000'000}; }
constexpr variable_key int_key(std::string_view p, std::int64_t lo, std::int64_t hi) {
  return {p, explore_value::integer, lo, hi};
}

// The same limits the section loaders apply (load_settings.cpp, load_tools.cpp,
// load_jobs.cpp, load_faults.cpp); explore also loads each bound, so a limit
// missed here is still reported, only less precisely.
constexpr variable_key variable_keys[] = {
    int_key("workers.count", 1, 10'000),
    int_key("celery.prefetch_multiplier", 1, 1'000),
    int_key("kafka.partitions", 1, 10'000),
    int_key("kafka.max_poll_records", 1, 100'000),
    {"kafka.max_poll_interval", explore_value::duration, us_per_s, day_us},
    {"kafka.rebalance_timeout", explore_value::duration, us_per_s, day_us},
    {"kafka.session_timeout", explore_value::duration, 6 * us_per_s, 1800 * us_per_s},
    {"kafka.auto_commit_interval", explore_value::duration, 1000, day_us},
    int_key("store.pool_size", 1, 10'000),
    {"store.statement_latency", explore_value::duration, 0, 3600 * us_per_s},
    {"store.dead_row_cost", explore_value::duration, 1, us_per_s},
    {"store.transaction_timeout", explore_value::duration, 1000, day_us},
    time_key("store.long_transaction[].start"),
    time_key("store.long_transaction[].end"),
    {"queue.visibility_timeout", explore_value::duration, 0, twelve_h_us},
    {"queue.retention", explore_value::duration, 60 * us_per_s, fourteen_days_us},
    {"dead_letter_queue.retention", explore_value::duration, 60 * us_per_s, fourteen_days_us},
    {"dead_letter_queue.redrive_after", explore_value::duration, 0, fourteen_days_us},
    int_key("dead_letter_queue.redrives", 1, 1'000),
    {"dead_letter_queue.page_auto_resolve", explore_value::duration, 60 * us_per_s, fourteen_days_us},
    {"dead_letter_queue.age_alarm", explore_value::duration, 60 * us_per_s, fourteen_days_us},
    {"dead_letter_queue.renotify_every", explore_value::duration, 60 * us_per_s, fourteen_days_us},
    {"runtime.visibility_timeout", explore_value::duration, 0, twelve_h_us},
    {"runtime.heartbeat_interval", explore_value::duration, 1, twelve_h_us},
    {"runtime.execution_timeout", explore_value::duration, us_per_s, day_us},
    day_key("runtime.restart_delay"),
    day_key("runtime.liveness_probe.initial_delay"),
    {"runtime.liveness_probe.period", explore_value::duration, 1000, day_us},
    {"runtime.liveness_probe.timeout", explore_value::duration, 1000, day_us},
    int_key("runtime.liveness_probe.failure_threshold", 1, 1'000),
    day_key("runtime.liveness_probe.termination_grace"),
    {"runtime.orphan_rescue.rescue_after", explore_value::duration, us_per_s, day_us},
    {"runtime.orphan_rescue.interval", explore_value::duration, us_per_s, day_us},
    {"retry.initial_interval", explore_value::duration, 0, year_us},
    {"retry.maximum_interval", explore_value::duration, 0, year_us},
    int_key("retry.maximum_attempts", 0, 10'000),
    {"retry.circuit_breaker.window", explore_value::duration, 1000, day_us},
    int_key("retry.circuit_breaker.min_calls", 1, 1'000'000),
    int_key("retry.circuit_breaker.failure_percent", 1, 100),
    {"retry.circuit_breaker.open_for", explore_value::duration, 1000, day_us},
    ppm_key("vendor.error_rates.unavailable"),
    ppm_key("vendor.error_rates.rate_limited"),
    ppm_key("vendor.error_rates.internal_error"),
    ppm_key("vendor.error_rates.lost_request"),
    ppm_key("vendor.error_rates.lost_response"),
    day_key("vendor.latency.fixed"),
    day_key("vendor.client_timeout"),
    day_key("vendor.retry_after"),
    day_key("vendor.round_trip"),
    {"vendor.key_retention", explore_value::duration, 0, ten_years_us},
    int_key("vendor.capacity", 0, 1'000'000),
    int_key("vendor.servers", 0, 1'000'000),
    {"vendor.queue_timeout", explore_value::duration, 1, day_us},
    time_key("vendor.outage[].start"),
    time_key("vendor.outage[].end"),
    time_key("vendor.latency_spike[].start"),
    time_key("vendor.latency_spike[].end"),
    day_key("vendor.latency_spike[].extra"),
    // Any tool's: NAME stands for refund (also written [vendor], above),
    // email, model, read or a tool of the file's own.
    ppm_key("tools.NAME.error_rates.unavailable"),
    ppm_key("tools.NAME.error_rates.rate_limited"),
    ppm_key("tools.NAME.error_rates.internal_error"),
    ppm_key("tools.NAME.error_rates.lost_request"),
    ppm_key("tools.NAME.error_rates.lost_response"),
    day_key("tools.NAME.latency.fixed"),
    day_key("tools.NAME.client_timeout"),
    day_key("tools.NAME.retry_after"),
    day_key("tools.NAME.round_trip"),
    {"tools.NAME.key_retention", explore_value::duration, 0, ten_years_us},
    int_key("tools.NAME.capacity", 0, 1'000'000),
    time_key("tools.NAME.outage[].start"),
    time_key("tools.NAME.outage[].end"),
    time_key("tools.NAME.latency_spike[].start"),
    time_key("tools.NAME.latency_spike[].end"),
    day_key("tools.NAME.latency_spike[].extra"),
    int_key("tools.NAME.servers", 0, 1'000'000),
    {"tools.NAME.queue_timeout", explore_value::duration, 1, day_us},
    time_key("job[].enqueue_at"),
    int_key("job[].steps[].items", 1, 1'000),
    int_key("job_type[].steps[].items", 1, 1'000),
    int_key("workload.count", 0, 1'000'000),
    {"workload.interval", explore_value::duration, 1, day_us},
    ppm_key("workload.email_probability"),
    ppm_key("fault[].probability"),
    int_key("fault[].attempt", 0, 10'000),
    int_key("fault[].worker", 0, 9'999),
    int_key("fault[].step", 1, 1'000),
    int_key("fault[].max_times", 0, 1'000'000),
    time_key("crash[].at"),
    int_key("crash[].worker", 0, 9'999),
    time_key("deploy[].at"),
    int_key("deploy[].batch_size", 1, 10'000),
    day_key("deploy[].batch_interval"),
    day_key("deploy[].grace_period"),
    day_key("deploy[].startup"),
    int_key("queue_fault[].nth", 1, 10'000),
    ppm_key("queue_fault[].probability"),
};

// A pattern with the user's indices put back ("crash[].at" -> "crash[2].at"),
// so a suggestion reads as the key path the user meant.
std::string with_indices(std::string_view pattern, const std::vector<std::size_t>& indices) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.substr(i, 2) == "[]") {
      out += '[' + std::to_string(next < indices.size() ? indices[next] : 0) + ']';
      ++next;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// Every indexed segment must name an element the file has: a range for
// crash[3] when there are two crashes could never apply.
bool check_elements(const table_reader& root, const key_path& p, const doc_node& at, const std::string& where,
                    std::string_view path_text) {
  const doc_node empty;             // a table with no entries: what an absent table holds
  const doc_node* table = nullptr;  // the table holding the current segment; nullptr: the root
  std::string prefix;
  for (std::size_t s = 0; s < p.segments.size(); ++s) {
    const key_segment& seg = p.segments[s];
    const doc_node* n = table == nullptr ? root.get(seg.name) : table->find(seg.name);
    prefix = prefix.empty() ? seg.name : prefix + "." + seg.name;
    if (!seg.index) {
      const bool element_below = std::any_of(p.segments.begin() + static_cast<std::ptrdiff_t>(s) + 1, p.segments.end(),
                                             [](const key_segment& later) { return later.index.has_value(); });
      // Absent tables and keys take their defaults; an element below an absent table cannot exist.
      const bool absent = n == nullptr || !n->is_table();
      if (absent && !element_below) return true;
      table = absent ? &empty : n;
      continue;
    }
    const std::size_t count = n != nullptr && n->is_array() ? n->items.size() : 0;
    if (*seg.index >= count) {
      root.diag().error(at.pos, where,
                        std::string(path_text) + " names element " + std::to_string(*seg.index) + " of `" + prefix +
                            "`, but the file has " + std::to_string(count) +
                            (count == 1 ? " such table" : " such tables") + (count == 0 ? "" : " (numbered from 0)"));
      return false;
    }
    table = &n->items[*seg.index];
    if (!table->is_table()) return true;  // reported by the section's loader
    prefix += "[" + std::to_string(*seg.index) + "]";
  }
  return true;
}

std::optional<std::int64_t> read_bound(diagnostics& d, const doc_node& n, const std::string& path,
                                       const variable_key& key) {
  switch (key.kind) {
    case explore_value::time:
    case explore_value::duration: {
      const auto v = read_duration(d, n, path, {duration::from_us(key.lo), duration::from_us(key.hi)});
      if (!v) return std::nullopt;
      return v->us();
    }
    case explore_value::probability: {
      const auto v = read_ppm(d, n, path);
      if (!v) return std::nullopt;
      return static_cast<std::int64_t>(*v);
    }
    case explore_value::integer:
      return read_integer(d, n, path, {key.lo, key.hi});
  }
  return std::nullopt;
}

std::string_view example_range(explore_value kind) {
  switch (kind) {
    case explore_value::time:
      return "[\"1s\", \"30s\"]";
    case explore_value::duration:
      return "[\"100ms\", \"5s\"]";
    case explore_value::probability:
      return "[0, 0.5]";
    case explore_value::integer:
      return "[1, 4]";
  }
  return "";
}

std::string describe_bound(explore_value kind, std::int64_t v) {
  if (kind == explore_value::time || kind == explore_value::duration) return sim::format_duration(duration::from_us(v));
  if (kind == explore_value::probability) return std::to_string(v) + " ppm";
  return std::to_string(v);
}

// "tools.upload.servers" -> "tools.NAME.servers" when upload is a tool the
// file may call (not the payment vendor, which is [vendor]); `tool` gets the name.
std::string tool_pattern(const key_path& p, std::span<const std::string_view> tools, std::string& tool) {
  std::string pattern = p.pattern();
  if (p.segments.size() < 2 || p.segments[0].name != "tools" || p.segments[0].index || p.segments[1].index)
    return pattern;
  const std::string& name = p.segments[1].name;
  if (name == "refund") return pattern;
  if (std::find(tools.begin(), tools.end(), name) == tools.end()) {
    // A mistyped name: suggestions name the tool it is closest to.
    if (const std::optional<std::string_view> near = closest(name, tools); near && *near != "refund") tool = *near;
    return pattern;
  }
  tool = name;
  return "tools.NAME" + pattern.substr(std::string_view("tools.").size() + name.size());
}

void load_range(const table_reader& root, const doc_entry& e, std::span<const std::string_view> tools,
                explore_spec& out) {
  diagnostics& d = root.diag();
  const std::string where = child_path("explore.vary", e.key);
  const std::optional<key_path> split_key = parse_key_path(e.key);
  const variable_key* known = nullptr;
  std::string tool = "email";  // what NAME reads as in a suggestion
  if (split_key) {
    const std::string pattern = tool_pattern(*split_key, tools, tool);
    for (const variable_key& k : variable_keys)
      if (k.pattern == pattern) known = &k;
  }
  if (known == nullptr && e.value.is_table()) {
    d.error(e.key_pos, where,
            "a key path goes in quotes, or TOML reads its dots as tables: write \"crash[0].at\" = [\"1s\", \"30s\"]");
    return;
  }
  if (known == nullptr) {
    std::vector<std::string> shown;
    for (const variable_key& k : variable_keys) {
      std::string pattern(k.pattern);
      if (pattern.starts_with("tools.NAME.")) pattern.replace(6, 4, tool);
      shown.push_back(with_indices(pattern, split_key ? split_key->indices() : std::vector<std::size_t>{}));
    }
    std::vector<std::string_view> candidates(shown.begin(), shown.end());
    std::string hint = did_you_mean(e.key, candidates);
    if (hint.empty()) hint = "; see docs/scenario-format.md, [explore], for the keys that may vary";
    d.error(e.key_pos, where, "not a key explore can vary" + hint);
    return;
  }
  const std::vector<doc_node>& items = e.value.items;
  if (!e.value.is_array() || items.size() != 2) {
    d.error(e.value.pos, where,
            "expected a range [lo, hi] like " + std::string(example_range(known->kind)) + ", found " +
                (e.value.is_array() ? std::to_string(items.size()) + (items.size() == 1 ? " value" : " values")
                                    : describe_found(e.value)));
    return;
  }
  const auto lo = read_bound(d, items[0], index_path(where, 0), *known);
  const auto hi = read_bound(d, items[1], index_path(where, 1), *known);
  if (!lo || !hi) return;
  if (*hi < *lo) {
    d.error(e.value.pos, where,
            "the upper bound " + describe_bound(known->kind, *hi) + " is below the lower bound " +
                describe_bound(known->kind, *lo));
    return;
  }
  // Resolved against the whole file, so this table may come before the sections it names.
  if (!check_elements(root, *split_key, e.value, where, e.key)) return;
  out.vary.push_back({e.key, known->kind, *lo, *hi, e.value.pos.line, e.value.pos.column});
}

}  // namespace

void load_explore(const table_reader& root, load_state& s, explore_spec& out) {
  const doc_node* t = root.table("explore");
  if (t == nullptr) return;
  out.present = true;
  const table_reader r(s.d, *t, "explore", {"swarm", "vary"});
  r.boolean("swarm", out.swarm);
  if (const doc_node* vary = r.table("vary")) {
    for (const doc_entry& e : vary->entries) load_range(root, e, s.tool_names, out);
  }
}

}  // namespace twice::scenario_detail
