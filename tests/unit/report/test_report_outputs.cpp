// The run's outputs people open: the Perfetto JSON checked against the
// Chrome trace event format (every phase's required keys, spans nested per
// thread, numeric counters, names from metadata), the JSON lines parsed back
// into the very records they came from, and the HTML report self-contained,
// balanced and escaped, with a lane per worker. The browser test
// (tests/browser/) renders the HTML for real.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include <twice/report/html_report.hpp>
#include <twice/report/markdown_report.hpp>
#include "report/perfetto_trace.hpp"
#include <twice/report/spans.hpp>
#include <twice/report/timeline.hpp>
#include "report/trace_jsonl.hpp"
#include <twice/scenario/scenario.hpp>
#include <twice/tools/tool.hpp>
#include "test_files.hpp"

using namespace twice;
using json = nlohmann::json;

namespace {

const std::filesystem::path catalogue = twice::test::repo_root() / "scenarios";

scenario load(const std::filesystem::path& path) {
  load_result r = load_scenario_file(path.string());
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  return std::move(*r.value);
}

scenario catalogue_scenario(std::string_view name) { return load(catalogue / (std::string(name) + ".toml")); }

std::vector<std::filesystem::path> catalogue_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(catalogue))
    if (entry.path().extension() == ".toml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

bool is_int(const json& v) { return v.is_number_integer(); }

// Everything the format asks of one event, by phase. Returns what is wrong,
// or "" when nothing is.
std::string event_problem(const json& e) {
  if (!e.is_object()) return "not an object";
  if (!e.contains("ph") || !e["ph"].is_string()) return "no ph";
  if (!e.contains("name") || !e["name"].is_string()) return "no name";
  if (!e.contains("pid") || !is_int(e["pid"])) return "no integer pid";
  if (!e.contains("ts") || !is_int(e["ts"]) || e["ts"].get<std::int64_t>() < 0) return "no ts in µs";
  const std::string ph = e["ph"];
  const bool has_tid = e.contains("tid") && is_int(e["tid"]);
  if (ph == "X") {
    if (!has_tid) return "X without tid";
    if (!e.contains("dur") || !is_int(e["dur"]) || e["dur"].get<std::int64_t>() < 0) return "X without dur >= 0";
    if (!e.contains("cat") || !e["cat"].is_string()) return "X without cat";
  } else if (ph == "B" || ph == "E") {
    if (!has_tid) return "B/E without tid";
  } else if (ph == "i" || ph == "I") {
    if (!has_tid) return "instant without tid";
    if (!e.contains("s") || (e["s"] != "t" && e["s"] != "p" && e["s"] != "g")) return "instant without scope s";
  } else if (ph == "C") {
    if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) return "counter without args";
    for (const auto& [k, v] : e["args"].items())
      if (!v.is_number()) return "counter series " + k + " is not a number";
  } else if (ph == "M") {
    const std::string name = e["name"];
    if (!e.contains("args") || !e["args"].is_object()) return "metadata without args";
    if (name == "process_name" || name == "thread_name") {
      if (!e["args"].contains("name") || !e["args"]["name"].is_string()) return "name metadata without args.name";
    } else if (name == "process_sort_index" || name == "thread_sort_index") {
      if (!e["args"].contains("sort_index") || !is_int(e["args"]["sort_index"])) return "sort metadata without index";
    } else {
      return "unknown metadata " + name;
    }
    if (name.starts_with("thread_") && !has_tid) return "thread metadata without tid";
  } else {
    return "unexpected phase " + ph;
  }
  return {};
}

struct checked_trace {
  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  std::vector<json> events;  // all but metadata, in file order
};

// Validates the whole document; fails the test on the first problem.
checked_trace validate_trace_event_format(const std::string& text) {
  const json doc = json::parse(text);
  REQUIRE(doc.is_object());
  REQUIRE(doc.contains("traceEvents"));
  REQUIRE(doc["traceEvents"].is_array());
  REQUIRE((doc["displayTimeUnit"] == "ms" || doc["displayTimeUnit"] == "ns"));
  checked_trace out;
  for (const json& e : doc["traceEvents"]) {
    const std::string problem = event_problem(e);
    INFO(e.dump());
    REQUIRE(problem == "");
    if (e["ph"] == "M") {
      if (e["name"] == "process_name") out.process_names[e["pid"]] = e["args"]["name"];
      if (e["name"] == "thread_name") out.thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    } else {
      out.events.push_back(e);
    }
  }
  // Names for every process and thread that has events.
  std::map<std::pair<int, int>, std::vector<json>> spans_by_thread;
  for (const json& e : out.events) {
    INFO(e.dump());
    REQUIRE(out.process_names.contains(e["pid"].get<int>()));
    REQUIRE(out.thread_names.contains({e["pid"].get<int>(), e["tid"].get<int>()}));
    if (e["ph"] == "X" || e["ph"] == "B" || e["ph"] == "E") spans_by_thread[{e["pid"], e["tid"]}].push_back(e);
  }
  // Spans nest on each thread: in (ts, longer first) order every span lies
  // inside the innermost one still open; B/E pairs balance.
  for (auto& [thread, spans] : spans_by_thread) {
    std::stable_sort(spans.begin(), spans.end(), [](const json& a, const json& b) {
      if (a["ts"] != b["ts"]) return a["ts"].get<std::int64_t>() < b["ts"].get<std::int64_t>();
      return a.value("dur", 0) > b.value("dur", 0);
    });
    std::vector<std::int64_t> open_ends;
    int begun = 0;
    for (const json& s : spans) {
      if (s["ph"] == "B") ++begun;
      if (s["ph"] == "E") REQUIRE(--begun >= 0);
      if (s["ph"] != "X") continue;
      const std::int64_t start = s["ts"], end = start + s["dur"].get<std::int64_t>();
      while (!open_ends.empty() && open_ends.back() <= start) open_ends.pop_back();
      INFO(out.thread_names[thread] << ": " << s.dump());
      REQUIRE((open_ends.empty() || end <= open_ends.back()));
      open_ends.push_back(end);
    }
    REQUIRE(begun == 0);
  }
  return out;
}

