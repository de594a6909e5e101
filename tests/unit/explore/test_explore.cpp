// `twice explore` as a library: the [explore] table's loading and errors,
// the document writer (a scenario written back loads as the same world),
// run plans (a pure function of root seed and index), the explorer's
// independence from the thread count, and, for each bug switch of the
// catalogue, a found, shrunk, small repro that reproduces when read back.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include <twice/explore/explore.hpp>
#include "explore/probe.hpp"
#include "explore/variation.hpp"
#include "scenario/doc_writer.hpp"
#include "scenario/key_path.hpp"
#include <twice/scenario/scenario.hpp>

#include "test_files.hpp"

using namespace twice;
using namespace twice::explore;

namespace {

using twice::test::catalogue;
using twice::test::read_text;
using twice::test::repo_root;

// Replaces the one occurrence of `from` (the switch flipped).
std::string flip(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

std::vector<std::string> errors_of(std::string_view text) {
  std::vector<std::string> out;
  for (const scenario_error& e : load_scenario_text(text, "x.toml").errors) out.push_back(e.to_string());
  return out;
}

explore_input prepared_ok(std::string_view text, std::string path = "flipped.toml") {
  prepared p = prepare_text(text, path);
  for (const scenario_error& e : p.errors) INFO(e.to_string());
  REQUIRE(p.errors.empty());
  REQUIRE(p.input);
  return std::move(*p.input);
}

constexpr std::string_view one_job = R"(seed = 5
[workers]
count = 2
[[job]]
id = "job_1"
invoice = "inv_1"
amount_cents = 100
[[crash]]
at = "1s"
worker = 1
)";

}  // namespace

