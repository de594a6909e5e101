#include "report/timeline_drawing.hpp"

#include "report/html_sections.hpp"
#include "sim/duration_text.hpp"

// A vendor's lane on the timeline: its executions, the refunds (or a money tool's rows) it
// committed with their labels, its outages and latency spikes, its own marks.

namespace twice::html_detail {

void timeline_drawing::vendor_lane(std::size_t lane, const std::string& name) {
  const std::int64_t y = lane_y(lane);
  const std::int64_t h = lane_height(lane) - 80;
  html_.line(fmt::format("<g class=\"lane vendor\" data-lane=\"{}\" id=\"lane-{}\">", esc(name), slug(name)));
  lane_label(name, y, h);
  fault_windows(name, y, h);
  for (const vendor_execution& e : spans_.executions) {
    if (e.vendor != name) continue;
    used_.insert(e.outcome == "committed" ? "execution-committed"
                 : e.outcome == "error"   ? "execution-error"
                                          : "execution");
    const std::int64_t x0 = x_of(e.start);
    const std::int64_t x1 = std::max(x_of(e.end), x0 + 20);
    html_.line(
        fmt::format("<rect class=\"execution outcome-{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>request "
                    "{}: executes from {} to {}, {}{}</title></rect>",
                    slug(e.outcome), px(x0), px(y + h - 130), px(x1 - x0), px(90), e.req, secs(e.start), secs(e.end),
                    esc(e.outcome), e.ref.empty() ? "" : " " + esc(e.ref)));
  }
  for (const refund_mark& r : spans_.refunds) {
    if (r.vendor != name) continue;
    const std::int64_t x = x_of(r.at);
    const bool dup = duplicate_refs_.contains(r.ref);
    used_.insert(dup ? "refund-duplicate" : "refund");
    const std::string what = refund_word(r);
    const std::string target = r.vendor == "vendor/payments" ? "invoice" : "target";
    html_.line(fmt::format(
        "<g class=\"refund{}\" data-ref=\"{}\" data-invoice=\"{}\" data-amount-cents=\"{}\" data-key=\"{}\" "
        "data-nth=\"{}\" data-at-us=\"{}\"><title>{} the vendor commits {} {}: {} {}, {}, key={}{}"
        "</title>",
        dup ? " duplicate" : "", esc(r.ref), esc(r.invoice), r.amount_cents, esc(r.key), r.nth_for_invoice, r.at.us(),
        secs(r.at), esc(what), esc(r.ref), target, esc(r.invoice), cents(r.amount_cents), esc(key_text(r.key)),
        r.nth_for_invoice > 1
            ? fmt::format(" (the {} {} of this {})", r.nth_for_invoice == 2 ? "second" : "n-th", esc(what), target)
            : ""));
    html_.line(fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", px(x), px(y - 40), px(y + h)));
    html_.line(fmt::format("<path d=\"M{},{} L{},{} L{},{} z\"/>", px(x - 70), px(y - 40), px(x + 70), px(y - 40),
                           px(x), px(y + 70)));
    html_.line("</g>");
  }
  write_labels(refund_labels(name), vendor_label_rows,
               [&](std::size_t row) { return y + 150 + static_cast<std::int64_t>(row) * 160; });
  for (const vendor_mark& m : spans_.vendor_marks) {
    if (m.vendor != name) continue;
    used_.insert(m.kind == "reject" ? "reject" : m.kind == "replay" ? "replay" : "vendor-mark");
    html_.line(fmt::format(
        "<circle class=\"vendor-mark mark-{}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{} {}: {}</title></circle>",
        slug(m.kind), px(x_of(m.at)), px(y + 60), secs(m.at), esc(m.kind), esc(m.text)));
  }
  html_.line("</g>");
}

// The far side's outages and latency spikes, from the tool's settings,
// across its lane.
void timeline_drawing::fault_windows(const std::string& lane, std::int64_t y, std::int64_t h) {
  const service_tool_config* c = tool_config_of(sc_, lane);
  if (c == nullptr) return;
  auto band = [&](const time_window& w, std::string_view cls, const std::string& what) {
    const std::int64_t x0 = x_of(w.begin);
    const std::int64_t x1 = std::max(x_of(w.end), x0 + 20);
    html_.line(
        fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} from {} to "
                    "{}</title></rect>",
                    cls, px(x0), px(y), px(x1 - x0), px(h), esc(what), secs(w.begin), secs(w.end)));
  };
  for (const time_window& w : c->outages) {
    used_.insert("outage");
    band(w, "outage-window", lane + " outage: every request answers 503");
  }
  for (const latency_spike& sp : c->latency_spikes) {
    used_.insert("spike");
    band(
        sp.window, "spike-window",
        fmt::format("{} latency spike: executions starting inside take {} more", lane, sim::format_duration(sp.extra)));
  }
}

}  // namespace twice::html_detail