int thread_named(const checked_trace& t, const std::string& name) {
  for (const auto& [key, n] : t.thread_names)
    if (n == name) return key.second;
  FAIL("no thread named " << name);
  return -1;
}

// Tags open and close in order: a cheap well-formedness check that catches
// an unclosed <g> or a stray </td>. Skips the contents of <style> and
// <script> and treats void elements and "/>" as closed.
std::string unbalanced_tag(const std::string& html) {
  static const std::set<std::string> void_elements{"meta", "br", "hr", "img", "input", "link", "!DOCTYPE", "!doctype"};
  std::vector<std::string> open;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    const std::size_t close = html.find('>', i);
    if (close == std::string::npos) return "unterminated tag";
    std::string tag = html.substr(i + 1, close - i - 1);
    i = close + 1;
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool self_closing = !tag.empty() && tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" \n/"));
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : open.back());
      open.pop_back();
    } else if (!self_closing && !void_elements.contains(name)) {
      open.push_back(name);
      if (name == "style" || name == "script") {
        const std::size_t end = html.find("</" + name + ">", i);
        if (end == std::string::npos) return "unclosed " + name;
        i = end;
      }
    }
  }
  return open.empty() ? std::string() : "unclosed <" + open.back() + ">";
}

std::size_t count(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

// Nothing the page could fetch: no URL scheme, no src, no style sheet link,
// no @import, and url() only for the page's own #fragments.
// The data-ref of every tag starting with `prefix` in [from, to) of the page.
std::set<std::string> refs_of(const std::string& html, std::string_view prefix, std::size_t from,
                              std::size_t to = std::string::npos) {
  std::set<std::string> out;
  for (std::size_t at = html.find(prefix, from); at != std::string::npos && at < to; at = html.find(prefix, at + 1)) {
    const std::size_t ref = html.find(" data-ref=\"", at);
    if (ref == std::string::npos || ref > html.find('>', at)) continue;
    const std::size_t v = ref + 11;
    out.insert(html.substr(v, html.find('"', v) - v));
  }
  return out;
}

// The refunds the far sides' ledger tables mark red are those the timeline
// marks red: its flags with a lane per worker; with a lane per job (no
// vendor lanes), every red call it draws is a red row.
void same_refunds_red(const std::string& html) {
  const std::size_t ledgers = html.find("<section id=\"ledgers\">");
  if (ledgers == std::string::npos) {  // a world where nothing moves money: nothing to mark
    CHECK(html.find("<g class=\"refund duplicate\"") == std::string::npos);
    return;
  }
  // Every far side's table: the payment vendor's, and each money tool's of the scenario's own.
  const std::size_t theirs = html.find("<table id=\"ledger-", html.find("<table id=\"ledger-ours\"", ledgers) + 1);
  std::set<std::string> red_rows = refs_of(html, "<tr class=\"matched overpaid\"", theirs);
  red_rows.merge(refs_of(html, "<tr class=\"unmatched overpaid\"", theirs));
  if (html.find("<g class=\"lane job\"") == std::string::npos)
    CHECK(refs_of(html, "<g class=\"refund duplicate\"", 0, ledgers) == red_rows);
  for (std::size_t at = html.find("<rect class=\"tool "); at != std::string::npos && at < ledgers;
       at = html.find("<rect class=\"tool ", at + 1)) {
    const std::size_t end = html.find('>', at);
    if (html.substr(at, end - at).find("duplicate-effect") == std::string::npos) continue;
    for (const std::string& r : refs_of(html, "<rect class=\"tool ", at, at + 1)) CHECK(red_rows.contains(r));
  }
}

void require_self_contained(const std::string& html) {
  CHECK(html.find("http:") == std::string::npos);
  CHECK(html.find("https:") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.find("href=\"//") == std::string::npos);
  for (std::size_t i = html.find("url("); i != std::string::npos; i = html.find("url(", i + 1))
    CHECK(html.substr(i, 5) == "url(#");
  for (std::size_t i = html.find("href=\""); i != std::string::npos; i = html.find("href=\"", i + 1))
    CHECK(html.substr(i, 7) == "href=\"#");
}

}  // namespace

