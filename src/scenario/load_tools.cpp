// [tools.NAME] (the built-in refund, email, model and read, and any tool of
// the scenario's own) and [vendor] (the refund tool's older name): what each
// far side does with a key, its latency, error rates, timeouts, capacity,
// servers and fault windows.

#include <algorithm>
#include <memory>

#include <twice/world/registry.hpp>

#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

constexpr duration_limits day_limits{duration::zero(), duration::from_s(24 * 3600)};
constexpr std::string_view latency_shapes =
    "{ fixed = \"200ms\" }, { uniform = [\"10ms\", \"50ms\"] }, { p50 = \"300ms\", p99 = \"2s\" } or { mean = "
    "\"10ms\", sd = \"2ms\" }";

std::optional<latency_model> load_uniform(const table_reader& r) {
  const std::vector<doc_node>* bounds = r.array("uniform", "an array of two durations like [\"10ms\", \"50ms\"]");
  if (bounds == nullptr) return std::nullopt;
  const std::string path = r.path_of("uniform");
  if (bounds->size() != 2) {
    r.diag().error(r.pos_of("uniform"), path,
                   "expected an array of two durations like [\"10ms\", \"50ms\"], found " +
                       std::to_string(bounds->size()) + (bounds->size() == 1 ? " value" : " values"));
    return std::nullopt;
  }
  const auto lo = read_duration(r.diag(), (*bounds)[0], index_path(path, 0), day_limits);
  const auto hi = read_duration(r.diag(), (*bounds)[1], index_path(path, 1), day_limits);
  if (!lo || !hi) return std::nullopt;
  if (*hi < *lo) {
    r.diag().error(
        r.pos_of("uniform"), path,
        "the upper bound " + sim::format_duration(*hi) + " is below the lower bound " + sim::format_duration(*lo));
    return std::nullopt;
  }
  return latency_model::uniform(*lo, *hi);
}

std::optional<latency_model> load_lognormal(const table_reader& r) {
  const bool has_p50 = r.get("p50") != nullptr;
  const bool has_p99 = r.get("p99") != nullptr;
  if (!has_p50 || !has_p99) {
    r.missing(has_p50 ? "p99" : "p50", "p50 and p99 together, like { p50 = \"300ms\", p99 = \"2s\" }");
    return std::nullopt;
  }
  duration p50, p99;
  const bool ok50 = r.duration("p50", p50, {duration::from_us(1), duration::from_s(24 * 3600)});
  const bool ok99 = r.duration("p99", p99, {duration::from_us(1), duration::from_s(24 * 3600)});
  if (!ok50 || !ok99) return std::nullopt;
  if (p99 < p50) {
    r.diag().error(
        r.pos_of("p99"), r.path_of("p99"),
        "the 99th percentile " + sim::format_duration(p99) + " is below the median p50 = " + sim::format_duration(p50));
    return std::nullopt;
  }
  return latency_model::lognormal(p50, p99);
}

// |normal(mean, sd)|, a network leg as Brooker's backoff simulator draws one.
std::optional<latency_model> load_normal(const table_reader& r) {
  const bool has_mean = r.get("mean") != nullptr;
  const bool has_sd = r.get("sd") != nullptr;
  if (!has_mean || !has_sd) {
    r.missing(has_mean ? "sd" : "mean", "mean and sd together, like { mean = \"10ms\", sd = \"2ms\" }");
    return std::nullopt;
  }
  duration mean, sd;
  const bool ok_mean = r.duration("mean", mean, day_limits);
  const bool ok_sd = r.duration("sd", sd, day_limits);
  if (!ok_mean || !ok_sd) return std::nullopt;
  return latency_model::normal(mean, sd);
}