TEST_CASE("[explore] loads swarm and ranges in their units", "[explore]") {
  const std::string text = std::string(one_job) + R"(
[explore]
swarm = false
[explore.vary]
"crash[0].at" = ["100ms", "2s"]
"vendor.error_rates.lost_response" = [0, "0.25"]
"workers.count" = [1, 4]
"tools.model.latency.fixed" = ["1s", "1s"]
)";
  const load_result r = load_scenario_text(text, "x.toml");
  REQUIRE(r.ok());
  const explore_spec& e = r.value->explore;
  CHECK(e.present);
  CHECK_FALSE(e.swarm);
  REQUIRE(e.vary.size() == 4);
  // toml++ hands keys over sorted.
  CHECK(e.vary[0].path == "crash[0].at");
  CHECK(e.vary[0].kind == explore_value::time);
  CHECK(e.vary[0].lo == 100'000);
  CHECK(e.vary[0].hi == 2'000'000);
  CHECK(e.vary[0].line == 15);
  CHECK(e.vary[1].path == "tools.model.latency.fixed");
  CHECK(e.vary[2].path == "vendor.error_rates.lost_response");
  CHECK(e.vary[2].kind == explore_value::probability);
  CHECK(e.vary[2].hi == 250'000);
  CHECK(e.vary[3].kind == explore_value::integer);
  CHECK(e.vary[3].hi == 4);
  // And the world is the file as written: `twice run` ignores [explore].
  CHECK(r.value->world.workers == 2);
  CHECK(r.value->world.payments.lost_response_ppm == 0);
}

TEST_CASE("[explore] mistakes are located, with did-you-mean", "[explore]") {
  const std::string base(one_job);
  CHECK(errors_of(base + "[explore]\nswarn = true\n") ==
        std::vector<std::string>{"x.toml:12:1: explore.swarn: unknown key; did you mean `swarm`?"});
  CHECK(errors_of(base + "[explore]\nswarm = 1\n") ==
        std::vector<std::string>{"x.toml:12:9: explore.swarm: expected true or false, found integer 1"});
  CHECK(errors_of(base + "[explore.vary]\n\"crash[0].att\" = [\"1s\", \"2s\"]\n") ==
        std::vector<std::string>{
            "x.toml:12:1: explore.vary.\"crash[0].att\": not a key explore can vary; did you mean `crash[0].at`?"});
  CHECK(errors_of(base + "[explore.vary]\n\"crash[1].at\" = [\"1s\", \"2s\"]\n") ==
        std::vector<std::string>{"x.toml:12:17: explore.vary.\"crash[1].at\": crash[1].at names element 1 of `crash`, "
                                 "but the file has 1 such table (numbered from 0)"});
  CHECK(errors_of(base + "[explore.vary]\n\"crash[0].at\" = [\"2s\", \"1s\"]\n") ==
        std::vector<std::string>{
            "x.toml:12:17: explore.vary.\"crash[0].at\": the upper bound 1s is below the lower bound 2s"});
  CHECK(errors_of(base + "[explore.vary]\n\"crash[0].at\" = [\"2s\"]\n") ==
        std::vector<std::string>{"x.toml:12:17: explore.vary.\"crash[0].at\": expected a range [lo, hi] like "
                                 "[\"1s\", \"30s\"], found 1 value"});
  CHECK(errors_of(base + "[explore.vary]\n\"workers.count\" = [0, 3]\n") ==
        std::vector<std::string>{
            "x.toml:12:20: explore.vary.\"workers.count\"[0]: must be between 1 and 10000, found 0"});
  // Unquoted, TOML reads the dots as tables.
  const std::vector<std::string> dotted = errors_of(base + "[explore.vary]\ncrash.at = [\"1s\", \"2s\"]\n");
  REQUIRE(dotted.size() == 1);
  CHECK(dotted[0].find("x.toml:12:1: explore.vary.crash: a key path goes in quotes") == 0);
}

TEST_CASE("[explore] varies a tool of the file's own as it varies a built-in", "[explore]") {
  const std::string tool = R"(
[tools.upload]
effect = "write"
keys = "dedupe"
[[tools.upload.outage]]
start = "1s"
end = "2s"
)";
  const std::string text = std::string(one_job) + tool + R"(
[explore.vary]
"tools.upload.key_retention" = ["1m", "1h"]
"tools.upload.error_rates.lost_response" = [0, "0.1"]
"tools.upload.outage[0].end" = ["2s", "5s"]
"tools.read.servers" = [1, 4]
)";
  const load_result r = load_scenario_text(text, "x.toml");
  REQUIRE(r.ok());
  REQUIRE(r.value->explore.vary.size() == 4);
  CHECK(r.value->explore.vary[1].path == "tools.upload.error_rates.lost_response");
  CHECK(r.value->explore.vary[1].kind == explore_value::probability);
  const std::string base = std::string(one_job) + tool;
  CHECK(errors_of(base + "[explore.vary]\n\"tools.uplaod.capacity\" = [1, 4]\n") ==
        std::vector<std::string>{
            "x.toml:19:1: explore.vary.\"tools.uplaod.capacity\": not a key explore can vary; did you mean "
            "`tools.upload.capacity`?"});
  CHECK(errors_of(base + "[explore.vary]\n\"tools.refund.capacity\" = [1, 4]\n").size() == 1);  // it is vendor.capacity
  // A swarm run may remove the own tool's outage like any other fault.
  const prepared p = prepare_text(text, "x.toml");
  REQUIRE(p.errors.empty());
}

TEST_CASE("explore checks each bound by loading the scenario with it", "[explore]") {
  // crash[0].worker 5 does not exist: the loader's reason, at the range.
  const std::string text = std::string(one_job) + "[explore.vary]\n\"crash[0].worker\" = [0, 5]\n";
  const prepared p = prepare_text(text, "x.toml");
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].to_string() ==
        "x.toml:12:21: explore.vary.\"crash[0].worker\": with the upper bound 5, the scenario does not load: "
        "crash[0].worker: worker 5 does not exist: workers.count is 2, so workers are numbered 0 to 1");
}

TEST_CASE("key paths parse as error messages print them", "[explore]") {
  using scenario_detail::parse_key_path;
  const auto p = parse_key_path("vendor.outage[2].start");
  REQUIRE(p);
  CHECK(p->pattern() == "vendor.outage[].start");
  CHECK(p->to_string() == "vendor.outage[2].start");
  CHECK(p->indices() == std::vector<std::size_t>{2});
  for (const std::string_view bad : {"", ".a", "a.", "a[]", "a[x]", "a[1]b", "a..b", "a b"}) {
    INFO(bad);
    CHECK_FALSE(parse_key_path(bad));
  }
}