TEST_CASE("perfetto: the double refund in the trace event format", "[report][perfetto]") {
  const scenario sc = catalogue_scenario("double_refund");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string text = perfetto_trace(out.summary, out.spans);
  const checked_trace t = validate_trace_event_format(text);

  CHECK(t.process_names.at(1) == "workers");
  CHECK(t.process_names.at(2) == "vendors");
  CHECK(t.process_names.at(3) == "broker");
  const int worker0 = thread_named(t, "worker/0");
  const int worker1 = thread_named(t, "worker/1");
  const int payments = thread_named(t, "vendor/payments");

  auto on = [&](int pid, int tid, std::string_view ph) {
    std::vector<json> out;
    for (const json& e : t.events)
      if (e["pid"] == pid && e["tid"] == tid && e["ph"] == ph) out.push_back(e);
    return out;
  };
  // worker/0's lease ends when the rolling kill stops its pod; the broker's
  // lease runs on to 30 s and that is recorded on the span.
  const std::vector<json> leases0 = on(1, worker0, "X");
  const auto lease0 = std::find_if(leases0.begin(), leases0.end(), [](const json& e) { return e["cat"] == "lease"; });
  REQUIRE(lease0 != leases0.end());
  CHECK((*lease0)["ts"] == 0);
  CHECK((*lease0)["dur"] == 2'420'000);
  CHECK((*lease0)["args"]["ended_by"] == "stop");
  CHECK((*lease0)["args"]["lease_expired_us"] == 30'000'000);
  // Both refund calls are spans inside a lease on their worker's thread, with
  // the attributes every tool span carries.
  for (const int worker : {worker0, worker1}) {
    const std::vector<json> spans = on(1, worker, "X");
    const auto refund = std::find_if(spans.begin(), spans.end(), [](const json& e) { return e["name"] == "refund"; });
    REQUIRE(refund != spans.end());
    const json& args = (*refund)["args"];
    CHECK(args["job_id"] == "job_17");
    CHECK(args["key"] == "");
    CHECK(args["new_write"] == true);
    CHECK(args["result"].get<std::string>().starts_with("200 re_"));
    CHECK(args.contains("attempt"));
    const std::int64_t start = (*refund)["ts"], end = start + (*refund)["dur"].get<std::int64_t>();
    CHECK(std::any_of(spans.begin(), spans.end(), [&](const json& e) {
      return e["cat"] == "lease" && e["ts"].get<std::int64_t>() <= start &&
             e["ts"].get<std::int64_t>() + e["dur"].get<std::int64_t>() >= end;
    }));
  }
  // The stop that killed the slice, and the redelivered lease's ack.
  const std::vector<json> marks0 = on(1, worker0, "i");
  CHECK(std::any_of(marks0.begin(), marks0.end(),
                    [](const json& e) { return e["name"] == "stop" && e["ts"] == 2'420'000; }));
  const std::vector<json> marks1 = on(1, worker1, "i");
  CHECK(std::any_of(marks1.begin(), marks1.end(), [](const json& e) { return e["name"] == "ack"; }));
  // The vendor's two refunds, the second named for what it is.
  std::vector<std::string> refunds;
  for (const json& e : on(2, payments, "i"))
    if (e["cat"] == "refund") refunds.push_back(e["name"]);
  CHECK(refunds == std::vector<std::string>{"refund re_1", "DUPLICATE refund re_2"});
  // The broker's counters: the message is in flight while nobody holds it.
  bool in_flight_seen = false;
  for (const json& e : t.events)
    if (e["ph"] == "C" && e["name"] == "queue/jobs" && e["args"]["in_flight"] == 1) in_flight_seen = true;
  CHECK(in_flight_seen);
  CHECK(std::any_of(t.events.begin(), t.events.end(),
                    [](const json& e) { return e["ph"] == "C" && e["name"] == "dead letters"; }));
  // Same run, same bytes.
  CHECK(perfetto_trace(out.summary, cli::run_one(sc, true).spans) == text);
}

TEST_CASE("perfetto: a call that outlives its lease goes to an overlap thread", "[report][perfetto]") {
  const scenario sc = catalogue_scenario("visibility_shorter_than_tool");
  const cli::run_outcome out = cli::run_one(sc, true);
  const checked_trace t = validate_trace_event_format(perfetto_trace(out.summary, out.spans));
  // The 25 s model call runs on after the 10 s lease expired: it cannot nest
  // in the lease, so it is drawn beside it.
  const int overlap = thread_named(t, "worker/0 (overlap 1)");
  CHECK(std::any_of(t.events.begin(), t.events.end(), [&](const json& e) {
    return e["pid"] == 1 && e["tid"] == overlap && e["ph"] == "X" && e["name"] == "model";
  }));
}