// latency = { fixed = "200ms" } | { uniform = ["10ms", "50ms"] } | { p50 = "300ms", p99 = "2s" }
//         | { mean = "10ms", sd = "2ms" }
void load_latency(const table_reader& tool, latency_model& out) {
  const doc_node* t = tool.get("latency");
  if (t == nullptr) return;
  const std::string path = tool.path_of("latency");
  if (!t->is_table()) {
    tool.diag().error(
        t->pos, path,
        "expected a latency table, one of " + std::string(latency_shapes) + ", found " + describe_found(*t));
    return;
  }
  const table_reader r(tool.diag(), *t, path, {"fixed", "uniform", "p50", "p99", "mean", "sd"});
  const int shapes = (r.get("fixed") != nullptr) + (r.get("uniform") != nullptr) +
                     (r.get("p50") != nullptr || r.get("p99") != nullptr) +
                     (r.get("mean") != nullptr || r.get("sd") != nullptr);
  // Keys that are all unknown were reported already ("did you mean `fixed`?").
  if (shapes == 0 && !t->entries.empty()) return;
  if (shapes != 1) {
    tool.diag().error(t->pos, path,
                      std::string(shapes == 0 ? "no latency given" : "more than one latency shape given") +
                          "; expected one of " + std::string(latency_shapes));
    return;
  }
  std::optional<latency_model> m;
  if (r.get("fixed") != nullptr) {
    duration v;
    if (r.duration("fixed", v, day_limits)) m = latency_model::fixed(v);
  } else if (r.get("uniform") != nullptr) {
    m = load_uniform(r);
  } else if (r.get("mean") != nullptr || r.get("sd") != nullptr) {
    m = load_normal(r);
  } else {
    m = load_lognormal(r);
  }
  if (m) out = *m;
}

// [[<tool>.outage]] start/end and [[<tool>.latency_spike]] start/end/extra.
void load_windows(const table_reader& tool, std::vector<time_window>& outages, std::vector<latency_spike>& spikes) {
  for (const auto& item : tool.tables("outage")) {
    const table_reader r(tool.diag(), *item.table, item.path, {"start", "end"});
    const window_read w = load_window(r);
    if (w.ok) outages.push_back(w.window);
  }
  for (const auto& item : tool.tables("latency_spike")) {
    const table_reader r(tool.diag(), *item.table, item.path, {"start", "end", "extra"});
    const window_read w = load_window(r);
    latency_spike spike;
    if (r.get("extra") == nullptr) r.missing("extra", "the latency added, like \"5s\"");
    const bool extra_ok = r.duration("extra", spike.extra, day_limits);
    spike.window = w.window;
    if (w.ok && extra_ok) spikes.push_back(spike);
  }
}

void load_bad_invoices(const table_reader& r, service_tool_config& v) {
  const std::vector<doc_node>* items = r.array("bad_invoices", "an array of invoice ids like [\"inv_9\"]");
  if (items == nullptr) return;
  for (std::size_t i = 0; i < items->size(); ++i) {
    if (auto invoice = read_string(r.diag(), (*items)[i], index_path(r.path_of("bad_invoices"), i)))
      v.bad_targets.insert(std::move(*invoice));
  }
}

void load_error_rates(const table_reader& vendor, service_tool_config& v) {
  const doc_node* t = vendor.table("error_rates");
  if (t == nullptr) return;
  const table_reader r(vendor.diag(), *t, vendor.path_of("error_rates"),
                       {"unavailable", "rate_limited", "internal_error", "lost_request", "lost_response"});
  r.ppm("unavailable", v.unavailable_ppm);
  r.ppm("rate_limited", v.rate_limited_ppm);
  r.ppm("internal_error", v.internal_error_ppm);
  r.ppm("lost_request", v.lost_request_ppm);
  r.ppm("lost_response", v.lost_response_ppm);
}

// servers = 8, queue_timeout = "1s", queue_order = "lifo" (vendors/server_pool.hpp).
void load_server_pool(const table_reader& r, server_pool_config& pool) {
  static const named<queue_order> orders[] = {{"fifo", queue_order::fifo}, {"lifo", queue_order::lifo}};
  if (r.get("servers") != nullptr) r.integer("servers", pool.servers, {0, 1'000'000, " (0: unlimited)"});
  if (r.get("queue_timeout") != nullptr)
    r.duration("queue_timeout", pool.queue_timeout, {duration::from_us(1), duration::from_s(24 * 3600)});
  if (r.get("queue_order") != nullptr) r.choice("queue_order", pool.order, orders);
  // Without servers nothing ever waits: a queue setting would silently do nothing.
  if (r.get("servers") != nullptr && pool.servers > 0) return;
  for (const std::string_view key : {"queue_timeout", "queue_order"})
    if (r.get(key) != nullptr)
      r.diag().error(r.pos_of(key), r.path_of(key),
                     "needs `servers` (a queue forms only in front of a fixed number of servers)");
}

