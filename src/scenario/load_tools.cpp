// [vendor] (the payment API) and [tools.email], [tools.model], [tools.read]:
// latency, error rates, timeouts and the fault windows of each far side.

#include "scenario/sections.hpp"

namespace twice::scenario_detail {
namespace {

using sim::duration;

constexpr duration_limits day_limits{duration::zero(), duration::from_s(24 * 3600)};
constexpr std::string_view latency_shapes =
    "{ fixed = \"200ms\" }, { uniform = [\"10ms\", \"50ms\"] } or { p50 = \"300ms\", p99 = \"2s\" }";

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
    r.diag().error(r.pos_of("uniform"), path,
                   "the upper bound " + sim::format_duration(*hi) + " is below the lower bound " +
                       sim::format_duration(*lo));
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
    r.diag().error(r.pos_of("p99"), r.path_of("p99"),
                   "the 99th percentile " + sim::format_duration(p99) + " is below the median p50 = " +
                       sim::format_duration(p50));
    return std::nullopt;
  }
  return latency_model::lognormal(p50, p99);
}

// latency = { fixed = "200ms" } | { uniform = ["10ms", "50ms"] } | { p50 = "300ms", p99 = "2s" }
void load_latency(const table_reader& tool, latency_model& out) {
  const doc_node* t = tool.get("latency");
  if (t == nullptr) return;
  const std::string path = tool.path_of("latency");
  if (!t->is_table()) {
    tool.diag().error(t->pos, path, "expected a latency table, one of " + std::string(latency_shapes) + ", found " +
                                        describe_found(*t));
    return;
  }
  const table_reader r(tool.diag(), *t, path, {"fixed", "uniform", "p50", "p99"});
  const int shapes = (r.get("fixed") != nullptr) + (r.get("uniform") != nullptr) +
                     (r.get("p50") != nullptr || r.get("p99") != nullptr);
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
  } else {
    m = load_lognormal(r);
  }
  if (m) out = *m;
}

struct window_read {
  bool ok = false;
  time_window window;
};

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

void load_bad_invoices(const table_reader& r, payment_vendor_config& v) {
  const std::vector<doc_node>* items = r.array("bad_invoices", "an array of invoice ids like [\"inv_9\"]");
  if (items == nullptr) return;
  for (std::size_t i = 0; i < items->size(); ++i) {
    if (auto invoice = read_string(r.diag(), (*items)[i], index_path(r.path_of("bad_invoices"), i)))
      v.bad_invoices.insert(std::move(*invoice));
  }
}

void load_vendor_error_rates(const table_reader& vendor, payment_vendor_config& v) {
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

void load_vendor(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("vendor");
  if (t == nullptr) return;
  const table_reader r(s.d, *t, "vendor",
                       {"latency", "error_rates", "retry_after", "client_timeout", "round_trip", "bad_invoices",
                        "key_retention", "capacity", "outage", "latency_spike"});
  payment_vendor_config& v = s.world.payments;
  load_latency(r, v.latency);
  load_vendor_error_rates(r, v);
  r.duration("retry_after", v.retry_after, day_limits);
  r.duration("client_timeout", v.client_timeout, day_limits);
  r.duration("round_trip", v.round_trip, day_limits);
  load_bad_invoices(r, v);
  r.duration("key_retention", v.key_retention, {duration::zero(), instant_offset_max, " (ten years)"});
  r.integer("capacity", v.capacity, {0, 1'000'000, " (0: unlimited)"});
  load_windows(r, v.outages, v.latency_spikes);
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
      r.diag().error(r.pos_of(key), r.path_of(key), "needs `servers` (a queue forms only in front of a fixed number of servers)");
}

void load_simple_tool(const table_reader& tools, std::string_view name, simple_tool_config& c) {
  const doc_node* t = tools.table(name);
  if (t == nullptr) return;
  const table_reader r(tools.diag(), *t, tools.path_of(name),
                       {"latency", "error_rates", "client_timeout", "round_trip", "outage", "latency_spike", "servers",
                        "queue_timeout", "queue_order"});
  load_latency(r, c.latency);
  load_server_pool(r, c.pool);
  if (const doc_node* rates = r.table("error_rates")) {
    // Simple tools answer only 503s: they have no idempotency layer to fail in.
    const table_reader e(tools.diag(), *rates, r.path_of("error_rates"), {"unavailable"});
    e.ppm("unavailable", c.unavailable_ppm);
  }
  r.duration("client_timeout", c.client_timeout, day_limits);
  r.duration("round_trip", c.round_trip, day_limits);
  load_windows(r, c.outages, c.latency_spikes);
}

void load_simple_tools(const table_reader& root, load_state& s) {
  const doc_node* t = root.table("tools");
  if (t == nullptr) return;
  // The payment vendor is [vendor]; "refund" here would be a second way to say it.
  const table_reader r(s.d, *t, "tools", {"email", "model", "read"});
  load_simple_tool(r, "email", s.world.email);
  load_simple_tool(r, "model", s.world.model);
  load_simple_tool(r, "read", s.world.read);
}

}  // namespace

void load_tools(const table_reader& root, load_state& s) {
  load_vendor(root, s);
  load_simple_tools(root, s);
}

}  // namespace twice::scenario_detail