TEST_CASE("trace jsonl: every line parses back into its record", "[report][jsonl]") {
  std::vector<sim::trace_record> records;
  for (const char* name : {"double_refund", "outbox", "vendor_outage_stampede"}) {
    std::vector<sim::trace_record> more = cli::run_one(catalogue_scenario(name), true).records;
    records.insert(records.end(), more.begin(), more.end());
  }
  // Strings a trace may hold: quotes, backslashes, control bytes, UTF-8.
  records.push_back(sim::trace_record{sim::instant::from_us(7),
                                      "worker/0",
                                      "tool_call",
                                      {{"key", std::string("a\"b\\c\n\t\x01 \xc3\xa9 </script>")},
                                       {"status", std::int64_t{-5}},
                                       {"new_write", true},
                                       {"empty", std::string()}}});
  const std::string text = trace_to_jsonl(records);
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');
  std::vector<nlohmann::ordered_json> lines;  // the parsed lines own the field names the records view
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::ordered_json::parse(line));
  REQUIRE(lines.size() == records.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::ordered_json& line = lines[i];
    INFO("line " << i + 1 << ": " << line.dump());
    sim::trace_record back;
    back.time = sim::instant::from_us(line.at("t_us").get<std::int64_t>());
    back.actor = line.at("actor").get<std::string>();
    back.kind = line.at("kind").get<std::string>();
    std::size_t n = 0;
    for (const auto& item : line.items()) {
      if (n++ < 3) continue;  // t_us, actor, kind come first
      const nlohmann::ordered_json& v = item.value();
      // The one documented rename: a record's `job` is `job_id` in the lines.
      CHECK(item.key() != "job");
      sim::field f{item.key() == "job_id" ? std::string_view("job") : std::string_view(item.key()), std::int64_t{0}};
      if (v.is_boolean())
        f.value = v.get<bool>();
      else if (v.is_number_integer())
        f.value = v.get<std::int64_t>();
      else if (v.is_string())
        f.value = v.get<std::string>();
      else
        FAIL("field " << item.key() << " has an unexpected type");
      back.fields.push_back(std::move(f));
    }
    CHECK(back == records[i]);
  }
}

TEST_CASE("trace jsonl: every tool span carries attempt, job_id and key", "[report][jsonl]") {
  const std::string text = trace_to_jsonl(cli::run_one(catalogue_scenario("double_refund_fixed"), true).records);
  std::istringstream in(text);
  std::size_t spans = 0;
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j.at("kind") != "tool_call") continue;
    ++spans;
    INFO(line);
    CHECK(j.at("job_id") == "job_17");
    CHECK(j.at("attempt").is_number_integer());
    CHECK(j.at("key").is_string());
    CHECK_FALSE(j.contains("job"));
  }
  CHECK(spans == 5);  // attempt 0: read, model, refund; attempts 1 and 2 resume at the refund
}

TEST_CASE("html report: the double refund, self-contained", "[report][html]") {
  const scenario sc = catalogue_scenario("double_refund");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  require_self_contained(html);
  CHECK(unbalanced_tag(html) == "");
  CHECK(html.starts_with("<!DOCTYPE html>"));
  CHECK(count(html, "data-lane=\"worker/0\"") == 1);
  CHECK(count(html, "data-lane=\"worker/1\"") == 1);
  CHECK(count(html, "data-lane=\"vendor/payments\"") == 1);
  // Both refunds on the vendor's lane; the second marked as a repeat.
  CHECK(count(html, "<g class=\"refund\" data-ref=\"re_1\" data-invoice=\"inv_17\"") == 1);
  CHECK(count(html, "<g class=\"refund duplicate\" data-ref=\"re_2\" data-invoice=\"inv_17\"") == 1);
  // The calls that made them, outlined on the workers' lanes.
  // Both refund calls made a refund; only the second, of an invoice paid
  // already, is red.
  CHECK(count(html, "class=\"tool tool-refund writes new-write paid\"") == 1);
  CHECK(count(html, "class=\"tool tool-refund writes new-write paid duplicate-effect\"") == 1);
  // Every kind of mark drawn has its legend entry, and only those.
  for (const char* key : {"lease", "end-killed", "tool-read", "tool-model", "tool-write", "new-write", "paid",
                          "paid-duplicate", "refund", "refund-duplicate", "deploy", "pod-down", "expiry"})
    CHECK(count(html, std::string("<span data-key=\"") + key + "\">") == 1);
  CHECK(count(html, "<span data-key=\"outage\">") == 0);
  CHECK(count(html, "data-invariant=\"no_double_payment\" data-held=\"false\"") == 1);
  CHECK(count(html, "data-invariant=\"ledgers_agree\" data-held=\"false\"") == 1);
  CHECK(count(html, "data-invariant=\"every_job_ends\" data-held=\"true\"") == 1);
  CHECK(html.find("2.419000s vendor refund re_1 inv_17 1999 cents key=(none)") != std::string::npos);  // evidence
  CHECK(count(html, "class=\"lease ended-stop\"") == 1);
  CHECK(count(html, "class=\"redelivery\"") == 1);
  CHECK(count(html, "class=\"deploy-window\" data-sha=\"v2\"") == 1);
  CHECK(count(html, "<tr class=\"unmatched\" data-ref=\"re_1\"") == 1);  // the vendor refund our ledger lacks
  CHECK(html_report(sc, out.summary, out.timeline, cli::run_one(sc, true).spans, out.ledgers) == html);
}