// What every far side has, whatever it does with keys.
void load_far_side(const table_reader& r, service_tool_config& c) {
  load_latency(r, c.latency);
  load_server_pool(r, c.pool);
  load_error_rates(r, c);
  r.duration("retry_after", c.retry_after, day_limits);
  r.duration("client_timeout", c.client_timeout, day_limits);
  r.duration("round_trip", c.round_trip, day_limits);
  r.duration("key_retention", c.key_retention, {duration::zero(), instant_offset_max, " (ten years)"});
  r.integer("capacity", c.capacity, {0, 1'000'000, " (0: unlimited)"});
  load_windows(r, c.outages, c.latency_spikes);
}

// The keys every [tools.NAME] table may have, the built-ins' included.
#define TWICE_FAR_SIDE_KEYS                                                                                       \
  "latency", "error_rates", "retry_after", "client_timeout", "round_trip", "key_retention", "capacity", "outage", \
      "latency_spike", "servers", "queue_timeout", "queue_order"
#define TWICE_TOOL_KEYS "effect", "keys", "claim", TWICE_FAR_SIDE_KEYS

// The refund tool (the payment vendor), as [tools.refund] or [vendor]: what
// it does is fixed (a money write with Stripe's keys); how its far side
// behaves is set as any tool's, plus the invoices it does not know.
void load_payment_tool(const table_reader& r, service_tool_config& v) {
  for (const std::string_view fixed : {"effect", "keys"})
    if (r.get(fixed) != nullptr)
      r.diag().error(r.pos_of(fixed), r.path_of(fixed),
                     "the refund tool is the payment vendor: a write with Stripe's stored responses; its " +
                         std::string(fixed) + " is fixed");
  load_far_side(r, v);
  load_bad_invoices(r, v);
}

void load_vendor(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("vendor");
  if (t == nullptr) return;
  load_payment_tool(table_reader(s.d, *t, "vendor", {TWICE_FAR_SIDE_KEYS, "bad_invoices"}), s.world.payments);
}

// claim = true: the slice claims each step of this tool before the call (a
// row "job_7:step_4:sms" committed in its own transaction) and skips a step
// already claimed: at most once, for a far side that takes no key. The
// built-in email tool is claimed unless it says claim = false or takes a
// key; a tool of the scenario's own only if it asks.
void load_claim(load_state& s, const table_reader& r, std::string_view name, const service_tool_config& c) {
  std::vector<std::string>& claimed = s.world.runtime.rules.claimed_tools;
  bool claim = std::find(claimed.begin(), claimed.end(), name) != claimed.end();
  if (r.get("claim") == nullptr) {
    if (name == "email" && c.keys != key_handling::ignored) claim = false;  // the far side dedupes on the key
  } else if (r.boolean("claim", claim) && claim && c.effect == tool_effect::read) {
    s.d.error(r.pos_of("claim"), r.path_of("claim"), "a read has no effect to claim; claim is for write tools");
    return;
  }
  std::erase(claimed, name);
  if (claim) claimed.emplace_back(name);
}

constexpr std::size_t own_tools_max = 64;

void load_service_tool(const table_reader& r, service_tool_config& c) {
  static const named<tool_effect> effects[] = {{"write", tool_effect::write}, {"read", tool_effect::read}};
  static const named<key_handling> keys[] = {{"ignored", key_handling::ignored},
                                             {"dedupe", key_handling::dedupe},
                                             {"stored_response", key_handling::stored_response}};
  r.choice("effect", c.effect, effects);
  r.choice("keys", c.keys, keys);
  load_far_side(r, c);
  // A key window only means something where keys are looked at.
  if (c.keys == key_handling::ignored && r.get("key_retention") != nullptr && r.get("keys") != nullptr)
    r.diag().error(r.pos_of("key_retention"), r.path_of("key_retention"),
                   "keys = \"ignored\": the far side keeps no keys, so a retention does nothing (set keys = "
                   "\"dedupe\" or \"stored_response\")");
}

