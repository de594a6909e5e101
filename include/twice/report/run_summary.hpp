#pragma once
// Everything a report says about one run, gathered once: the figures, the
// attempts, the invariant verdicts and the expectation result. The text
// output, the JSON output and the Markdown reports all read this.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <twice/checks/invariants.hpp>
#include <twice/checks/situations.hpp>
#include <twice/report/attempts.hpp>
#include <twice/world/tenant_waits.hpp>
#include <twice/world/world.hpp>

namespace twice {

// An invariant the scenario's [expect] ignores: its verdict is reported,
// with the scenario's reason, but does not count.
struct ignored_verdict {
  std::string name;
  std::string reason;
  bool held = true;
  bool judged = true;
};

struct expectation_result {
  bool met = true;
  std::vector<std::string> failures;
  std::vector<std::string> expected_violated;  // what [expect] violated listed, in report order
  std::vector<ignored_verdict> ignored;        // in report order
};

// `--check-determinism`: the scenario ran twice in fresh worlds and both
// traces were compared record by record (a difference exits 3 instead).
struct determinism_check {
  std::uint64_t runs = 2;
  std::uint64_t records = 0;  // in each run's trace
  std::uint64_t digest = 0;   // both runs' trace digest
};

// One tool's calls as its far side counted them (vendors/call_stats.hpp).
struct tool_figures {
  std::string name;  // as steps call it: "refund", "email", "model", "read"
  std::uint64_t calls = 0, executions = 0, client_timeouts = 0;
  std::map<int, std::uint64_t> rejected;  // fresh non-2xx answers by status
  std::uint64_t peak_per_100ms = 0;
  std::uint64_t refused_by_breaker = 0;  // calls the callers' circuit breakers failed fast (not in `calls`)
  // A money tool of the scenario's own: its far side's ledger, for the JSON
  // output (the refund tool's is the summary's vendor figures; the text
  // outputs give each a line of its own, money_ledger).
  struct ledger_figures {
    std::uint64_t rows = 0;
    std::int64_t total_cents = 0;
  };
  std::optional<ledger_figures> ledger;

  // "33 calls: 30 executed, 3 answered 503; at most 1 in one 100 ms"
  std::string describe() const;
};

// The ledger a money tool's far side keeps: the payment vendor's refunds
// (steps call it "refund") or a money tool of the scenario's own
// ([tools.NAME] with moves_money).
struct money_ledger {
  std::string tool;  // as steps call it: "refund", "charge"
  std::uint64_t rows = 0;
  std::int64_t total_cents = 0;
  // "the payment vendor's", "the charge tool's"
  std::string whose() const;
  // "2 refunds", "1 row"
  std::string row_count() const;
  // "2 refunds, 3998 cents", "1 row, 2500 cents"
  std::string describe() const;
};

struct run_summary {
  std::string scenario;  // its name
  std::string path;
  std::uint64_t seed = 0;
  world_result result;
  std::uint64_t jobs_total = 0, jobs_succeeded = 0, jobs_failed = 0, jobs_dead_lettered = 0;
  std::uint64_t retries_refused_by_budget = 0;  // each dead-lettered a job instead of retrying it
  std::uint64_t ledger_rows = 0;
  std::int64_t ledger_total_cents = 0;
  std::uint64_t vendor_calls = 0, vendor_refunds = 0;
  std::int64_t vendor_total_cents = 0;
  std::uint64_t vendor_peak_per_100ms = 0;  // the tallest 100 ms bucket of requests: a stampede shows here
  std::uint64_t vendor_rejected_503 = 0;    // outages, shedding above capacity, random 503s
  std::vector<tool_figures> tools;          // every tool that was called, in world::tool_stats() order
  // The far sides' ledgers of the money tools the world has (the refund
  // tool when a step calls it or something did, then the scenario's own in
  // its order); empty in a world where nothing moves money.
  std::vector<money_ledger> money;
  // Whether the outputs show the ledgers (ours, then each of `money`): not
  // in a world where nothing moves money and our ledger is empty.
  bool keeps_ledgers() const { return !money.empty() || ledger_rows > 0; }
  // Our ledger: "1 row, 1999 cents".
  std::string our_ledger() const;
  std::vector<tenant_wait> tenants;  // each tenant's queue waits (none when no job names a tenant)
  queue_peaks queue;                 // the job queue's worst samples
  sim::duration sample_interval;     // [trace] sample_interval: zero, never sampled
  bool queue_is_topic = false;       // the samples are a Kafka group's lag (world/sampler.hpp)
  // What the broker calls a message waiting for a consumer: "visible" (SQS),
  // "enqueued" (Sidekiq), "undelivered" (Pub/Sub), "waiting in the list" (Celery's Redis).
  std::string_view waiting_word = "visible";
  // "at most 950 visible (at 12.000s), the oldest message 34s old (at 40.000s)";
  // a topic: "consumer lag at most 4 records not yet fetched (at 0.000s), the
  // oldest uncommitted record 9m6s old at most (at 546.000s)"
  std::string queue_line() const;
  std::uint64_t attempts_total = 0;       // every attempt that started
  std::vector<attempt_summary> attempts;  // those summarised, when an output lists them (attempt_detail)
  std::uint64_t attempts_omitted = 0;     // started and not in `attempts`
  // Attempts -> jobs that started that many, when the run counted them
  // (attempt_detail::per_job); empty: the HTML report counts `attempts`.
  std::map<std::int64_t, std::int64_t> jobs_by_attempts;
  std::vector<verdict> verdicts;
  situation_set reached = 0;  // the situations the run reached (checks/situations.hpp)
  // "1000 total: 465 done, 0 failed, 535 dead-lettered (12 for want of retry budget)"
  std::string jobs_line() const;
  expectation_result expectations;
  std::optional<determinism_check> determinism;  // set when the run was checked
};

// Fills the figures from the world after its run.
run_summary summarize(const world& w, const world_result& result, attempt_collector& attempts,
                      std::vector<verdict> verdicts);

}  // namespace twice