TEST_CASE("html report: red is for violations only; outages are drawn, every mark in the legend", "[report][html]") {
  // A vendor outage that every job rides out with backoff: every invariant
  // holds, so nothing on the timeline may be red.
  const scenario sc = catalogue_scenario("vendor_outage_jitter");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(unbalanced_tag(html) == "");
  CHECK(count(html, "data-held=\"false\"") == 0);
  // On the vendor's lane and on its requests chart.
  CHECK(count(html, "<title>vendor/payments outage: every request answers 503") == sc.world.payments.outages.size());
  CHECK(count(html, "<title>outage from ") == sc.world.payments.outages.size());
  CHECK(count(html, "<span data-key=\"outage\">") == 1);
  // The 503s are drawn, and the legend says what they are.
  CHECK(count(html, "class=\"vendor-mark mark-reject\"") > 0);
  CHECK(count(html, "<span data-key=\"reject\">") == 1);
  for (const char* red : {"duplicate-effect\"", "class=\"refund duplicate\"", "class=\"violation\"",
                          "<span data-key=\"violation\">", "<span data-key=\"refund-duplicate\">"})
    CHECK(count(html, red) == 0);
  // Amounts as the CLI prints them.
  CHECK(html.find(" cents</td>") != std::string::npos);
}

TEST_CASE("html report: above 40 jobs, a lane per job a violation names and a small sample", "[report][html]") {
  // 300 renewals; the slowdown's double charges break no_double_payment,
  // whose evidence names the first four overcharged jobs.
  const scenario sc = catalogue_scenario("billing_retry_double_charge");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(unbalanced_tag(html) == "");
  CHECK(html.find("id=\"timeline-jobs\" data-shown=\"10\" data-jobs=\"300\">A lane per job, for 10 of the 300 jobs: 4 "
                  "named by a violation, and a sample of 6") != std::string::npos);
  CHECK(count(html, "<g class=\"lane job\"") == 10);
  CHECK(count(html, "<g class=\"lane worker\"") == 0);
  for (const char* job : {"gen_101", "gen_102", "gen_103", "gen_104", "gen_1", "gen_2", "gen_3"})
    CHECK(count(html, std::string("<g class=\"lane job\" data-lane=\"") + job + "\"") == 1);
  // Each lane on its job's own clock, said under its name.
  CHECK(count(html, "<text class=\"lane-time\"") == 10);
  // The second charges, red; requests per 100 ms for the charge tool.
  CHECK(count(html, "duplicate-effect\"") > 0);
  CHECK(count(html, "<svg class=\"requests\" data-tool=\"vendor/charge\"") == 1);
  // What a person can read: far from the megabytes a lane per worker made.
  CHECK(html.size() < 1'000'000);
}

// ---- the tools the world has ------------------------------------------------------

namespace {

scenario from_text(const std::string& text) {
  load_result r = load_scenario_text(text, "words.toml");
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  return std::move(*r.value);
}

// The HTML report's outcome list in the summary at the top (the story
// above it is the scenario's own words).
std::string html_summary(const std::string& html) {
  const std::size_t from = html.find("<ul class=\"outcome\">");
  return html.substr(from, html.find("</ul>", from) - from);
}

}  // namespace

TEST_CASE("reports: a world without refunds lists no vendor, no refunds and no ledgers", "[report][words]") {
  const scenario sc = from_text(
      "name = \"welcome_emails\"\nseed = 3\n[[job_type]]\nname = \"welcome\"\n"
      "steps = [{ tool = \"read\", target = \"user_{job}\" }, { tool = \"email\", target = \"user_{job}\" }]\n"
      "[[job]]\nid = \"job_1\"\ntype = \"welcome\"\n");
  const cli::run_outcome out = cli::run_one(sc, true);
  CHECK(out.summary.money.empty());
  CHECK_FALSE(out.summary.keeps_ledgers());
  const std::string md = markdown_report(sc, out.summary, out.timeline);
  const std::string outcome = md.substr(md.find("## Outcome"), md.find("## Invariants") - md.find("## Outcome"));
  CHECK_THAT(outcome, !Catch::Contains("vendor") && !Catch::Contains("refund") && !Catch::Contains("ledger"));
  CHECK_THAT(outcome, Catch::Contains("- tool `email`: 1 call: 1 executed"));
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(unbalanced_tag(html) == "");
  CHECK_THAT(html_summary(html),
             !Catch::Contains("vendor") && !Catch::Contains("refund") && !Catch::Contains("ledger"));
  CHECK(count(html, "<li class=\"tool-figures\" data-tool=\"email\">") == 1);
  CHECK(count(html, "id=\"ledgers\"") == 0);
  CHECK(count(html, "data-lane=\"vendor/payments\"") == 0);
}

