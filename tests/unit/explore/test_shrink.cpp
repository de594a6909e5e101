// The shrinker on scenarios made for it: a generated workload comes out
// with fewer jobs over a shorter window, fewer job types and tenants and
// fewer random draws, each step named; a shrink stopped by its candidate
// budget or a deadline says so (never by wall time here: a budget of one
// candidate, or a deadline already passed); --time-limit's split.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <twice/explore/explore.hpp>
#include "explore/probe.hpp"
#include <twice/explore/result_file.hpp>
#include "explore/shrink.hpp"
#include <twice/explore/time_limit.hpp>
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"

using namespace twice;
using namespace twice::explore;
using namespace twice::scenario_detail;

namespace {

doc_node parsed(std::string_view text) {
  parsed_document p = parse_document(text, "shrink.toml");
  REQUIRE(p.ok);
  return std::move(p.root);
}

// The failing scenario shrunk for `invariant`, after checking it fails.
shrink_outcome shrunk(std::string_view text, const std::string& invariant, shrink_options options = {}) {
  const doc_node doc = parsed(text);
  const probe_result before = probe_document(doc, "shrink.toml");
  for (const scenario_error& e : before.errors) INFO(e.to_string());
  REQUIRE(before.loaded);
  REQUIRE(before.violates(invariant));
  shrink_outcome out = shrink(doc, invariant, "shrink.toml", options);
  // What it kept still loads as text and still fails.
  const probe_result after = probe_text(write_document(out.doc), "shrink.toml");
  REQUIRE(after.loaded);
  CHECK(after.violates(invariant));
  return out;
}

const doc_node* at(const doc_node& doc, std::string_view path) { return find_node(doc, *parse_key_path(path)); }

bool has_step(const shrink_outcome& s, std::string_view step) {
  return std::find(s.steps.begin(), s.steps.end(), step) != s.steps.end();
}

std::string all_steps(const shrink_outcome& s) {
  std::string out;
  for (const std::string& step : s.steps) out += step + "\n";
  return out;
}

// Every generated job's first refund errors after the vendor refunded and
// there is no key: each job pays twice. One job is enough to show it.
constexpr std::string_view every_job_pays_twice = R"(seed = 3
[workers]
count = 2
[discipline]
key = "none"
[[fault]]
point = "after_tool"
tool = "refund"
attempt = 0
action = "error"
[workload]
count = 64
start = "10s"
interval = "2s"
arrival = "poisson"
amount_cents = [100, 900]
email_probability = 0.5
)";

}  // namespace

TEST_CASE("a generated workload shrinks to the one job its violation needs, arriving at once", "[shrink]") {
  const shrink_outcome s = shrunk(every_job_pays_twice, "no_double_payment");
  INFO(all_steps(s));
  CHECK_FALSE(s.cut_short);
  CHECK(s.stop == shrink_stop::finished);
  REQUIRE(at(s.doc, "workload.count") != nullptr);
  CHECK(at(s.doc, "workload.count")->integer == 1);
  CHECK(has_step(s, "workload.count: 64 -> 1"));
  CHECK(has_step(s, "workload.start: 10s -> 0s"));
  CHECK(has_step(s, "workload.arrival: poisson -> even"));
  CHECK(has_step(s, "workload.amount_cents: [100, 900] -> 100"));
  CHECK(has_step(s, "workload.email_probability: 0.5 -> 0"));
  CHECK(at(s.doc, "workload.email_probability") == nullptr);
}

TEST_CASE("a workload whose violation needs its third job keeps three, closer together", "[shrink]") {
  std::string text(every_job_pays_twice);
  // Only gen_3's refund errors: the count cannot go below 3 (a fault naming
  // a job that is not there does not load, so such a candidate is not kept).
  text.replace(text.find("attempt = 0\n"), 0, "job = \"gen_3\"\n");
  const shrink_outcome s = shrunk(text, "no_double_payment");
  INFO(all_steps(s));
  CHECK(at(s.doc, "workload.count")->integer == 3);
  CHECK(has_step(s, "workload.count: 64 -> 32"));
  // The window: two seconds apart, then halves down to a millisecond.
  CHECK(has_step(s, "workload.interval: 2s -> 1s"));
  CHECK(has_step(s, "workload.interval: 3ms -> 1ms"));
  CHECK(at(s.doc, "workload.interval")->text == "1ms");

  // With a rate instead, the rate doubles.
  text.replace(text.find("interval = \"2s\""), 15, "rate = 2");
  const shrink_outcome r = shrunk(text, "no_double_payment");
  INFO(all_steps(r));
  CHECK(has_step(r, "workload.rate: 2 -> 4"));
  CHECK(at(r.doc, "workload.rate")->integer > 1000);
}

TEST_CASE("a job type the violation does not need is dropped with its mix entry, and so are tenants", "[shrink]") {
  // Payouts pay twice; reports only read. Two tenants, one per type.
  constexpr std::string_view text = R"(seed = 4
[workers]
count = 2
[discipline]
key = "none"
[[job_type]]
name = "payout"
tenant = "acme"
steps = [{ tool = "refund", target = "inv_{job}", amount_cents = 100 }]
[[job_type]]
name = "report"
tenant = "beta"
steps = [{ tool = "read", target = "export_{job}" }]
[[job_type]]
name = "unused"
steps = [{ tool = "read", target = "nothing" }]
[[fault]]
point = "after_tool"
tool = "refund"
attempt = 0
action = "error"
[workload]
count = 40
interval = "500ms"
types = [{ type = "payout", weight = 3 }, { type = "report", weight = 1 }]
)";
  const shrink_outcome s = shrunk(text, "no_double_payment");
  INFO(all_steps(s));
  CHECK(has_step(s, "removed job_type[2] (unused)"));
  CHECK(has_step(s, "removed job_type[1] (report) and its workload.types entry"));
  CHECK(has_step(s, "workload.types[0].weight: 3 -> 1 (the only type)"));
  CHECK(has_step(s, "removed tenant acme (job_type[0])"));
  REQUIRE(at(s.doc, "job_type") != nullptr);
  CHECK(at(s.doc, "job_type")->items.size() == 1);
  CHECK(at(s.doc, "job_type[0].name")->text == "payout");
  CHECK(at(s.doc, "job_type[0].tenant") == nullptr);
  CHECK(at(s.doc, "workload.types")->items.size() == 1);
  CHECK(at(s.doc, "workload.count")->integer == 1);
}

