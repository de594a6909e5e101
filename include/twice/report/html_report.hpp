#pragma once
// The run as one self-contained HTML page (`twice run --report FILE.html`):
// no network, no external script, style sheet or font; inline CSS and SVG,
// and a few lines of inline script that only highlight on hover (everything
// is in the DOM without it). Sections, each with stable ids, classes and
// data- attributes a test (or a person's devtools) can query:
//
//   #timeline   a swimlane per worker (g.lane[data-lane="worker/0"]) and per
//               vendor (g.lane[data-lane="vendor/payments"]): leases as bars
//               (rect.lease[data-ended-by]) ending in ack, expiry or crash,
//               tool calls inside (rect.tool[data-tool][data-key], keys in a
//               <title> on hover), crash and kill markers (.crash, .kill),
//               expired leases (.expiry), redelivery arrows
//               (path.redelivery), deploy windows (rect.deploy-window) and
//               pods down (rect.pod-down) shaded, the vendor's refunds
//               (g.refund[data-ref], g.refund.duplicate when an invoice is
//               refunded again) and each violated invariant's first moment
//               (g.violation[data-invariant]);
//   #queue-depth   the broker's sampled counters over time;
//   #attempts      the histogram of attempts per job, and the attempt table;
//   #backoff       every backoff delay against its envelope and the cap;
//   #ledgers       our ledger beside each money tool's far side
//                  (#ledger-vendor: the payment vendor's; #ledger-NAME: a
//                  tool of the scenario's own; tr.unmatched: a row the
//                  other side has no counterpart for); absent in a world
//                  where nothing moves money;
//   #invariants    tr[data-invariant][data-held] with the evidence lines;
//   #story         the timeline as text.
//
// Deterministic: the same run gives the same bytes.

#include <optional>
#include <string>
#include <vector>

#include <twice/report/run_summary.hpp>
#include <twice/report/spans.hpp>
#include <twice/report/timeline.hpp>
#include <twice/store/rows.hpp>
#include <twice/vendors/vendor_refund.hpp>

namespace twice {

struct scenario;

// The ledgers as the run left them: ours, and the far side's of each money
// tool the world has (run_summary::money, in its order).
struct final_ledgers {
  struct far_side {
    std::string tool;  // as steps call it: "refund" (the payment vendor), "charge"
    std::vector<vendor_refund> rows;
  };
  std::vector<ledger_row> ours;
  std::vector<far_side> theirs;
  // Rows in every far side's ledger.
  std::size_t their_rows() const;
};

// Copies the ledgers out of the world after its run, for the tools `s.money` lists.
final_ledgers collect_ledgers(const world& w, const run_summary& s);

// Lines of the story the page lists as text; `twice run` prints them all.
inline constexpr std::size_t html_story_lines_shown = 2000;

// `story`: the run's timeline lines (report/timeline.hpp), or at least the
// first html_story_lines_shown of them when `story_total` counts them all
// (timeline_collector); `spans`: its events as intervals (report/spans.hpp).
std::string html_report(const scenario& sc, const run_summary& s, const std::vector<timeline_line>& story,
                        const run_spans& spans, const final_ledgers& ledgers,
                        std::optional<std::size_t> story_total = std::nullopt);

}  // namespace twice