TEST_CASE("reports: a money tool of the scenario's own has its ledger line and table, named for it",
          "[report][words]") {
  const scenario sc = catalogue_scenario("billing_retry_double_charge");
  const cli::run_outcome out = cli::run_one(sc, true);
  REQUIRE(out.summary.money.size() == 1);
  CHECK(out.summary.money[0].tool == "charge");
  const std::string md = markdown_report(sc, out.summary, out.timeline);
  const std::string outcome = md.substr(md.find("## Outcome"), md.find("## Invariants") - md.find("## Outcome"));
  CHECK_THAT(outcome, Catch::Contains("- our ledger: 300 rows, 360000 cents\n"
                                      "- the charge tool's ledger: 332 rows, 398400 cents\n"));
  CHECK_THAT(outcome, !Catch::Contains("vendor") && !Catch::Contains("refund"));
  CHECK_THAT(outcome,
             Catch::Contains("- tool `charge`: 332 calls: 332 executed, 32 timed out; at most 4 in one 100 ms\n"));
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(unbalanced_tag(html) == "");
  const std::string summary = html_summary(html);
  CHECK_THAT(summary, !Catch::Contains("vendor") && !Catch::Contains("refund"));
  CHECK_THAT(summary,
             Catch::Contains("<li class=\"money-ledger\" data-tool=\"charge\">the charge tool&#39;s ledger: 332 "
                             "rows, 398400 cents</li>"));
  CHECK(count(html, "<h2>Our ledger beside the charge tool&#39;s</h2>") == 1);
  CHECK(count(html, "<table id=\"ledger-charge\" data-tool=\"charge\">") == 1);
  CHECK(count(html, "id=\"ledger-vendor\"") == 0);
  CHECK(count(html, "<tr class=\"total\"><td>332 rows</td>") == 1);
}

TEST_CASE("reports: the refund tool's ledger is the payment vendor's, on a line of its own", "[report][words]") {
  const scenario sc = catalogue_scenario("double_refund");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string md = markdown_report(sc, out.summary, out.timeline);
  CHECK_THAT(md, Catch::Contains("- our ledger: 1 row, 1999 cents\n- the payment vendor's ledger: 2 refunds, 3998 "
                                 "cents\n"));
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(count(html,
              "<li class=\"money-ledger\" data-tool=\"refund\">the payment vendor&#39;s ledger: 2 refunds, 3998 "
              "cents</li>") == 1);
  CHECK(count(html, "<table id=\"ledger-vendor\" data-tool=\"refund\">") == 1);
  CHECK(count(html, "<tr class=\"total\"><td>2 refunds</td>") == 1);
}

TEST_CASE("reports: Sidekiq's retry set is scheduled, never in flight, and its retries leave it",
          "[report][words][sidekiq]") {
  const scenario sc = from_text(
      "name = \"sidekiq_retry\"\nseed = 3\n[queue]\nflavour = \"sidekiq\"\n[workers]\ncount = 1\n"
      "[vendor]\nlatency = { fixed = \"400ms\" }\n"
      "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n"
      "[[fault]]\npoint = \"after_tool\"\nstep = 3\nmax_times = 2\naction = \"error\"\n");
  const cli::run_outcome out = cli::run_one(sc, true);
  std::string text;
  for (const timeline_line& l : out.timeline) text += format_timeline_line(l) + "\n";
  INFO(text);
  // Due at 20.572920s; the scheduled poller's next look takes it (K4).
  CHECK_THAT(text, Catch::Contains("21.900627s  queue/jobs       job_1 leaves the retry set for the back of the queue: "
                                   "the 19.000000s backoff after attempt 0 ended, and the scheduled poller's look "
                                   "came 1.327707s later (worker/0 scheduled the retry of delivery 1)\n"));
  CHECK_THAT(text, !Catch::Contains("visible again") && !Catch::Contains("lease") && !Catch::Contains("(nack;"));
  // The samples while the retry waits: one scheduled, none busy.
  bool waited = false;
  for (const queue_sample& q : out.spans.samples) {
    if (q.at.us() <= 2'000'000 || q.at.us() >= 20'000'000) continue;
    waited = true;
    CHECK(q.in_flight == 0);
    CHECK(q.delayed == 1);
  }
  CHECK(waited);
  // The depth chart in Sidekiq's words.
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(count(html, "<title>scheduled (retries), at most 1</title>") == 1);
  CHECK(count(html, "<title>busy, at most 1</title>") == 1);
  CHECK(count(html, ">in flight (peak") == 0);
  // The backoff chart: no cap, as the header and the backoff lines say.
  CHECK(count(html, "data-capped=\"false\"") == 1);
  CHECK(count(html, "; Sidekiq's schedule has no cap: its last retry waits at most 92h14m</text>") == 1);
  CHECK(count(html, "class=\"cap\"") == 0);
  CHECK(count(html, "the cap 92h14m") == 0);
  // The legend and the tooltips: a job held by its process, no lease.
  CHECK(count(html,
              "</svg>held: the process took the job off the queue (BRPOP) and holds it until it ends; no lease "
              "runs out</span>") == 1);
  CHECK(count(html, "ended by a failure, scheduled in the retry set</title>") == 2);
  CHECK(count(html, "</svg>failure: the job is scheduled in the retry set</span>") == 1);
  CHECK(count(html, "</svg>lease") == 0);
  CHECK(count(html, "</svg>nack") == 0);
}