TEST_CASE("a workload beside [[job]] tables goes whole when the jobs alone still fail", "[shrink]") {
  // The fault names the [[job]], so it is the one that pays twice.
  std::string text(every_job_pays_twice);
  text.replace(text.find("attempt = 0\n"), 0, "job = \"j1\"\n");
  text += "\n[[job]]\nid = \"j1\"\ninvoice = \"inv_j1\"\namount_cents = 100\n";
  const shrink_outcome s = shrunk(text, "no_double_payment");
  INFO(all_steps(s));
  CHECK(has_step(s, "removed [workload] (64 generated jobs)"));
  CHECK(at(s.doc, "workload") == nullptr);
}

TEST_CASE("a shrink stopped by its candidate budget or a deadline says so", "[shrink]") {
  // The first candidate (the only fault rule removed) is not kept: the
  // shrink stops having changed nothing, and is still cut short.
  const shrink_outcome one = shrunk(every_job_pays_twice, "no_double_payment", {1, std::nullopt});
  CHECK(one.runs == 1);
  CHECK(one.steps.empty());
  CHECK(one.cut_short);
  CHECK(one.stop == shrink_stop::candidates);
  CHECK(stop_reason(one.stop, 1) == "its budget of 1 candidate");
  CHECK(stop_name(one.stop) == "candidates");

  const shrink_outcome late =
      shrunk(every_job_pays_twice, "no_double_payment", {400, std::chrono::steady_clock::now()});
  CHECK(late.runs == 0);
  CHECK(late.cut_short);
  CHECK(late.stop == shrink_stop::deadline);
  CHECK(stop_reason(late.stop, 400) == "the time limit");
  CHECK(stop_name(late.stop) == "time_limit");

  const shrink_outcome whole = shrunk(every_job_pays_twice, "no_double_payment");
  CHECK_FALSE(whole.cut_short);
  CHECK(stop_name(whole.stop).empty());
}

TEST_CASE("--time-limit keeps a fifth for shrinking", "[shrink]") {
  using sim::duration;
  CHECK(split_time_limit(duration::from_s(60)) ==
        time_split{duration::from_s(60), duration::from_s(48), duration::from_s(12)});
  CHECK(split_time_limit(duration::from_us(7)) ==
        time_split{duration::from_us(7), duration::from_us(5), duration::from_us(2)});
  CHECK(split_time_limit(duration::zero()).runs == duration::zero());

  explore_options options;
  const auto start = std::chrono::steady_clock::now();
  limit_time(options, start, duration::from_s(10));
  CHECK(options.deadline == start + std::chrono::seconds(8));
  CHECK(options.shrink_deadline == start + std::chrono::seconds(10));
  CHECK(options.time_limit->shrink == duration::from_s(2));
}

TEST_CASE("an exploration says a shrink was cut short: in the repro's header and in its result", "[shrink]") {
  std::string text(every_job_pays_twice);
  text.insert(0, "name = \"pays_twice\"\n");
  text += "[explore]\nswarm = false\n";  // every run keeps the fault
  prepared p = prepare_text(text, "pays_twice.toml");
  REQUIRE(p.input);
  explore_options options;
  options.runs = 2;
  options.shrink_runs = 1;
  limit_time(options, std::chrono::steady_clock::now(), sim::duration::from_s(600));  // never reached here
  const explore_result r = run_explore(*p.input, options);
  REQUIRE(r.findings.size() == 1);
  const finding& f = r.findings.front();
  CHECK(f.shrunk.cut_short);
  CHECK(f.repro_checked);
  CHECK(f.repro_text.find("(1 candidate tried, cut short by its budget of 1 candidate)") != std::string::npos);
  CHECK(f.repro_text.find("# Shrinking was cut short: a smaller scenario may still show the violation.") !=
        std::string::npos);
  const nlohmann::json j =
      nlohmann::json::parse(result_json(stamp_of(*p.input, options, r.root_seed, "twice test"), *p.input, r));
  CHECK(j.at("findings").at(0).at("cut_short") == true);
  CHECK(j.at("findings").at(0).at("cut_short_by") == "candidates");
  CHECK(j.at("time_limit").at("limit_us") == 600'000'000);
  CHECK(j.at("time_limit").at("runs_us") == 480'000'000);
  CHECK(j.at("time_limit").at("shrink_us") == 120'000'000);

  // Whole, and without a limit: not cut short, no split.
  options = {};
  options.runs = 2;
  const explore_result whole = run_explore(*p.input, options);
  REQUIRE(whole.findings.size() == 1);
  CHECK_FALSE(whole.findings.front().shrunk.cut_short);
  CHECK(whole.findings.front().repro_text.find("cut short") == std::string::npos);
  const nlohmann::json k =
      nlohmann::json::parse(result_json(stamp_of(*p.input, options, whole.root_seed, "twice test"), *p.input, whole));
  CHECK(k.at("findings").at(0).at("cut_short") == false);
  CHECK(k.at("findings").at(0).at("cut_short_by").is_null());
  CHECK(k.at("time_limit").is_null());
}