// A tool of the scenario's own: its name is how steps and faults call it,
// and goes into keys ("job_1:step_2:upload") and actors ("vendor/upload").
void load_own_tool(load_state& s, const doc_entry& entry, const std::string& path) {
  if (s.world.tools.size() == own_tools_max) {
    s.d.error(entry.key_pos, path, "at most " + std::to_string(own_tools_max) + " tools of your own");
    return;
  }
  doc_node name_node;
  name_node.type = doc_node::kind::string;
  name_node.pos = entry.key_pos;
  name_node.text = entry.key;
  if (!read_identifier(s.d, name_node, path)) return;
  if (entry.key.find('.') != std::string::npos) {
    s.d.error(entry.key_pos, path,
              "a tool's name may not contain '.' (it is part of key paths like tools.NAME.latency)");
    return;
  }
  const table_reader r(s.d, entry.value, path, {TWICE_TOOL_KEYS, "moves_money", "optimistic_lock"});
  // [tools.emial] with no effect is a typo of a built-in, not a new tool.
  static constexpr std::string_view builtins[] = {"email", "model", "read", "refund"};
  const std::optional<std::string_view> near = closest(entry.key, builtins);
  if (r.get("effect") == nullptr && near) {
    s.d.error(entry.key_pos, path,
              "no tool is called " + quote(entry.key) + did_you_mean(entry.key, builtins) +
                  " (a tool of your own needs effect = \"write\" or \"read\")");
    return;
  }
  service_tool_config c;
  c.name = entry.key;
  c.latency = latency_model::lognormal(sim::duration::from_ms(100), sim::duration::from_s(1));
  if (r.get("effect") == nullptr) r.missing("effect", "effect = \"write\" (it changes something) or \"read\"");
  load_service_tool(r, c);
  if (c.effect == tool_effect::read && r.get("keys") != nullptr && c.keys != key_handling::ignored)
    s.d.error(r.pos_of("keys"), r.path_of("keys"), "a read changes nothing, so there is nothing for a key to dedupe");
  // A charge, a payout, a transfer: its effects are amounts in a ledger the
  // money invariants compare with ours, as the refund tool's are.
  r.boolean("moves_money", c.moves_money);
  if (c.moves_money && c.effect == tool_effect::read)
    s.d.error(r.pos_of("moves_money"), r.path_of("moves_money"), "a read moves no money; set effect = \"write\"");
  // A row per target, written only if its version has not moved since the
  // call read it (vendors/service_tool.hpp).
  r.boolean("optimistic_lock", c.optimistic_lock);
  if (c.optimistic_lock && c.effect == tool_effect::read)
    s.d.error(r.pos_of("optimistic_lock"), r.path_of("optimistic_lock"),
              "a read writes no version to check; set effect = \"write\"");
  else if (c.optimistic_lock && c.moves_money)
    s.d.error(r.pos_of("optimistic_lock"), r.path_of("optimistic_lock"),
              "a tool that moves money keeps a ledger of its effects, not a versioned row: set one of moves_money and "
              "optimistic_lock");
  load_claim(s, r, c.name, c);
  s.world.tools.push_back(std::move(c));
}

// [tools.points] implementation = "points_api": a tool the program
// registered (world/registry.hpp) answers this name's calls. It draws its
// own latency and errors, so the built-in far side's keys do not apply;
// whether it writes and takes keys is the tool's own word.
void load_registered_tool(load_state& s, const doc_entry& entry, const std::string& path) {
  const table_reader r(s.d, entry.value, path, {"implementation", "claim"});
  if (entry.key.find('.') != std::string::npos) {
    s.d.error(entry.key_pos, path,
              "a tool's name may not contain '.' (it is part of key paths like tools.NAME.latency)");
    return;
  }
  std::string name;
  if (!r.string("implementation", name)) return;
  if (entry.key == "refund" || entry.key == "email" || entry.key == "model" || entry.key == "read") {
    s.d.error(r.pos_of("implementation"), r.path_of("implementation"),
              quote(entry.key) + " is a built-in tool; give yours a name of its own");
    return;
  }
  if (!registry::has_tool(name)) {
    const std::vector<std::string> registered = registry::tool_names();
    const std::vector<std::string_view> known(registered.begin(), registered.end());
    std::string hint = did_you_mean(name, known);
    if (hint.empty())
      hint = known.empty() ? "; this program registers none (a program of your own that links twice registers its "
                             "tools with twice::registry::add_tool, then runs twice::main)"
                           : "; registered: " + join(known);
    s.d.error(r.pos_of("implementation"), r.path_of("implementation"),
              "no tool is registered as " + quote(name) + hint);
    return;
  }
  // What the tool says of itself decides what a claim may do.
  const std::unique_ptr<tool> probe = registry::make_tool(name, {entry.key, sim::random_stream(0)});
  service_tool_config c;
  c.name = entry.key;
  c.effect = probe != nullptr && probe->writes() ? tool_effect::write : tool_effect::read;
  c.keys = probe != nullptr && probe->accepts_key() ? key_handling::dedupe : key_handling::ignored;
  load_claim(s, r, entry.key, c);
  s.world.registered_tools.push_back({entry.key, name, probe != nullptr && probe->writes(),
                                      probe != nullptr && probe->accepts_key(),
                                      probe != nullptr && probe->moves_money()});
}