TEST_CASE("timeline: Celery's sweep and countdowns, Pub/Sub's ack deadline, in their own words", "[report][words]") {
  auto text_of = [](std::string_view name) {
    std::string text;
    for (const timeline_line& l : cli::run_one(catalogue_scenario(name), true).timeline)
      text += format_timeline_line(l) + "\n";
    return text;
  };
  const std::string celery = text_of("celery_eta_beyond_visibility");
  INFO(celery);
  CHECK_THAT(celery,
             Catch::Contains("backoff 7200.000000s after attempt 0 of job_1 (Task.retry: published again with a "
                             "countdown; cap 7200.000000s): 503 unavailable\n"));
  CHECK_THAT(celery, Catch::Contains("3700.000000s  queue/jobs       job_1 restored by the unacked sweep: delivery 1 "
                                     "outlived the visibility timeout unacked\n"));
  CHECK_THAT(celery, !Catch::Contains("(nack;") && !Catch::Contains("visible again"));
  const std::string pubsub = text_of("pubsub_no_lease_management");
  INFO(pubsub);
  CHECK_THAT(pubsub,
             Catch::Contains("10.000000s  queue/jobs       job_1 available again: the ack deadline of delivery 1 "
                             "ran out\n"));
  CHECK_THAT(pubsub, !Catch::Contains("visible again") && !Catch::Contains("the lease of"));
  // The report's marks say the same.
  const scenario sc = catalogue_scenario("pubsub_no_lease_management");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(count(html, "the ack deadline of job_1 (delivery 1) ran out: the message is available again</title>") == 1);
  CHECK(count(html, "ended by the ack deadline running out</title>") == 2);
  CHECK(count(html, "</svg>ack deadline ran out (&#x25c6;) and the redelivery it caused (dashed arrow)</span>") == 1);
  CHECK(count(html, "the lease of") == 0);
}

TEST_CASE("timeline: a backoff that ended is told from a lease that ran out", "[report][timeline]") {
  // double_refund_fixed nacks with a 0.3 s backoff on a 30 s lease: the
  // message comes back because the worker asked, not because a lease ran out.
  const scenario fixed = catalogue_scenario("double_refund_fixed");
  std::string text;
  for (const timeline_line& l : cli::run_one(fixed, true).timeline) text += format_timeline_line(l) + "\n";
  CHECK(text.find("2.730560s  queue/jobs       job_17 visible again: the 0.307560s backoff after attempt 0 ended "
                  "(worker/0 nacked delivery 1)\n") != std::string::npos);
  CHECK(text.find("ran out") == std::string::npos);
  // The double refund's message comes back because worker/0 was killed.
  const scenario broken = catalogue_scenario("double_refund");
  text.clear();
  for (const timeline_line& l : cli::run_one(broken, true).timeline) text += format_timeline_line(l) + "\n";
  CHECK(text.find("30.000000s  queue/jobs       job_17 visible again: the lease of delivery 1 ran out\n") !=
        std::string::npos);
  CHECK(text.find("backoff after") == std::string::npos);
}

TEST_CASE("timeline: a nack the broker refused, or a delivery in between, leaves a lease that runs out",
          "[report][timeline]") {
  auto record = [](std::int64_t us, std::string actor, std::string kind, std::vector<sim::field> fields) {
    return sim::trace_record{sim::instant::epoch() + sim::duration::from_us(us), std::move(actor), std::move(kind),
                             std::move(fields)};
  };
  const auto backoff =
      record(10, "worker/0", "backoff",
             {{"job", "j"}, {"attempt", std::int64_t{2}}, {"delay_us", std::int64_t{500}}, {"mode", "nack"}});
  const auto expired = record(510, "queue/jobs", "lease_expired", {{"body", "j"}, {"receive_count", std::int64_t{3}}});
  auto text_of = [&](const std::vector<sim::trace_record>& records) {
    const std::vector<timeline_line> lines = build_timeline(records);
    REQUIRE_FALSE(lines.empty());
    return lines.back().text;
  };
  CHECK(text_of({backoff, record(10, "worker/0", "nack", {{"job", "j"}, {"status", "ok"}}), expired}) ==
        "j visible again: the 0.000500s backoff after attempt 2 ended (worker/0 nacked delivery 3)");
  CHECK(text_of({backoff, record(10, "worker/0", "nack", {{"job", "j"}, {"status", "stale_handle"}}), expired}) ==
        "j visible again: the lease of delivery 3 ran out");
  CHECK(text_of({backoff, record(10, "worker/0", "nack", {{"job", "j"}, {"status", "ok"}}),
                 record(300, "queue/jobs", "receive", {{"body", "j"}, {"receive_count", std::int64_t{3}}}), expired}) ==
        "j visible again: the lease of delivery 3 ran out");
  // Another job's nack says nothing about this one.
  CHECK(text_of({record(10, "worker/0", "backoff", {{"job", "k"}, {"delay_us", std::int64_t{500}}, {"mode", "nack"}}),
                 record(10, "worker/0", "nack", {{"job", "k"}, {"status", "ok"}}), expired}) ==
        "j visible again: the lease of delivery 3 ran out");
}

TEST_CASE("html report: a backoff's redelivery is drawn apart from an expired lease's", "[report][html]") {
  const scenario sc = catalogue_scenario("double_refund_fixed");
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(count(html, "<path class=\"redelivery-after-backoff\"") == 2);
  CHECK(count(html, "class=\"redelivery\"") == 0);
  CHECK(count(html, "class=\"expiry\"") == 0);
  CHECK(html.find("job_17 redelivered: the backoff after worker/0's nack ended; worker/1 takes delivery 2") !=
        std::string::npos);
}

