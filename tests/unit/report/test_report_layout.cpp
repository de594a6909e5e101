// The HTML pages' layout without a browser: text widths, labels kept apart
// on rows, the run's time axis with its idle stretches drawn narrow, the
// attempts histogram's small bars, and the same refunds red on the timeline
// and in the ledger tables. tests/browser/ checks the pages Chromium drew.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/run_command.hpp"
#include <twice/report/html_report.hpp>
#include "report/html_sections.hpp"
#include "report/label_rows.hpp"
#include "report/text_width.hpp"
#include "report/time_axis.hpp"
#include <twice/scenario/scenario.hpp>
#include "test_files.hpp"

using namespace twice;
using namespace twice::html_detail;

namespace {

const std::filesystem::path source_dir = twice::test::repo_root();

scenario load(const std::filesystem::path& path) {
  load_result r = load_scenario_file(path.string());
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  return std::move(*r.value);
}

std::string report_of(const scenario& sc) {
  const cli::run_outcome out = cli::run_one(sc, true);
  return html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The value of attribute `name` in the tag starting at `at`.
std::string attr(const std::string& html, std::size_t at, std::string_view name) {
  const std::size_t end = html.find('>', at);
  const std::string key = " " + std::string(name) + "=\"";
  const std::size_t k = html.find(key, at);
  if (k == std::string::npos || k > end) return "";
  const std::size_t v = k + key.size();
  return html.substr(v, html.find('"', v) - v);
}

// The data-ref of every tag that starts with `prefix`, in [from, to).
std::set<std::string> refs(const std::string& html, std::string_view prefix, std::size_t from = 0,
                           std::size_t to = std::string::npos) {
  std::set<std::string> out;
  for (std::size_t at = html.find(prefix, from); at != std::string::npos && at < to; at = html.find(prefix, at + 1))
    if (const std::string ref = attr(html, at, "data-ref"); !ref.empty()) out.insert(ref);  // not the legend's
  return out;
}

double number(const std::string& text) { return std::stod(text); }

constexpr std::int64_t s = 1'000'000;

}  // namespace

TEST_CASE("text_width: DejaVu Sans's advances; bold wider; beyond ASCII an em", "[report][layout]") {
  CHECK(text_width("", 12) == 0);
  CHECK(text_width("0", 12) == 77);  // 0.636 em at 12 px: 7.632 px, rounded up to tenths
  CHECK(text_width("00", 12) == 153);
  CHECK(text_width("refund re_2", 12, true) > text_width("refund re_2", 12));
  CHECK(text_width("\xe2\x80\x94", 12) == 120);  // an em dash: three bytes, one em
}

TEST_CASE("shortened_to and wrapped_to keep text within a width", "[report][layout]") {
  CHECK(shortened_to("worker/0", 1000, 12, true) == "worker/0");
  const std::string name = "vendor/notifications_service_eu_west";
  const std::string shown = shortened_to(name, 1200, 12, true);
  CHECK(text_width(shown, 12, true) <= 1200);
  CHECK(shown.starts_with("vendor/"));
  CHECK(shown.ends_with("west"));
  CHECK(shown.find("\xe2\x80\xa6") != std::string::npos);

  const std::string title = "attempts beyond each job's first (log scale)";
  const std::vector<std::string> lines = wrapped_to(title, 2400, 12);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] + " " + lines[1] == title);
  for (const std::string& l : lines) CHECK(text_width(l, 12) <= 2400);
  // A word too long for a line breaks after a '.', '/' or '_' in it.
  const std::vector<std::string> path = wrapped_to("tools.read.latency_spike[0].end (s)", 1200, 12);
  REQUIRE(path.size() >= 2);
  std::string joined;
  for (const std::string& l : path) {
    CHECK(text_width(l, 12) <= 1200);
    joined += l;
  }
  CHECK(joined == "tools.read.latency_spike[0].end (s)");  // broken inside the word, not at the space
  CHECK(std::string_view("._/").find(path[0].back()) != std::string_view::npos);
  CHECK(wrapped_to("", 100, 12) == std::vector<std::string>{""});
}

TEST_CASE("stack_labels: each label on the first row with room, in priority order; none when no row has",
          "[report][layout]") {
  const std::vector<label_extent> labels = {{0, 100}, {50, 150}, {120, 200}, {60, 90}, {300, 400}};
  const auto rows = stack_labels(labels, 2, 10);
  CHECK(rows[0] == std::optional<std::size_t>(0));
  CHECK(rows[1] == std::optional<std::size_t>(1));  // overlaps the first
  CHECK(rows[2] == std::optional<std::size_t>(0));  // 20 after the first: more than the gap
  CHECK_FALSE(rows[3].has_value());                 // both rows taken there: left out
  CHECK(rows[4] == std::optional<std::size_t>(0));
  CHECK(stack_labels({{0, 100}, {105, 200}}, 1, 10)[1] == std::nullopt);  // closer than the gap

  CHECK(extent_at(500, 100, "end").left == 400);
  CHECK(extent_at(500, 100, "middle").left == 450);
  CHECK(extent_at(500, 100, "start").right == 600);
  const label_extent inside = keep_within({950, 1050}, 0, 1000);
  CHECK(inside.left == 900);
  CHECK(inside.right == 1000);
  CHECK(keep_within({-30, 70}, 0, 1000).left == 0);
}