void load_listed_tools(load_state& s, const doc_node& tools, bool root_has_vendor) {
  for (const doc_entry& entry : tools.entries) {
    const std::string path = child_path("tools", entry.key);
    if (!entry.value.is_table()) {
      s.d.error(entry.value.pos, path, "expected a table of the tool's settings, found " + describe_found(entry.value));
      continue;
    }
    if (entry.key == "refund") {
      if (root_has_vendor) {
        s.d.error(entry.key_pos, path,
                  "the refund tool is set in [vendor] already ([vendor] is its older name): keep one");
        continue;
      }
      const table_reader r(s.d, entry.value, path, {TWICE_TOOL_KEYS, "bad_invoices"});
      load_payment_tool(r, s.world.payments);
      load_claim(s, r, entry.key, s.world.payments);
      continue;
    }
    service_tool_config* builtin = entry.key == "email"   ? &s.world.email
                                   : entry.key == "model" ? &s.world.model
                                   : entry.key == "read"  ? &s.world.read
                                                          : nullptr;
    if (builtin != nullptr) {
      const table_reader r(s.d, entry.value, path, {TWICE_TOOL_KEYS});
      load_service_tool(r, *builtin);
      load_claim(s, r, entry.key, *builtin);
      continue;
    }
    if (entry.value.find("implementation") != nullptr) {
      load_registered_tool(s, entry, path);
      continue;
    }
    load_own_tool(s, entry, path);
  }
}
void load_service_tools(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("tools");
  if (t != nullptr) load_listed_tools(s, *t, root.get("vendor") != nullptr);
  s.tool_names = {"read", "model", "refund", "email"};
  for (const service_tool_config& c : s.world.tools) s.tool_names.push_back(c.name);
  for (const world_config::registered_tool& t : s.world.registered_tools) s.tool_names.push_back(t.name);
  if (t != nullptr)
    for (const doc_entry& e : t->entries) s.tool_tables.push_back(e.key);
}

#undef TWICE_TOOL_KEYS
#undef TWICE_FAR_SIDE_KEYS

}  // namespace

std::optional<std::string_view> read_tool_name(const load_state& s, const doc_node& n, const std::string& path) {
  if (n.type != doc_node::kind::string) {
    s.d.error(n.pos, path, "expected a tool's name (" + join(s.tool_names) + "), found " + describe_found(n));
    return std::nullopt;
  }
  for (const std::string_view name : s.tool_names)
    if (name == n.text) return name;
  // Its own table had an error, reported there.
  if (std::find(s.tool_tables.begin(), s.tool_tables.end(), n.text) != s.tool_tables.end()) return std::nullopt;
  // Only a name a table may have is worth defining.
  const bool definable = !n.text.empty() && std::all_of(n.text.begin(), n.text.end(), is_name_char) &&
                         n.text.find('.') == std::string::npos;
  s.d.error(n.pos, path,
            "unknown tool " + quote(n.text) + ": " + (definable ? "define [tools." + n.text + "] or use " : "use ") +
                join(s.tool_names) + did_you_mean(n.text, s.tool_names));
  return std::nullopt;
}

window_read load_window(const table_reader& r) {
  window_read out;
  bool ok = true;
  for (const std::string_view key : {"start", "end"}) {
    if (r.get(key) == nullptr) {
      r.missing(key, "a time since the start like \"10s\"");
      ok = false;
    }
  }
  ok = r.instant("start", out.window.begin) && ok;
  ok = r.instant("end", out.window.end) && ok;
  if (ok && out.window.end <= out.window.begin) {
    r.diag().error(r.pos_of("end"), r.path_of("end"),
                   "the window ends at " + sim::format_duration(out.window.end - sim::instant::epoch()) +
                       ", not after its start " + sim::format_duration(out.window.begin - sim::instant::epoch()));
    ok = false;
  }
  out.ok = ok;
  return out;
}

void load_tools(const table_reader& root, load_state& s) {
  load_vendor(root, s);
  load_service_tools(root, s);
}

}  // namespace twice::scenario_detail