TEST_CASE("every catalogue scenario written back loads as the same world", "[explore]") {
  for (const auto& entry : std::filesystem::directory_iterator(repo_root() / "scenarios")) {
    INFO(entry.path().string());
    const std::string text = read_text(entry.path());
    const scenario_detail::parsed_document doc = scenario_detail::parse_document(text, "a.toml");
    REQUIRE(doc.ok);
    const std::string written = scenario_detail::write_document(doc.root);
    // A fixed point: written again, the text does not change.
    CHECK(scenario_detail::write_document(scenario_detail::parse_document(written, "b.toml").root) == written);
    const probe_result original = probe_text(text, "a.toml");
    const probe_result again = probe_text(written, "a.toml");
    REQUIRE(original.loaded);
    REQUIRE(again.loaded);
    CHECK(original.trace_digest == again.trace_digest);
  }
}

TEST_CASE("the writer quotes what needs quoting and keeps floats floats", "[explore]") {
  const std::string text = R"(name = "a \"quoted\"\tname"
[vendor]
error_rates = { lost_response = 1.0, unavailable = 0.125 }
[explore.vary]
"crash[0].at" = ["1s", "2s"]
)";
  const auto doc = scenario_detail::parse_document(text, "x.toml");
  REQUIRE(doc.ok);
  const std::string written = scenario_detail::write_document(doc.root);
  CHECK(written.find(R"(name = "a \"quoted\"\tname")") != std::string::npos);
  CHECK(written.find("error_rates = { lost_response = 1.0, unavailable = 0.125 }") != std::string::npos);
  CHECK(written.find(R"("crash[0].at" = ["1s", "2s"])") != std::string::npos);
}

TEST_CASE("a run plan is a pure function of the root seed and the run index", "[explore]") {
  const explore_input in = prepared_ok(catalogue("double_refund_fixed.toml"));
  CHECK(in.kinds == std::vector<std::string>{"fault:after_tool:error"});
  const run_plan a = plan_run(*in.base, in.spec, 17, 3);
  const run_plan b = plan_run(*in.base, in.spec, 17, 3);
  CHECK(scenario_detail::write_document(a.doc) == scenario_detail::write_document(b.doc));
  CHECK(a.world_seed == b.world_seed);
  CHECK(a.world_seed == sim::random_root(17).stream("explore.run.3").next_u64() >> 1);
  CHECK(plan_run(*in.base, in.spec, 17, 4).world_seed != a.world_seed);
  CHECK(plan_run(*in.base, in.spec, 18, 3).world_seed != a.world_seed);
  // Swarm keeps or drops each kind with even odds: over 64 runs both happen,
  // and a dropped kind leaves no rule of its kind behind.
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < 64; ++i) {
    const run_plan p = plan_run(*in.base, in.spec, 17, i);
    const bool gone = !p.kinds_dropped.empty();
    dropped += gone;
    CHECK((p.doc.find("fault") == nullptr) == gone);
  }
  CHECK(dropped > 10);
  CHECK(dropped < 54);
}

