#include "cli/run_command.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <twice/cli/exit_codes.hpp>
#include "cli/output_file.hpp"
#include "cli/trace_stream.hpp"
#include "cli/progress_line.hpp"
#include "cli/run_usage.hpp"
#include "cli/scenario_input.hpp"
#include "report/expectations.hpp"
#include <twice/report/json_report.hpp>
#include <twice/report/junit.hpp>
#include <twice/report/markdown_report.hpp>
#include "report/otlp_trace.hpp"
#include "report/perfetto_trace.hpp"
#include <twice/checks/checked_run.hpp>
#include <twice/checks/situations.hpp>
#include <twice/report/timeline.hpp>
#include "report/trace_jsonl.hpp"
#include <twice/scenario/scenario.hpp>
#include "sim/byte_size_text.hpp"
#include "sim/count_text.hpp"
#include "sim/duration_text.hpp"

namespace twice::cli {

namespace {
std::string text(sim::duration d) { return sim::format_duration(d); }
std::string clock(sim::instant t) { return fmt::format("{}.{:06}s", t.us() / 1'000'000, t.us() % 1'000'000); }

// The claims before a call, said only when they differ from the default
// (the email claimed, nothing else).
std::string claims_text(const discipline& d) {
  if (d.claimed_tools == discipline{}.claimed_tools) return {};
  if (d.claimed_tools.empty()) return ", NO claim before an email";
  std::string tools;
  for (const std::string& t : d.claimed_tools) tools += (tools.empty() ? "" : ", ") + t;
  return ", claims before " + tools + (d.claims("email") ? "" : " (NOT email)");
}

void print_settings(const scenario& s) {
  const world_config& c = s.world;
  const runtime_config& rt = c.runtime;
  const retry_policy& rp = rt.retry;
  const discipline& d = rt.rules;
  fmt::print("seed {}\n", c.seed);
  if (c.queue.hold_until_ack) {
    fmt::print("broker     Sidekiq {}, shutdown timeout {}, dead set {}\n",
               c.queue.super_fetch ? "Pro super_fetch (a dead process's jobs recovered at a later start)"
                                   : "BasicFetch (a job held until its ack, no lease)",
               rt.shutdown_timeout ? text(*rt.shutdown_timeout) : std::string("none"),
               c.dead_letter_queue ? "on" : "off");
  } else if (rt.celery) {
    fmt::print(
        "broker     Celery on Redis, visibility timeout {} (restored by a sweep every {}), acks_late {}, prefetch "
        "multiplier {}, reject_on_worker_lost {}\n",
        text(c.queue.visibility_timeout), text(c.queue.restore_sweep), rt.celery->acks_late ? "on" : "off",
        rt.celery->prefetch_multiplier, rt.celery->reject_on_worker_lost ? "on" : "off");
  } else if (rt.kafka) {
    const kafka_config& k = *rt.kafka;
    fmt::print(
        "broker     Kafka, {} partition{}, group {} (session timeout {}, max.poll.interval {}{}), max.poll.records "
        "{}, {}, auto.offset.reset {}, dead-letter topic {}\n",
        k.group.partitions, k.group.partitions == 1 ? "" : "s", k.group.name, text(k.group.session_timeout),
        text(k.group.max_poll_interval),
        k.group.rebalance_timeout ? ", rebalance timeout " + text(*k.group.rebalance_timeout) : std::string(),
        k.max_poll_records,
        k.enable_auto_commit && k.client == kafka_client::librdkafka
            ? fmt::format("librdkafka, auto-commit every {} in the background of the offsets stored {}",
                          text(k.auto_commit_interval),
                          k.enable_auto_offset_store ? "as poll hands a message over" : "after each message ran")
        : k.enable_auto_commit
            ? "auto-commit every " + text(k.auto_commit_interval)
            : std::string(k.manual_commit == kafka_manual_commit::per_record ? "commitSync after each record"
                                                                             : "commitSync after each batch"),
        k.reset_to_earliest ? "earliest" : "latest", c.dead_letter_queue ? "on" : "off");
  } else if (c.queue.pubsub) {
    // With lease management the client's own deadline is what holds a message.
    fmt::print(
        "broker     Pub/Sub, ack deadline {}, {}, lease management {}, retry policy {}, max delivery attempts {}\n",
        text(c.queue.visibility_timeout),
        c.queue.semantics == handle_semantics::strict ? "exactly once" : "at least once",
        rt.heartbeat_interval
            ? fmt::format("every {} by the client's deadline ({} s, then the p99 of ack times) up to {}",
                          text(*rt.heartbeat_interval), c.queue.semantics == handle_semantics::strict ? "60" : "10",
                          rt.max_lease_duration ? text(*rt.max_lease_duration) : std::string("no limit"))
            : std::string("off"),
        c.queue.retry_policy ? fmt::format("{}..{} exponential", text(c.queue.retry_policy->minimum_backoff),
                                           text(c.queue.retry_policy->maximum_backoff))
                             : std::string("none (a nack redelivers at once)"),
        c.queue.max_receive_count == 0 ? std::string("none") : std::to_string(c.queue.max_receive_count));
  } else {
    fmt::print("broker     {} semantics, visibility timeout {}, max receive count {}, dead-letter queue {}\n",
               c.queue.fifo                                 ? "SQS FIFO"
               : c.queue.semantics == handle_semantics::sqs ? "SQS"
                                                            : "strict",
               text(rt.visibility_timeout.value_or(c.queue.visibility_timeout)),
               c.queue.max_receive_count == 0 ? std::string("none") : std::to_string(c.queue.max_receive_count),
               c.dead_letter_queue ? "on" : "off");
  }
  // A lease's heartbeat and the receive's long poll where the broker has
  // them: a Kafka consumer's group heartbeats and polls and Pub/Sub's lease
  // management are on the broker line, and Sidekiq's and Celery's fetches
  // hold no lease to extend.
  std::string waits;
  if (!rt.kafka) {
    if (!c.queue.hold_until_ack && !rt.celery && !c.queue.pubsub)
      waits += ", heartbeat " + (rt.heartbeat_interval ? "every " + text(*rt.heartbeat_interval) : std::string("none"));
    waits += (c.queue.hold_until_ack ? ", BRPOP timeout " : ", long poll ") + text(rt.long_poll);
  }
  fmt::print("workers    {} on {}{}, restart after {}\n", c.workers, c.sha, waits, text(rt.restart_delay));
  fmt::print("retry      {}, max attempts {}\n", describe_schedule(rp),
             rp.maximum_attempts == 0 ? std::string("unlimited") : std::to_string(rp.maximum_attempts));
  if (c.queue.hold_until_ack && overrides_schedule(rt.sidekiq_retry.retry_in)) {
    // The job's sidekiq_retry_in block, by failure kind; the kinds it leaves to the schedule unnamed.
    std::string block;
    for (std::size_t i = 0; i < sidekiq_failure_count; ++i) {
      const retry_in_choice& choice = rt.sidekiq_retry.retry_in[i];
      if (choice.action == retry_in_action::schedule) continue;
      block += (block.empty() ? "" : ", ") + std::string(sidekiq_failure_names[i]) + " " +
               (choice.action == retry_in_action::discard ? std::string(":discard")
                : choice.action == retry_in_action::kill  ? std::string(":kill")
                                                          : text(choice.delay) + " + jitter");
    }
    fmt::print("retry_in   sidekiq_retry_in: {}; any other failure Sidekiq's schedule\n", block);
  }
  fmt::print("discipline key {}{}{}, ledger guard {}, checkpoint {}, retry by {}{}{}{}{}\n", to_string(d.key),
             d.work_id == work_id_mode::message ? " by MESSAGE id" : "",
             d.pass_key_to_vendor ? "" : " (not sent to the far side)", d.ledger_guard ? "on" : "off",
             to_string(d.checkpoint), to_string(d.retry), d.retry_non_retryable ? ", RETRIES 4xx" : "",
             d.reset_attempts_on_reenqueue ? ", RESETS attempts on every delivery" : "",
             d.hold_transaction_across_model ? ", HOLDS a transaction across the model call" : "", claims_text(d));
  if (!d.split_tool.empty())
    fmt::print("split      {} steps as jobs of their own on {}, visibility timeout {}, {}\n", d.split_tool,
               c.split.queue.name, text(c.split.queue.visibility_timeout), sim::counted(c.split.workers, "worker"));
  // The payment vendor ("refund") only in a world whose steps refund, then
  // the scenario's own tools.
  std::vector<std::pair<std::string_view, const service_tool_config*>> tools;
  if (story_calls(c, "refund")) tools.emplace_back("refund", &c.payments);
  for (const service_tool_config& t : c.tools) tools.emplace_back(t.name, &t);
  for (const auto& [name, t] : tools) {
    const std::string keys = t->keys == key_handling::ignored
                                 ? std::string("keys ignored")
                                 : fmt::format("keys {} for {}", to_string(t->keys), text(t->key_retention));
    fmt::print("tool       {}: {}{}, {}, latency {}, client timeout {}\n", name, to_string(t->effect),
               t == &c.payments ? " (the payment vendor)" : "",
               t->effect == tool_effect::write ? keys : std::string("no effect"), t->latency.describe(),
               text(t->client_timeout));
  }
  fmt::print("jobs       {}, faults {}, crashes {}, deploys {}, broker faults {}\n", job_count(c),
             c.point_faults.size(), c.crashes.size(), c.deploys.size(), c.queue_faults.size());
}

void print_verdicts(const run_summary& s) {
  fmt::print("\ninvariants\n");
  for (const verdict& v : s.verdicts) {
    fmt::print("  {:<8} {:<30} {}\n", verdict_word(v), v.name, v.detail);
    for (const std::string& e : v.evidence) fmt::print("             {}\n", e);
  }
}

// `stdin_text`: what standard input held when the scenario came from there.
void print_text(const scenario& sc, const run_summary& s, const std::vector<timeline_line>& timeline, bool quiet,
                std::optional<std::uint64_t> memory_limit, bool kept_events, const std::string& stdin_text) {
  fmt::print("== {} ({})\n", sc.name, sc.path);
  if (!sc.story.empty()) fmt::print("{}\n", sc.story);
  print_settings(sc);
  if (!quiet) {
    fmt::print("\ntimeline\n");
    for (const timeline_line& line : timeline) fmt::print("{}\n", format_timeline_line(line));
  }
  fmt::print("\noutcome    {} at {}, {}, trace digest {:016x}\n", describe_end(s.result), clock(s.result.story_end),
             sim::counted(s.result.events, "event"), s.result.trace_digest);
  if (const std::string settling = describe_settling(s.result); !settling.empty())
    fmt::print("           {}\n", settling);
  if (s.result.reason == sim::stop_reason::memory_budget) {
    fmt::print(
        "memory     the world held {} at event {}, over its budget of {}: raise [budget] memory or "
        "--memory-limit, or find what keeps growing\n",
        sim::describe_byte_size(s.result.footprint_peak), s.result.events,
        sim::format_byte_size(sc.world.memory_budget));
    if (kept_events)
      fmt::print(
          "           (this run kept every event for the timeline and the output files, ~1 KB each; "
          "--quiet without output files keeps none)\n");
  }
  fmt::print("jobs       {}\n", s.jobs_line());
  // Only the ledgers the world keeps: ours, then each money tool's far side.
  if (s.keeps_ledgers()) fmt::print("ledgers    ours {}\n", s.our_ledger());
  for (const money_ledger& m : s.money) fmt::print("           {} {}\n", m.whose(), m.describe());
  fmt::print("queue      {}\n", s.queue_line());
  for (std::size_t i = 0; i < s.tenants.size(); ++i)
    fmt::print("{:<11}{} {}\n", i == 0 ? "tenants" : "", s.tenants[i].tenant, s.tenants[i].describe());
  // Every tool called, the payment vendor's ("refund") first.
  if (s.tools.empty()) fmt::print("tools      none called\n");
  for (std::size_t i = 0; i < s.tools.size(); ++i)
    fmt::print("{:<11}{} {}\n", i == 0 ? "tools" : "", s.tools[i].name, s.tools[i].describe());
  if (s.determinism)
    fmt::print("determinism: {}, {}, digest {:016x}, identical\n", sim::counted(s.determinism->runs, "run"),
               sim::counted(s.determinism->records, "record"), s.determinism->digest);
  print_verdicts(s);
  fmt::print("\nexpectations {}\n", s.expectations.met ? "met" : "NOT met");
  for (const std::string& f : s.expectations.failures) fmt::print("  - {}\n", f);
  for (const ignored_verdict& i : s.expectations.ignored) fmt::print("  - {}\n", describe(i));
  if (s.expectations.met) return;
  const std::string options =
      fmt::format("--seed {}{}", s.seed, memory_limit ? " --memory-limit " + sim::format_byte_size(*memory_limit) : "");
  if (sc.path != scenario_stdin_name) {
    fmt::print("reproduce: twice run {} {}\n", sc.path, options);
    return;
  }
  // Standard input is gone once read: the command names a saved copy of it.
  std::string problem;
  const std::string copy = save_stdin_copy(stdin_text, problem);
  if (!copy.empty())
    fmt::print("reproduce: twice run {} {}   (standard input, saved there)\n", copy, options);
  else
    fmt::print("reproduce: save standard input as FILE, then twice run FILE {}   (it could not be saved: {})\n",
               options, problem);
}
// A finished run's counts for its final progress line: the time is the
// story's end, as --json's sim_time_us (the world may have run on, settling).
world_progress final_progress(const run_summary& s) {
  return {s.result.story_end, s.result.events, s.jobs_succeeded + s.jobs_failed + s.jobs_dead_lettered, s.jobs_total};
}

struct divergence {
  std::size_t index = 0;
  std::string first, second;
};

std::optional<divergence> first_divergence(const std::vector<sim::trace_record>& a,
                                           const std::vector<sim::trace_record>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::string left = i < a.size() ? describe(a[i]) : "(end of trace)";
    const std::string right = i < b.size() ? describe(b[i]) : "(end of trace)";
    if (left != right) return divergence{i, left, right};
  }
  return std::nullopt;
}
}  // namespace

