#include "report/timeline_legend.hpp"

#include <fmt/core.h>

#include <string_view>

namespace twice::html_detail {

// Every kind of mark the timeline drew, each drawn as it is on the lanes:
// nothing on the page goes unexplained, and nothing absent is listed.
void write_timeline_legend(html_lines& html, const broker_words& words, const std::set<std::string, std::less<>>& used,
                           std::size_t labels_left_out) {
  struct entry {
    std::string_view key;
    std::string_view mark;  // SVG inside a 16 x 12 box, with the timeline's classes
    std::string_view text;
  };
  const entry entries[] = {
      {"lease",
       "<rect class=\"lease\" x=\"1\" y=\"2\" width=\"14\" height=\"8\" "
       "rx=\"2\"/>",
       words.hold},
      {"end-done",
       "<rect class=\"lease-end end-ack\" x=\"6\" y=\"1\" width=\"3\" "
       "height=\"10\"/>",
       words.ended_done},
      {"end-back",
       "<rect class=\"lease-end end-nack\" x=\"6\" y=\"1\" width=\"3\" "
       "height=\"10\"/>",
       words.ended_back},
      {"end-killed",
       "<rect class=\"lease-end end-crash\" x=\"6\" y=\"1\" width=\"3\" "
       "height=\"10\"/>",
       words.ended_killed},
      {"end-open",
       "<rect class=\"lease-end end-open\" x=\"6\" y=\"1\" width=\"3\" "
       "height=\"10\"/>",
       words.still_open},
      {"tool-read", "<rect class=\"tool\" x=\"1\" y=\"3\" width=\"14\" height=\"6\"/>", "read call"},
      {"tool-model",
       "<rect class=\"tool tool-model\" x=\"1\" y=\"3\" width=\"14\" "
       "height=\"6\"/>",
       "model call"},
      {"tool-write",
       "<rect class=\"tool writes\" x=\"1\" y=\"3\" width=\"14\" "
       "height=\"6\"/>",
       "write call (refund, email, a write of your own)"},
      {"new-write",
       "<rect class=\"tool writes new-write\" x=\"1\" y=\"3\" width=\"14\" "
       "height=\"6\"/>",
       "dark outline: the write was new at the far side"},
      {"paid",
       "<rect class=\"tool writes paid\" x=\"2\" y=\"3\" width=\"12\" "
       "height=\"6\"/>",
       "thick outline: the call made a ledger row (a refund, a charge)"},
      {"paid-duplicate",
       "<rect class=\"tool writes paid duplicate-effect\" x=\"2\" y=\"3\" "
       "width=\"12\" height=\"6\"/>",
       "red outline: the call refunded an invoice a second time (a violation)"},
      {"interrupted",
       "<rect class=\"tool interrupted\" x=\"1\" y=\"3\" width=\"14\" "
       "height=\"6\"/>",
       "dashed: no answer, the pod died first"},
      {"ack", "<circle class=\"ack\" cx=\"8\" cy=\"6\" r=\"4.5\"/>", words.ack},
      {"nack", "<circle class=\"nack\" cx=\"8\" cy=\"6\" r=\"4.5\"/>", words.nack},
      {"dead-letter",
       "<rect class=\"dead-letter\" x=\"3.5\" y=\"1.5\" width=\"9\" "
       "height=\"9\"/>",
       "dead-lettered"},
      {"crash", "<g class=\"crash\"><path d=\"M3,1 L13,11 M3,11 L13,1\"/></g>",
       "crash, or a kill with a slice in flight"},
      {"start-stop", "<line class=\"stop\" x1=\"8\" y1=\"0\" x2=\"8\" y2=\"12\"/>", "pod start, stop or drain"},
      {"mark", "<circle class=\"mark\" cx=\"8\" cy=\"6\" r=\"3\"/>",
       "another event of the job (fenced, lease lost, already ended...): its "
       "tooltip says"},
      {"expiry", "<path class=\"expiry\" d=\"M8,0 L14,6 L8,12 L2,6 z\"/>", words.expiry},
      {"redelivery-after-backoff",
       "<line class=\"redelivery-after-backoff\" x1=\"0\" y1=\"6\" x2=\"16\" "
       "y2=\"6\"/>",
       words.redelivered},
      {"execution", "<rect class=\"execution\" x=\"1\" y=\"3\" width=\"14\" height=\"6\"/>",
       "the far side executing a request"},
      {"execution-committed",
       "<rect class=\"execution outcome-committed\" x=\"1\" y=\"3\" "
       "width=\"14\" height=\"6\"/>",
       "an execution that committed a write"},
      {"execution-error",
       "<rect class=\"execution outcome-error\" x=\"1\" y=\"3\" width=\"14\" "
       "height=\"6\"/>",
       "an execution that ended in an error (500, 400, 409)"},
      {"refund",
       "<g class=\"refund\"><line x1=\"8\" y1=\"0\" x2=\"8\" y2=\"12\"/><path "
       "d=\"M4,0 L12,0 L8,6 z\"/></g>",
       "the far side's ledger row (a refund, a charge)"},
      {"refund-duplicate",
       "<g class=\"refund duplicate\"><line x1=\"8\" y1=\"0\" x2=\"8\" "
       "y2=\"12\"/><path d=\"M4,0 L12,0 L8,6 z\"/></g>",
       "a refund of an invoice already paid in full (a violation)"},
      {"reject", "<circle class=\"vendor-mark mark-reject\" cx=\"8\" cy=\"6\" r=\"3\"/>",
       "answered without executing: 503, 429, 409 or 400"},
      {"replay", "<circle class=\"vendor-mark mark-replay\" cx=\"8\" cy=\"6\" r=\"3\"/>",
       "a stored response replayed under its key"},
      {"vendor-mark", "<circle class=\"vendor-mark\" cx=\"8\" cy=\"6\" r=\"3\"/>",
       "a client timeout or a lost response"},
      {"outage",
       "<rect class=\"outage-window\" x=\"0\" y=\"0\" width=\"16\" "
       "height=\"12\"/>",
       "the tool's outage: every request answers 503"},
      {"spike",
       "<rect class=\"spike-window\" x=\"0\" y=\"0\" width=\"16\" "
       "height=\"12\"/>",
       "the tool's latency spike"},
      {"deploy",
       "<rect class=\"deploy-window\" x=\"0\" y=\"0\" width=\"16\" "
       "height=\"12\"/>",
       "deploy window"},
      {"pod-down", "<rect class=\"pod-down\" x=\"0\" y=\"0\" width=\"16\" height=\"12\"/>", "pod down"},
      {"violation",
       "<g class=\"violation\"><line x1=\"8\" y1=\"0\" x2=\"8\" "
       "y2=\"12\"/></g>",
       "red: an invariant broke here, and nothing else is red"},
  };
  html.line("<div class=\"legend\" id=\"timeline-legend\">");
  if (labels_left_out > 0)
    html.line(fmt::format(
        "<span class=\"labels-left-out\" data-labels-left-out=\"{}\">{} "
        "label{} left out where "
        "{} would overlap: hover a mark for its details</span>",
        labels_left_out, labels_left_out, labels_left_out == 1 ? "" : "s", labels_left_out == 1 ? "it" : "they"));
  for (const entry& e : entries) {
    if (!used.contains(e.key)) continue;
    html.line(
        fmt::format("<span data-key=\"{}\"><svg width=\"16\" "
                    "height=\"12\" viewBox=\"0 0 16 12\">{}</svg>{}"
                    "</span>",
                    e.key, e.mark, e.text));
  }
  html.line("</div>");
}

}  // namespace twice::html_detail