TEST_CASE("ranges draw within their bounds and land in the world", "[explore]") {
  const std::string text = std::string(one_job) +
                           "[explore]\nswarm = false\n[explore.vary]\n\"crash[0].at\" = [\"100ms\", \"900ms\"]\n"
                           "\"vendor.error_rates.unavailable\" = [0, 0.5]\n";
  const explore_input in = prepared_ok(text);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < 20; ++i) {
    const run_plan p = plan_run(*in.base, in.spec, 1, i);
    const load_result r = load_scenario_text(scenario_detail::write_document(p.doc), "x.toml");
    REQUIRE(r.ok());
    REQUIRE(r.value->world.crashes.size() == 1);
    const std::int64_t at = r.value->world.crashes[0].at.us();
    CHECK(at >= 100'000);
    CHECK(at <= 900'000);
    CHECK(r.value->world.payments.unavailable_ppm <= 500'000);
    CHECK(r.value->world.seed == p.world_seed);
    seen.insert(at);
  }
  CHECK(seen.size() > 10);
}

TEST_CASE("a tool's servers and a batch's items vary like any integer", "[explore]") {
  const std::string text =
      "[tools.read]\nservers = 2\n[[job_type]]\nname = \"t\"\nsteps = [{ tool = \"read\", items = 3 }]\n"
      "[[job]]\nid = \"j\"\ntype = \"t\"\n"
      "[explore]\nswarm = false\n[explore.vary]\n\"tools.read.servers\" = [1, 8]\n"
      "\"job_type[0].steps[0].items\" = [1, 5]\n\"tools.read.queue_timeout\" = [\"1ms\", \"2s\"]\n";
  const explore_input in = prepared_ok(text);
  std::set<std::uint32_t> servers;
  std::set<std::size_t> steps;
  for (std::size_t i = 0; i < 30; ++i) {
    const run_plan p = plan_run(*in.base, in.spec, 1, i);
    const load_result r = load_scenario_text(scenario_detail::write_document(p.doc), "x.toml");
    REQUIRE(r.ok());
    const service_tool_config& read = r.value->world.read;
    CHECK(read.pool.servers >= 1);
    CHECK(read.pool.servers <= 8);
    REQUIRE(read.pool.queue_timeout.has_value());
    CHECK(*read.pool.queue_timeout <= sim::duration::from_s(2));
    servers.insert(read.pool.servers);
    steps.insert(r.value->world.jobs.at(0).steps.size());  // a job of the type: one step per item
  }
  CHECK(servers.size() > 4);
  CHECK(steps == std::set<std::size_t>{1, 2, 3, 4, 5});
}

TEST_CASE("the dead-letter queue's retention and redrive vary like any duration", "[explore]") {
  const std::string text =
      "[dead_letter_queue]\nredrive_after = \"1h\"\n[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 5\n"
      "[explore]\nswarm = false\n[explore.vary]\n\"dead_letter_queue.redrive_after\" = [\"10m\", \"48h\"]\n"
      "\"dead_letter_queue.redrives\" = [1, 3]\n\"dead_letter_queue.retention\" = [\"1h\", \"336h\"]\n"
      "\"vendor.key_retention\" = [\"1h\", \"72h\"]\n";
  const explore_input in = prepared_ok(text);
  std::set<std::int64_t> afters;
  for (std::size_t i = 0; i < 20; ++i) {
    const run_plan p = plan_run(*in.base, in.spec, 1, i);
    const load_result r = load_scenario_text(scenario_detail::write_document(p.doc), "x.toml");
    REQUIRE(r.ok());
    const world_config& c = r.value->world;
    REQUIRE(c.dead_letter_redrive.has_value());
    CHECK(c.dead_letter_redrive->after >= sim::duration::from_s(600));
    CHECK(c.dead_letter_redrive->after <= sim::duration::from_s(48 * 3600));
    CHECK(c.dead_letter_redrive->times >= 1);
    CHECK(c.dead_letter_redrive->times <= 3);
    CHECK(c.dead_letter.retention >= sim::duration::from_s(3600));
    CHECK(c.payments.key_retention <= sim::duration::from_s(72 * 3600));
    afters.insert(c.dead_letter_redrive->after.us());
  }
  CHECK(afters.size() > 10);
}

TEST_CASE("explore finds the same things whatever the thread count", "[explore]") {
  const explore_input in =
      prepared_ok(flip(catalogue("double_refund_fixed.toml"), "key = \"stable\"", "key = \"none\""));
  explore_options options;
  options.runs = 12;
  options.all = true;
  options.jobs = 1;
  const explore_result one = run_explore(in, options);
  options.jobs = 3;
  const explore_result three = run_explore(in, options);
  REQUIRE(one.findings.size() == three.findings.size());
  REQUIRE_FALSE(one.findings.empty());
  CHECK(one.runs_done == 12);
  CHECK(one.violations == three.violations);
  CHECK(one.violating_runs == three.violating_runs);
  for (std::size_t i = 0; i < one.findings.size(); ++i) {
    CHECK(one.findings[i].repro_text == three.findings[i].repro_text);
    CHECK(one.findings[i].repro_digest == three.findings[i].repro_digest);
  }
}

TEST_CASE("a guided exploration is a function of the file and the seed, and its repro reproduces", "[explore]") {
  const explore_input in =
      prepared_ok(flip(catalogue("double_refund_fixed.toml"), "key = \"stable\"", "key = \"none\""));
  explore_options options;
  options.runs = 40;
  options.all = true;
  options.guide = guide_mode::coverage;
  options.generation = 8;  // five generations
  options.jobs = 1;
  const explore_result one = run_explore(in, options);
  options.jobs = 3;
  const explore_result three = run_explore(in, options);
  REQUIRE(one.runs_done == 40);
  CHECK(one.runs == three.runs);
  REQUIRE_FALSE(one.findings.empty());
  REQUIRE(one.findings.size() == three.findings.size());
  for (std::size_t i = 0; i < one.findings.size(); ++i) {
    CHECK(one.findings[i].repro_text == three.findings[i].repro_text);
    CHECK(one.findings[i].repro_checked);  // the guided run's own plan was shrunk, not plan_run's
  }
  // The first generation is plain swarm; later ones are not all plain.
  options.guide = guide_mode::none;
  const explore_result plain = run_explore(in, options);
  CHECK(std::equal(plain.runs.begin(), plain.runs.begin() + 8, one.runs.begin()));
  CHECK(plain.runs != one.runs);
  // A guided exploration has no shards.
  options.guide = guide_mode::coverage;
  options.part = {0, 2};
  CHECK_THROWS_AS(collect_runs(in, options), std::invalid_argument);
}

TEST_CASE("a correct scenario gives no finding", "[explore]") {
  const explore_input in = prepared_ok(catalogue("key_per_attempt_fixed.toml"));
  explore_options options;
  options.runs = 16;
  options.jobs = 2;
  const explore_result r = run_explore(in, options);
  CHECK(r.runs_done == 16);
  CHECK(r.violations.empty());
  CHECK(r.findings.empty());
}

TEST_CASE("violations the file expects are not findings", "[explore]") {
  // key_per_attempt.toml expects no_double_payment and ledgers_agree violated.
  const explore_input in = prepared_ok(catalogue("key_per_attempt.toml"));
  explore_options options;
  options.runs = 8;
  options.all = true;
  const explore_result r = run_explore(in, options);
  for (const finding& f : r.findings) {
    CHECK(f.invariant != "no_double_payment");
    CHECK(f.invariant != "ledgers_agree");
  }
}

TEST_CASE("each bug switch of the catalogue is found, shrunk and reproduced", "[explore][slow]") {
  struct bug {
    std::string file;
    std::string from, to;  // the switch, flipped in the fixed scenario's text
    std::string invariant;
    // What the shrunk repro may keep: a handful of jobs for a bug of one
    // job (the stalled pool needs three to show a wait); a starved tenant
    // needs a backlog longer than its bound in front of it; a charge retried
    // past a slowdown at 20 s needs the jobs that reach it. (The Postgres
    // stall is a load of thousands of jobs that no shrink makes smaller:
    // its pair's expectations pin its switch, at a sixth of the cost.)
    std::uint32_t max_jobs = 3;
  };
  const std::vector<bug> bugs{
      {"double_refund_fixed.toml", "key = \"stable\"", "key = \"none\"", "no_double_payment"},
      {"key_per_attempt_fixed.toml", "key = \"stable\"", "key = \"per_attempt\"", "no_double_payment"},
      {"ambiguous_timeout_fixed.toml", "pass_key_to_vendor = true", "pass_key_to_vendor = false", "ledgers_agree"},
      {"checkpoint_before_effect_fixed.toml", "checkpoint = \"after_success\"", "checkpoint = \"before_effect\"",
       "done_jobs_paid_in_full"},
      {"retry_400_fixed.toml", "[expect]", "[discipline]\nretry_non_retryable = true\n\n[expect]",
       "no_retry_of_non_retryable"},
      {"attempts_reset_fixed.toml", "[expect]", "[discipline]\nreset_attempts_on_reenqueue = true\n\n[expect]",
       "attempts_monotonic"},
      {"backoff_no_cap_fixed.toml", "maximum_interval = \"30s\"", "maximum_interval = \"none\"", "backoff_within_cap"},
      {"transaction_across_model_fixed.toml", "hold_transaction_across_model = false",
       "hold_transaction_across_model = true", "database_not_stalled"},
      {"deploy_drain.toml", "strategy = \"drain\"", "strategy = \"rolling_kill\"", "no_double_payment"},
      {"email_no_dedupe_fixed.toml", "claim = true", "claim = false", "one_effect_per_step"},
      {"dedupe_window_expired_fixed.toml", "progress = \"per_step\"\nsteps", "progress = \"none\"\nsteps",
       "one_effect_per_step"},
      {"noisy_tenant_fixed.toml", "message_group_id = \"tenant\"", "message_group_id = \"none\"", "no_tenant_starved",
       12},
      {"billing_retry_double_charge_fixed.toml", "pass_key_to_vendor = true\n", "pass_key_to_vendor = false\n",
       "no_double_payment", 40},
      {"noisy_tenant_queues.toml", "queues = \"one_per_tenant\"", "queues = \"shared\"", "no_tenant_starved", 12},
      {"batch_email_resent_fixed.toml", "progress = \"per_item\"\nsteps", "progress = \"per_step\"\nsteps",
       "one_effect_per_step"},
      {"redrive_after_key_expiry_fixed.toml", "progress = \"per_step\"\nsteps", "progress = \"none\"\nsteps",
       "no_double_payment"},
      {"orphan_rescue_over_limit_fixed.toml", "exhausted = \"discard\"", "exhausted = \"retry\"",
       "attempts_within_limit"},
      {"attempts_decremented_twice_fixed.toml", "uncount_unavailable = \"never\"", "uncount_unavailable = \"twice\"",
       "attempts_monotonic"},
      {"poison_pill_uncounted_fixed.toml", "count_attempts = \"at_start\"\nheartbeat",
       "count_attempts = \"at_failure\"\nheartbeat", "attempts_monotonic"},
      {"liveness_kill_mid_write_fixed.toml", "key = \"stable\"", "key = \"none\"", "no_double_payment"},
      {"dead_letters_expire_fixed.toml", "retention = \"336h\"\nredrive_after = \"8h\"", "retention = \"96h\"",
       "no_message_lost"},
      {"fifo_exactly_once_fixed.toml", "key = \"stable\"", "key = \"none\"", "no_double_payment"},
      {"fifo_dedup_per_retry_fixed.toml", "deduplication = \"job_id\"", "deduplication = \"per_send\"",
       "no_double_payment"},
      // The tenant held behind its failing job must still be within its
      // share: two jobs of each tenant at least.
      {"fifo_group_blocked_fixed.toml", "message_group_id = \"job\"", "message_group_id = \"tenant\"",
       "no_tenant_starved", 8},
      {"sidekiq_term_timeout_fixed.toml", "shutdown_timeout = \"1m\"", "shutdown_timeout = \"25s\"",
       "no_double_payment"},
      {"sidekiq_shutdown_wrapped_fixed.toml", "\nwrapped_shutdown = \"not_retried\"\n",
       "\nwrapped_shutdown = \"retried\"\n", "no_double_payment"},
      {"celery_eta_beyond_visibility_fixed.toml", "visibility_timeout = \"3h\"", "visibility_timeout = \"1h\"",
       "no_double_payment"},
      {"pubsub_no_lease_management_fixed.toml", "flavour = \"pubsub\"\n",
       "flavour = \"pubsub\"\n\n[pubsub]\nlease_management = false\n", "no_double_payment"},
      {"kafka_max_poll_interval_fixed.toml", "max_poll_records = 2\n", "", "no_double_payment"},
      {"attempts_counted_past_limit_fixed.toml", "\nattempts_left = \"below_limit\"\n",
       "\nattempts_left = \"not_at_limit\"\n", "attempts_within_limit"},
      {"kafka_no_job_table_fixed.toml", "\nwork_id = \"job\"\n", "\nwork_id = \"message\"\n", "no_double_payment"},
      {"kafka_offset_stored_early_fixed.toml", "enable_auto_offset_store = false\n", "", "every_job_ends"},
      {"pubsub_redelivered_forever_fixed.toml",
       "flavour = \"pubsub\"\n\n[workers]\ncount = 2\n\n[discipline]\nkey = \"none\"\nwork_id = \"job\"\n",
       "flavour = \"pubsub\"\n\n[pubsub]\nlease_management = false\n\n[workers]\ncount = 2\n\n[discipline]\nkey = "
       "\"none\"\nwork_id = \"message\"\n",
       "no_double_payment"},
      {"dead_letter_alarm_auto_resolved_fixed.toml", "age_alarm = \"6h\"\n", "", "no_message_lost"},
      {"kafka_rebalance_timeout_fixed.toml", "\nrebalance_timeout = \"5m\"\n", "\nrebalance_timeout = \"60s\"\n",
       "no_double_payment"},
      {"execution_timeout_mid_job_fixed.toml",
       "execution_timeout = \"50s\"\n\n[queue]\nmax_receive_count = 5\n\n[discipline]\nkey = \"stable\"",
       "execution_timeout = \"30s\"\n\n[queue]\nmax_receive_count = 5\n\n[discipline]\nkey = \"none\"",
       "no_double_payment"},
      {"slice_cannot_heartbeat_fixed.toml", "[split]\ntool = \"model\"\nvisibility_timeout = \"15m\"\nworkers = 1\n",
       "", "leases_exclusive_or_absorbed"},
  };
  for (const bug& b : bugs) {
    INFO(b.file << ": " << b.to);
    const explore_input in = prepared_ok(flip(catalogue(b.file), b.from, b.to), b.file);
    explore_options options;
    options.runs = 16;
    options.jobs = 2;
    options.all = true;
    const explore_result r = run_explore(in, options);
    const finding* f = nullptr;
    for (const finding& candidate : r.findings)
      if (candidate.invariant == b.invariant) f = &candidate;
    REQUIRE(f != nullptr);
    CHECK(f->repro_checked);
    // Small: its few jobs and faults at most, never larger than the run it came from.
    CHECK(f->shrunk_size.jobs <= b.max_jobs);
    CHECK(f->shrunk_size.faults <= 2);
    CHECK(f->shrunk_size.workers <= f->original_size.workers);
    CHECK(f->shrunk_size.jobs <= f->original_size.jobs);
    // Read back as `twice run` reads it, with the records kept: the same
    // violation and the same trace digest as the shrunk run in-process.
    const load_result repro = load_scenario_text(f->repro_text, "repro.toml");
    REQUIRE(repro.ok());
    CHECK(repro.value->expect.hold == std::vector<std::string>{b.invariant});
    const cli::run_outcome run = cli::run_one(*repro.value, true);
    CHECK(run.summary.result.trace_digest == f->repro_digest);
    CHECK_FALSE(run.summary.expectations.met);
    bool violated = false;
    for (const verdict& v : run.summary.verdicts) violated = violated || (v.name == b.invariant && !v.held);
    CHECK(violated);
    // The header names the invariant, the seed and run, and the steps.
    CHECK(f->repro_text.find("the invariant " + b.invariant + " is violated") != std::string::npos);
    CHECK(f->repro_text.find("world seed " + std::to_string(f->world_seed)) != std::string::npos);
    CHECK(f->repro_text.find("Shrunk in " + std::to_string(f->shrunk.steps.size())) != std::string::npos);
  }
}

TEST_CASE("a deadline already passed starts no run and says so", "[explore]") {
  const explore_input in = prepared_ok(catalogue("key_per_attempt_fixed.toml"));
  explore_options options;
  options.runs = 5;
  options.deadline = std::chrono::steady_clock::now();
  const explore_result r = run_explore(in, options);
  CHECK(r.runs_done == 0);
  CHECK(r.deadline_hit);
  CHECK(r.findings.empty());
}