run_outcome run_one(const scenario& sc, run_keeps keeps, const world_progress_hook& progress) {
  const bool keep_records = keeps.records;
  world_config config = sc.world;
  if (!keep_records) config.trace_retention = sim::trace_recorder::retention::digest_only;
  world w(std::move(config));
  attempt_detail detail = keeps.attempts ? run_attempt_detail : attempt_detail::none();
  // The HTML report's histogram (an integer per job; the records or spans cost far more).
  detail.per_job = keeps.attempts && (keeps.records || keeps.story);
  attempt_collector attempts(detail);
  situation_tracker situations;
  span_collector spans;
  span_collector report_spans{span_bound{}};
  timeline_collector story(html_story_lines_shown);
  checked_run_options options;
  options.observers = {&attempts, &situations};
  if (keeps.spans) options.observers.push_back(&spans);
  if (keeps.report_spans) options.observers.push_back(&report_spans);
  if (keeps.story && !keep_records) options.observers.push_back(&story);
  if (keeps.stream != nullptr) options.observers.push_back(keeps.stream);
  options.progress = progress;
  options.progress_every = progress_every_events;
  checked_result checked = run_with_checkers(w, options);
  run_outcome out;
  out.summary = summarize(w, checked.result, attempts, std::move(checked.verdicts));
  out.summary.scenario = sc.name;
  out.summary.path = sc.path;
  out.summary.reached = situations.reached();
  out.summary.expectations = evaluate(sc.expect, out.summary);
  if (keeps.spans) out.spans = spans.take();
  if (keeps.report_spans) out.report_spans = report_spans.take();
  if (keep_records) {
    out.timeline = build_timeline(w.events().records());
    out.records = w.events().take_records();
  } else if (keeps.story) {
    out.timeline = story.take_lines();
    out.timeline_total = story.total();
  }
  if (keep_records || keeps.story) out.ledgers = collect_ledgers(w, out.summary);
  return out;
}