TEST_CASE("html report: a run's text is escaped", "[report][html]") {
  load_result loaded = load_scenario_text(R"(# <script>alert("story")</script> & 'more' <b>
[[job]]
id = "j"
invoice = "inv"
amount_cents = 100
)",
                                          "tests/<odd> & \"path\".toml");
  for (const scenario_error& e : loaded.errors) INFO(e.to_string());
  REQUIRE(loaded.value);
  const scenario& sc = *loaded.value;
  const cli::run_outcome out = cli::run_one(sc, true);
  const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
  CHECK(html.find("<script>alert") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;story&quot;)&lt;/script&gt; &amp; &#39;more&#39; &lt;b&gt;") !=
        std::string::npos);
  CHECK(html.find("tests/&lt;odd&gt; &amp; &quot;path&quot;.toml") != std::string::npos);
  CHECK(unbalanced_tag(html) == "");
}

TEST_CASE("every catalogue scenario: the four outputs, valid", "[report][catalogue]") {
  for (const std::filesystem::path& file : catalogue_files()) {
    INFO(file.string());
    const scenario sc = load(file);
    const cli::run_outcome out = cli::run_one(sc, true);
    const run_spans& spans = out.spans;
    const checked_trace t = validate_trace_event_format(perfetto_trace(out.summary, out.spans));
    const std::string html = html_report(sc, out.summary, out.timeline, out.spans, out.ledgers);
    require_self_contained(html);
    CHECK(unbalanced_tag(html) == "");
    REQUIRE(!spans.lanes.empty());
    for (const std::string& lane : spans.lanes) {
      // A lane per worker up to 40 jobs; above, a lane per chosen job.
      if (out.summary.jobs_total <= 40) CHECK(count(html, "data-lane=\"" + lane + "\"") == 1);
      thread_named(t, lane);
    }
    if (out.summary.jobs_total > 40) {
      CHECK(count(html, "<g class=\"lane job\"") >= 1);
      CHECK(count(html, "<g class=\"lane job\"") <= 30);
      CHECK(count(html, "<g class=\"lane worker\"") == 0);
    }
    for (const verdict& v : out.summary.verdicts)
      CHECK(count(html, "data-invariant=\"" + v.name + "\" data-held=\"" + (v.held ? "true" : "false") + "\"") == 1);
    // Every vendor refund is on the timeline (with its lane: up to 40 jobs).
    if (out.summary.jobs_total <= 40) CHECK(count(html, "data-amount-cents=") == out.ledgers.their_rows());
    // The ledger tables and the timeline mark the same refunds red.
    same_refunds_red(html);
    CHECK(!trace_to_jsonl(out.records).empty());
  }
}

TEST_CASE("run: --perfetto and --report write one scenario's files, never over an input", "[report][cli]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "twice_test_report_outputs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string scenario_path = (catalogue / "double_refund.toml").string();

  cli::run_options two;
  two.files = {scenario_path, (catalogue / "double_refund_fixed.toml").string()};
  two.quiet = true;
  two.report_path = (dir / "two.html").string();
  CHECK(cli::run_command(two) == 2);
  CHECK(!std::filesystem::exists(dir / "two.html"));

  cli::run_options over;
  over.files = {scenario_path};
  over.quiet = true;
  over.perfetto_path = scenario_path;
  CHECK(cli::run_command(over) == 2);

  cli::run_options one;
  one.files = {scenario_path};
  one.json = true;  // one line on stdout instead of the whole story
  one.perfetto_path = (dir / "run.json").string();
  one.report_path = (dir / "run.html").string();
  CHECK(cli::run_command(one) == 0);
  validate_trace_event_format(twice::test::read_text(dir / "run.json"));
  CHECK(twice::test::read_text(dir / "run.html").find("data-lane=\"worker/1\"") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("html report: built as the run goes without the records it is the page a kept run draws", "[report][html]") {
  // metastable_retry_storm: over 2,000 story lines and 27,462 attempts, so the
  // page lists the first lines, counts the rest, and counts attempts per job.
  for (const char* name : {"double_refund", "metastable_retry_storm"}) {
    INFO(name);
    const scenario sc = catalogue_scenario(name);
    const cli::run_outcome kept = cli::run_one(sc, true);
    const cli::run_outcome streamed =
        cli::run_one(sc, cli::run_keeps{.records = false, .spans = true, .attempts = true, .story = true});
    CHECK(streamed.records.empty());
    REQUIRE(streamed.timeline_total.has_value());
    CHECK(*streamed.timeline_total == kept.timeline.size());
    CHECK(streamed.timeline.size() == std::min(kept.timeline.size(), html_story_lines_shown));
    CHECK(html_report(sc, streamed.summary, streamed.timeline, streamed.spans, streamed.ledgers,
                      streamed.timeline_total) ==
          html_report(sc, kept.summary, kept.timeline, kept.spans, kept.ledgers));
  }
}