TEST_CASE("time_axis: to scale when nothing is idle long, ending at the story's end", "[report][layout]") {
  const time_axis axis = time_axis::compressing_idle(1400, 11700, 10 * s, {{0, 4 * s}, {3 * s, 10 * s}});
  CHECK(axis.breaks().empty());
  CHECK(axis.at(0) == 1400);
  CHECK(axis.at(5 * s) == 6550);
  CHECK(axis.at(10 * s) == 11700);
  CHECK(axis.at(11 * s) == 11700);  // past the end: at the end
  const std::vector<time_tick> ticks = axis.ticks(12);
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks.front().label == "0s");
  CHECK(ticks.back().end);
  CHECK(ticks.back().us == 10 * s);
  CHECK(ticks.back().x == 11700);
  CHECK(ticks.back().label == "10s");
}

TEST_CASE("time_axis: an idle hour between a kill at 5 s and a redelivery at 3600 s is drawn narrow",
          "[report][layout]") {
  // The calls up to the kill, the pods' stops and starts, the second slice.
  const std::vector<busy_span> busy = {{0, 5'020'000},
                                       {7'020'000, 7'020'000},
                                       {12'020'000, 12'020'000},
                                       {14'020'000, 14'020'000},
                                       {3600 * s, 3'600'416'000}};
  const std::int64_t end = 3'600'416'000;
  const time_axis axis = time_axis::compressing_idle(1400, 11700, end, busy);
  REQUIRE(axis.breaks().size() == 1);
  const time_break& b = axis.breaks().front();
  CHECK(b.from_us > 14'020'000);
  CHECK(b.to_us < 3600 * s);
  CHECK(b.x1 - b.x0 == time_axis::break_width);
  // The five seconds up to the kill take more than a quarter of the width,
  // and the stretch after the break at least a sixth of what is to scale.
  CHECK(axis.at(5'020'000) - axis.at(0) > (11700 - 1400) / 4);
  CHECK(axis.at(end) - b.x1 >= (11700 - 1400 - time_axis::break_width) / 6);
  CHECK(axis.at(3600 * s) > b.x1);
  CHECK(axis.at(end) == 11700);
  std::int64_t last = axis.at(0);
  for (std::int64_t t = 0; t <= end; t += end / 997) {
    CHECK(axis.at(t) >= last);
    last = axis.at(t);
  }
  // The ticks' labels, as drawn, never closer than 20 px; the end's says when.
  const std::vector<time_tick> ticks = axis.ticks(12);
  REQUIRE_FALSE(ticks.empty());
  CHECK(ticks.back().label == "1h 0m 0.416s");
  std::vector<label_extent> boxes;
  for (const time_tick& t : ticks) boxes.push_back(extent_at(t.x, text_width(t.label, 12), t.end ? "end" : "middle"));
  for (std::size_t i = 1; i < boxes.size(); ++i) CHECK(boxes[i].left >= boxes[i - 1].right + 200);
}

TEST_CASE("time_axis: only a stretch longer than all the rest together is compressed", "[report][layout]") {
  // The double refund: the calls to 2.42 s, pods stopping and starting, the
  // lease running out at 30 s and the second slice.
  const std::vector<busy_span> busy = {
      {0, 2'420'000}, {4'420'000, 4'420'000}, {9'420'000, 9'420'000}, {11'420'000, 11'420'000}, {30 * s, 30'416'000}};
  const time_axis axis = time_axis::compressing_idle(1400, 11700, 30'416'000, busy);
  REQUIRE(axis.breaks().size() == 1);
  CHECK(axis.breaks().front().from_us > 11'420'000);
  CHECK(axis.breaks().front().to_us < 30 * s);
  // Nothing drawn at all: to scale.
  CHECK(time_axis::compressing_idle(1400, 11700, 30 * s, {}).breaks().empty());
}

TEST_CASE("html report: the axis ends where the story ended; an idle hour is drawn narrow and said", "[report][html]") {
  const scenario sc = load(source_dir / "tests/scenarios/report/idle_hour.toml");
  const std::string html = report_of(sc);
  CHECK(html.find("<g class=\"axis\" id=\"time-axis\" data-end-us=\"3600416000\" data-breaks=\"1\">") !=
        std::string::npos);
  CHECK(html.find("<li>run: every job ended at 1h 0m 0.416000s,") != std::string::npos);
  CHECK(html.find("class=\"axis-end\" data-us=\"3600416000\"") != std::string::npos);
  CHECK(html.find(">1h 0m 0.416s</text>") != std::string::npos);
  CHECK(count(html, "<text class=\"time-break-label\"") == 1);
  CHECK(html.find("s idle</text>") != std::string::npos);
  // The same break across the requests and queue-depth charts, which line up.
  CHECK(count(html, "<g class=\"time-break\"") ==
        1 + count(html, "<svg class=\"requests\"") + count(html, "<svg id=\"queue-depth\""));

  // Dead letters deleted by retention four days after the story: not drawn,
  // and said.
  const scenario expire = load(source_dir / "scenarios/dead_letters_expire.toml");
  const cli::run_outcome out = cli::run_one(expire, true);
  const std::string page = html_report(expire, out.summary, out.timeline, out.spans, out.ledgers);
  const std::string end = std::to_string(out.summary.result.story_end.us());
  CHECK(page.find("id=\"time-axis\" data-end-us=\"" + end + "\"") != std::string::npos);
  CHECK(page.find("<p class=\"meta\" id=\"after-story\" data-end-us=\"" + end + "\"") != std::string::npos);
}

TEST_CASE("html report: the ledger tables and the timeline mark the same refunds red", "[report][html]") {
  const scenario sc = load(source_dir / "scenarios/double_refund.toml");
  const std::string html = report_of(sc);
  const std::size_t ledgers = html.find("<section id=\"ledgers\">");
  REQUIRE(ledgers != std::string::npos);
  // re_2 refunded inv_17 again: red in both tables and on the timeline; re_1
  // is only missing from our ledger: amber, not red.
  CHECK(refs(html, "<tr class=\"matched overpaid\"", ledgers) == std::set<std::string>{"re_2"});
  CHECK(count(html, "<tr class=\"matched overpaid\" data-job=\"job_17\" data-ref=\"re_2\"") == 1);
  CHECK(count(html, "<tr class=\"matched overpaid\" data-ref=\"re_2\" data-invoice=\"inv_17\"") == 1);
  CHECK(count(html, "<tr class=\"unmatched\" data-ref=\"re_1\"") == 1);
  CHECK(refs(html, "<g class=\"refund duplicate\"", 0, ledgers) == std::set<std::string>{"re_2"});

  // Across the catalogue: test_report_outputs.cpp, with the other checks of every page.
}

TEST_CASE("html report: a bar of a few jobs beside thousands stays visible with its exact count", "[report][html]") {
  run_summary s;
  s.jobs_total = 1'001;
  for (int j = 0; j < 1'000; ++j)
    s.attempts.push_back({"gen_" + std::to_string(j), 0, "worker/0", "", true, "done", 0, {}});
  for (std::int64_t a = 0; a < 3; ++a) s.attempts.push_back({"gen_slow", a, "worker/0", "", true, "done", 0, {}});
  std::string html;
  html_lines lines(html);
  write_attempts(lines, s);
  const std::size_t bar = html.find("<rect class=\"bar raised\" data-attempts=\"3\" data-jobs=\"1\"");
  REQUIRE(bar != std::string::npos);
  CHECK(number(attr(html, bar, "height")) >= 4);
  CHECK(html.find("(drawn 4 px tall; to scale 0.1 px)</title>") != std::string::npos);
  CHECK(html.find("<rect class=\"bar\" data-attempts=\"2\" data-jobs=\"0\"") != std::string::npos);  // none: no bar
  CHECK(html.find("a bar of a few jobs is drawn 4 px tall; its count is exact</text>") != std::string::npos);
  // Every count over its bar, each below the caption's two lines (the
  // second's baseline at 29 px; 12 px text reaches 11 px above its own).
  std::size_t counts = 0;
  for (std::size_t at = html.find("<text class=\"bar-count\""); at != std::string::npos;
       at = html.find("<text class=\"bar-count\"", at + 1)) {
    ++counts;
    CHECK(number(attr(html, at, "y")) - 11 > 29 + 3);
  }
  CHECK(counts == 2);  // 1000 and 1
}

TEST_CASE("html report: a queue sampled for hours draws a bounded line that keeps every peak", "[report][html]") {
  // 100,000 samples, 40,000 s (a million steady jobs' run): the count
  // changes at nearly every one, and peaks once.
  const scenario sc;
  run_spans spans;
  for (std::int64_t i = 0; i < 100'000; ++i) {
    queue_sample q;
    q.at = sim::instant::epoch() + sim::duration::from_us(i * 400'000);
    q.visible = i == 61'234 ? 999 : i % 7;
    spans.samples.push_back(q);
  }
  std::string html;
  html_lines lines(html);
  write_queue_depth(lines, sc, spans, time_axis(plot_left, plot_right, 40'000'000'000));
  const std::size_t line = html.find("<polyline class=\"series series-visible\"");
  REQUIRE(line != std::string::npos);
  CHECK(attr(html, line, "data-peak") == "999");
  const std::string points = attr(html, line, "points");
  // At most four points a pixel column (in, lowest, highest, out) and the end.
  CHECK(count(points, ",") <= 4 * static_cast<std::size_t>((plot_right - plot_left) / 10 + 1) + 1);
  CHECK(count(points, ",") > 1'000);
  // The chart's top is the peak, and the line reaches it.
  const std::size_t top_grid = html.find("<line class=\"grid\"", html.find("<line class=\"grid\"") + 1);
  REQUIRE(top_grid != std::string::npos);
  CHECK((" " + points + " ").find("," + attr(html, top_grid, "y1") + " ") != std::string::npos);
}