int run_command(const run_options& options) {
  if (const std::string problem = run_usage_problem(options); !problem.empty()) {
    fmt::print(stderr, "twice run: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  // Every output can be written, or nothing runs.
  if (const std::string problem = outputs_problem({{"--trace", &options.trace_path},
                                                   {"--markdown", &options.markdown_path},
                                                   {"--perfetto", &options.perfetto_path},
                                                   {"--otlp", &options.otlp_path},
                                                   {"--report", &options.report_path},
                                                   {"--junit", &options.junit_path}});
      !problem.empty()) {
    fmt::print(stderr, "twice run: {}\n", problem);
    return to_int(exit_code::bad_input);
  }
  // Load everything first: a bad file means nothing runs and nothing is written.
  std::vector<scenario> scenarios;
  std::string stdin_text;  // for the repro line of a scenario read from there
  bool bad = false;
  for (const std::string& path : options.files) {
    load_result loaded = load_scenario_argument(path, &stdin_text);
    for (const scenario_error& e : loaded.errors) fmt::print(stderr, "{}\n", e.to_string());
    if (!loaded.errors.empty() || !loaded.value) {
      bad = true;
      continue;
    }
    scenarios.push_back(std::move(*loaded.value));
  }
  if (bad) return to_int(exit_code::bad_input);

  // The events are kept only for what prints or writes them: a quiet run
  // (or --json) with no output file keeps the digest alone, so its memory
  // does not grow with the run, and one whose only output is --trace
  // writes each event as it happens instead of keeping it.
  run_keeps keeps;
  // --perfetto, --otlp and --report draw spans built as the run goes
  // (span_collector): every span for the first two, which write them all; a
  // bounded sample of the jobs' spans for the report, which draws a lane for
  // a few jobs and charts for the rest (span_bound), so a page of a million
  // jobs holds no more than one of ten thousand. The report lists the first
  // lines of the timeline, built as it goes too (timeline_collector).
  keeps.records = (!options.quiet && !options.json) || options.check_determinism || !options.markdown_path.empty();
  keeps.spans = !options.perfetto_path.empty() || !options.otlp_path.empty();
  keeps.report_spans = !options.report_path.empty();
  keeps.story = !options.report_path.empty();
  keeps.attempts = keeps.records || keeps.story || options.json;
  std::optional<streamed_file> trace_file;
  std::optional<jsonl_trace_stream> trace_stream;
  if (!keeps.records && !options.trace_path.empty()) {
    trace_file.emplace(options.trace_path);  // one scenario (run_usage_problem)
    if (!trace_file->open_error().empty()) {
      fmt::print(stderr, "twice run: {}\n", trace_file->open_error());
      return to_int(exit_code::bad_input);
    }
    trace_stream.emplace(*trace_file);
    keeps.stream = &*trace_stream;
  }
  bool all_met = true;
  std::vector<junit_suite> junit;
  progress_line progress(options.progress, options.json);
  for (scenario& sc : scenarios) {
    if (options.seed) sc.world.seed = *options.seed;
    if (options.memory_limit) sc.world.memory_budget = *options.memory_limit;
    run_outcome out = run_one(sc, keeps, progress.hook(sc.name));
    progress.finish(progress_line::run_snapshot(sc.name, final_progress(out.summary)));
    if (options.check_determinism) {
      // A second run in a fresh world must tell the same story, record by record.
      const run_outcome again = run_one(sc, keeps, progress.hook(sc.name, 2));
      progress.finish(progress_line::run_snapshot(sc.name, final_progress(again.summary), 2));
      if (const auto diverged = first_divergence(out.records, again.records)) {
        fmt::print(stderr,
                   "twice run: {} is not deterministic: the traces diverge at record {}:\n  first:  {}\n  second: {}\n",
                   sc.path, diverged->index, diverged->first, diverged->second);
        return to_int(exit_code::nondeterminism);
      }
      out.summary.determinism = determinism_check{2, out.records.size(), out.summary.result.trace_digest};
    }
    all_met = all_met && out.summary.expectations.met;
    if (!options.junit_path.empty())
      junit.push_back(junit_run_suite(
          out.summary,
          fmt::format("twice run {} --seed {}", sc.path == scenario_stdin_name ? "-" : sc.path, sc.world.seed)));
    if (options.json) {
      fmt::print("{}\n", to_json_line(out.summary));
    } else {
      print_text(sc, out.summary, out.timeline, options.quiet, options.memory_limit, keeps.records, stdin_text);
      if (&sc != &scenarios.back()) fmt::print("\n");
    }
    std::string error;
    if (trace_file)
      error = trace_file->commit();
    else if (!options.trace_path.empty())
      error = write_file_atomically(options.trace_path, trace_to_jsonl(out.records));
    if (error.empty() && !options.markdown_path.empty())
      error = write_file_atomically(options.markdown_path, markdown_report(sc, out.summary, out.timeline));
    if (error.empty() && !options.perfetto_path.empty())
      error = write_file_atomically(options.perfetto_path, perfetto_trace(out.summary, out.spans));
    if (error.empty() && !options.otlp_path.empty())
      error = write_file_atomically(options.otlp_path, otlp_trace(out.summary, out.spans, TWICE_VERSION));
    if (error.empty() && !options.report_path.empty())
      error = write_file_atomically(options.report_path, html_report(sc, out.summary, out.timeline, out.report_spans,
                                                                     out.ledgers, out.timeline_total));
    if (!error.empty()) {
      fmt::print(stderr, "twice run: {}\n", error);
      return to_int(exit_code::bad_input);
    }
  }
  if (!options.junit_path.empty())
    if (const std::string error = write_file_atomically(options.junit_path, junit_xml("twice run", junit));
        !error.empty()) {
      fmt::print(stderr, "twice run: {}\n", error);
      return to_int(exit_code::bad_input);
    }
  return to_int(all_met ? exit_code::ok : exit_code::expectations_failed);
}

}  // namespace twice::cli
