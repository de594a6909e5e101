// Bad scenario files: each class of mistake gives one located message that
// names the key and what was expected, and every message is pinned here
// word for word (people grep for them, and trust depends on them).

#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include <twice/scenario/scenario.hpp>
#include "scenario_text.hpp"
#include "test_files.hpp"

using namespace twice;

namespace {

std::string fixture(std::string_view name) { return (test::repo_root() / "tests" / "scenarios" / name).string(); }

std::vector<std::string> errors_of(std::string_view text) {
  const load_result r = load_scenario_text(text, "t.toml");
  CHECK_FALSE(r.ok());
  std::vector<std::string> out;
  for (const scenario_error& e : r.errors) out.push_back(e.to_string());
  return out;
}

// The single error a text gives, as printed.
std::string error_of(std::string_view text) {
  const std::vector<std::string> errors = errors_of(text);
  INFO(text);
  for (const std::string& e : errors) INFO(e);
  REQUIRE(errors.size() == 1);
  return errors[0];
}

}  // namespace

TEST_CASE("an error prints as file:line:col: key: message", "[scenario]") {
  const load_result r = load_scenario_text("[queue]\nvisibility_timeout = 30\n", "dir/a.toml");
  REQUIRE(r.errors.size() == 1);
  const scenario_error& e = r.errors[0];
  CHECK(e.file == "dir/a.toml");
  CHECK(e.line == 2);
  CHECK(e.column == 22);
  CHECK(e.key == "queue.visibility_timeout");
  CHECK(e.message == "expected a duration string like \"30s\", found integer 30");
  CHECK(e.to_string() ==
        "dir/a.toml:2:22: queue.visibility_timeout: expected a duration string like \"30s\", found integer 30");
  CHECK(scenario_error{"f.toml", 0, 0, "", "cannot read the file: x"}.to_string() == "f.toml: cannot read the file: x");
  CHECK(scenario_error{"f.toml", 3, 7, "", "bad"}.to_string() == "f.toml:3:7: bad");
}

TEST_CASE("TOML syntax errors are located", "[scenario]") {
  CHECK(error_of("seed =\n") == "t.toml:1:7: Error while parsing key-value pair: expected value, saw '\\n'");
  CHECK(error_of("seed = 1\nseed = 2\n") ==
        "t.toml:2:8: Error while parsing key-value pair: cannot redefine existing integer 'seed'");
  CHECK(error_of("[workers]\ncount = 2\n[workers]\n") ==
        "t.toml:3:1: Error while parsing table header: cannot redefine existing table 'workers'");
}

TEST_CASE("invalid UTF-8 is located at the bad byte's own line and column", "[scenario]") {
  // toml++ reports the last good character instead (the newline before a
  // bad first byte: 1:9 here), so the loader checks the encoding itself.
  CHECK(error_of("seed = 1\n\xff = 2\n") == "t.toml:2:1: invalid UTF-8: byte 0xFF cannot start a character");
  CHECK(error_of("seed = 1\nname = \"ab\xff\"\n") == "t.toml:2:11: invalid UTF-8: byte 0xFF cannot start a character");
  // Columns count characters, as toml++'s do: "é" is one column.
  CHECK(error_of("name = \"\xc3\xa9\xc3\"\n") ==
        "t.toml:1:10: invalid UTF-8: byte 0xC3 starts a character that does not continue");
  CHECK(error_of("name = \"\xc0\xaf\"\n") == "t.toml:1:9: invalid UTF-8: an overlong encoding");
  CHECK(error_of("name = \"\xed\xa0\x80\"\n") == "t.toml:1:9: invalid UTF-8: a surrogate (U+D800 to U+DFFF)");
  CHECK(error_of("name = \"\xf4\x90\x80\x80\"\n") == "t.toml:1:9: invalid UTF-8: beyond U+10FFFF");
  CHECK(error_of("name = \"x\"\n# \xe2\x82") ==
        "t.toml:2:3: invalid UTF-8: byte 0xE2 starts a character that does not continue");
  // A byte order mark is not a column, for toml++ either.
  CHECK(error_of("\xEF\xBB\xBFseed = \xff\n") == "t.toml:1:8: invalid UTF-8: byte 0xFF cannot start a character");
  // Valid multi-byte text still loads.
  CHECK(load_scenario_text(test::with_a_job("# \xe2\x82\xac \xf0\x9f\x98\x80\nseed = 1\n"), "t.toml").ok());
}

TEST_CASE("text beyond ASCII is quoted in messages as text, not as escaped bytes", "[scenario]") {
  CHECK(error_of("[queue]\nflavour = \"sqs\xc3\xa4\"\n") ==
        "t.toml:2:11: queue.flavour: expected \"sqs\", \"sqs_fifo\", \"sidekiq\", \"celery_redis\", \"pubsub\" or "
        "\"kafka\", found string \"sqs\xc3\xa4\"");
  const std::string id = error_of(
      "[[job]]\nid = \"j\xc3\xb6"
      "b_1\"\ninvoice = \"inv_a\"\namount_cents = 100\n");
  CHECK_THAT(id, Catch::Contains("found \"j\xc3\xb6"
                                 "b_1\""));
  // A long value is cut before a character that would not fit, never inside it.
  const std::string long_value = std::string(39, 'a') + "\xc3\xa4";
  CHECK_THAT(error_of("[queue]\nflavour = \"" + long_value + "\"\n"),
             Catch::Contains("found string \"" + std::string(39, 'a') + "...\""));
  // Controls still are escaped: they would act on the terminal.
  CHECK_THAT(error_of("[queue]\nflavour = \"a\\u0007\"\n"), Catch::Contains("found string \"a\\x07\""));
}

TEST_CASE("an unknown tool names the tools there are, the file's own included, and how to define one", "[scenario]") {
  CHECK(
      error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = \"sms\" }]\n") ==
      "t.toml:3:19: job[0].steps[0].tool: unknown tool \"sms\": define [tools.sms] or use read, model, refund, email");
  CHECK(error_of("[tools.upload]\neffect = \"write\"\n[[job_type]]\nname = \"t\"\nsteps = [{ tool = \"sms\" }]\n"
                 "[[job]]\nid = \"j\"\ntype = \"t\"\n") ==
        "t.toml:5:19: job_type[0].steps[0].tool: unknown tool \"sms\": define [tools.sms] or use read, model, refund, "
        "email, upload");
  // The fault table's `tool` likewise.
  CHECK(
      error_of("[tools.upload]\neffect = \"write\"\n[[fault]]\npoint = \"after_tool\"\ntool = \"sms\"\n") ==
      "t.toml:5:8: fault[0].tool: unknown tool \"sms\": define [tools.sms] or use read, model, refund, email, upload");
  // A name no table may have is not offered as one to define.
  CHECK(error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = \"a b\" }]\n") ==
        "t.toml:3:19: job[0].steps[0].tool: unknown tool \"a b\": use read, model, refund, email");
  CHECK(error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = 3 }]\n") ==
        "t.toml:3:19: job[0].steps[0].tool: expected a tool's name (read, model, refund, email), found integer 3");
  // A step naming a tool whose own table is wrong: one error, at the table.
  CHECK(error_of("[tools.sms]\nlatency = { fixed = \"1s\" }\n[[job]]\nid = \"j\"\nsteps = [{ tool = \"sms\" }]\n") ==
        "t.toml:1:1: tools.sms.effect: required key is missing; expected effect = \"write\" (it changes something) or "
        "\"read\"");
}

TEST_CASE("unknown keys are errors at every level, with a suggestion", "[scenario]") {
  CHECK(error_of("nme = \"x\"\n") == "t.toml:1:1: nme: unknown key; did you mean `name`?");
  CHECK(error_of("[retyr]\n") == "t.toml:1:2: retyr: unknown key; did you mean `retry`?");
  CHECK(error_of("[queue]\nvisiblity_timeout = \"1s\"\n") ==
        "t.toml:2:1: queue.visiblity_timeout: unknown key; did you mean `visibility_timeout`?");
  CHECK(error_of("[retry]\ncap = \"none\"\n") ==
        "t.toml:2:1: retry.cap: unknown key; did you mean `maximum_interval`?");
  CHECK(error_of("[queue]\nmaxReceiveCount = 3\n") ==
        "t.toml:2:1: queue.maxReceiveCount: unknown key; did you mean `max_receive_count`?");
  CHECK(error_of("[runtime]\nheartbeat = \"3s\"\n") ==
        "t.toml:2:1: runtime.heartbeat: unknown key; did you mean `heartbeat_interval`?");
  CHECK(error_of("[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = 1\namount = 5\n") ==
        "t.toml:5:1: job[0].amount: unknown key; did you mean `amount_cents`?");
  CHECK(error_of("[vendor]\nlatency = { fix = \"1s\" }\n") ==
        "t.toml:2:13: vendor.latency.fix: unknown key; did you mean `fixed`?");
  CHECK(error_of("[tools]\nrefund = { effect = \"read\" }\n") ==
        "t.toml:2:21: tools.refund.effect: the refund tool is the payment vendor: a write with Stripe's stored "
        "responses; its effect is fixed");
  CHECK(error_of("[vendor]\ncapacity = 2\n[tools.refund]\ncapacity = 3\n") ==
        "t.toml:3:8: tools.refund: the refund tool is set in [vendor] already ([vendor] is its older name): keep one");
  CHECK(error_of("[runtime]\ncount_attempts = \"at_failure\"\nuncount_unavailable = \"once\"\n") ==
        "t.toml:3:23: runtime.uncount_unavailable: gives back the attempt counted at the start: needs count_attempts = "
        "\"at_start\" (at_failure counts no 503 to give back)");
  CHECK(
      error_of("[tenants]\nover_limit_delay = \"1s\"\n") ==
      "t.toml:2:20: tenants.over_limit_delay: needs concurrency_limit (a job is given back only when its tenant is at "
      "its limit)");
  CHECK(error_of("[tenants]\nweights = { acme = 2 }\n") ==
        "t.toml:2:11: tenants.weights: needs queues = \"one_per_tenant\" (weights order the tenants' own queues)");
  const std::string acme_job =
      "[[job]]\nid = \"a\"\nsteps = [{ tool = \"read\", target = \"x\" }]\ntenant = \"acme\"\n";
  CHECK(error_of("[tenants]\nqueues = \"one_per_tenant\"\nweights = { acme = 0 }\n" + acme_job) ==
        "t.toml:3:20: tenants.weights.acme: must be between 1 and 1000, found 0");
  CHECK(error_of("[tenants]\nqueues = \"one_per_tenant\"\nweights = { acme = 2, bet = 1 }\n" + acme_job) ==
        "t.toml:3:23: tenants.weights.bet: no job names the tenant bet (the jobs' tenants: acme)");
  CHECK(error_of("[tenants]\nqueues = \"one_per_tenant\"\n[split]\ntool = \"model\"\n" + acme_job) ==
        "t.toml:2:10: tenants.queues: one_per_tenant does not combine with the split discipline (a split-out job's "
        "parent resumes on the one job queue): use queues = \"shared\"");
  CHECK(error_of("[tools.lookup]\neffect = \"read\"\nmoves_money = true\n") ==
        "t.toml:3:15: tools.lookup.moves_money: a read moves no money; set effect = \"write\"");
  CHECK(error_of("[tools.lookup]\neffect = \"read\"\noptimistic_lock = true\n") ==
        "t.toml:3:19: tools.lookup.optimistic_lock: a read writes no version to check; set effect = \"write\"");
  CHECK(error_of("[tools.charge]\neffect = \"write\"\nmoves_money = true\noptimistic_lock = true\n") ==
        "t.toml:4:19: tools.charge.optimistic_lock: a tool that moves money keeps a ledger of its effects, not a "
        "versioned row: set one of moves_money and optimistic_lock");
  CHECK(error_of("[tools.refund]\nqueue_timeout = \"1s\"\n") ==
        "t.toml:2:17: tools.refund.queue_timeout: needs `servers` (a queue forms only in front of a fixed number of "
        "servers)");
  CHECK(error_of("[tools.upload]\nlatency = { fixed = \"1s\" }\n") ==
        "t.toml:1:1: tools.upload.effect: required key is missing; expected effect = \"write\" (it changes something) "
        "or \"read\"");
  CHECK(error_of("[tools.upload]\neffect = \"wirte\"\n") ==
        "t.toml:2:10: tools.upload.effect: expected \"write\" or \"read\", found string \"wirte\"; did you mean "
        "`write`?");
  CHECK(error_of("[tools.lookup]\neffect = \"read\"\nkeys = \"dedupe\"\n") ==
        "t.toml:3:8: tools.lookup.keys: a read changes nothing, so there is nothing for a key to dedupe");
  CHECK(error_of("[tools.upload]\neffect = \"write\"\nkeys = \"ignored\"\nkey_retention = \"5m\"\n") ==
        "t.toml:4:17: tools.upload.key_retention: keys = \"ignored\": the far side keeps no keys, so a retention does "
        "nothing (set keys = \"dedupe\" or \"stored_response\")");
  CHECK(error_of("[tools]\nupload = 3\n") ==
        "t.toml:2:10: tools.upload: expected a table of the tool's settings, found integer 3");
  CHECK(error_of("[tools.upload]\neffect = \"write\"\n\n[[job]]\nid = \"j\"\nsteps = [{ tool = \"uplaod\" }]\n") ==
        "t.toml:6:19: job[0].steps[0].tool: unknown tool \"uplaod\": define [tools.uplaod] or use read, model, refund, "
        "email, upload; did you mean `upload`?");
  CHECK(
      error_of("[tools.emial]\nlatency = { fixed = \"1s\" }\n") ==
      "t.toml:1:8: tools.emial: no tool is called \"emial\"; did you mean `email`? (a tool of your own needs effect = "
      "\"write\" or \"read\")");
  CHECK(error_of("\"weird key\" = 1\n") ==
        "t.toml:1:1: \"weird key\": unknown key; expected one of name, seed, budget, trace, queue, tenants, alarms, "
        "dead_letter_queue, "
        "workers, runtime, retry, discipline, split, store, vendor, tools, job_type, job, workload, fault, crash, "
        "deploy, "
        "queue_fault, expect, explore, sweep, lint, sidekiq, celery, pubsub, kafka");
}

TEST_CASE("wrong types say what was expected and what was found", "[scenario]") {
  CHECK(error_of("[queue]\nvisibility_timeout = 30\n") ==
        "t.toml:2:22: queue.visibility_timeout: expected a duration string like \"30s\", found integer 30");
  CHECK(error_of("[workers]\ncount = \"2\"\n") == "t.toml:2:9: workers.count: expected an integer, found string \"2\"");
  CHECK(error_of("[workers]\ncount = 2.0\n") == "t.toml:2:9: workers.count: expected an integer, found float 2");
  CHECK(error_of("[store]\nunique_ledger_key = \"yes\"\n") ==
        "t.toml:2:21: store.unique_ledger_key: expected true or false, found string \"yes\"");
  CHECK(error_of("[discipline]\nkey = 1\n") ==
        "t.toml:2:7: discipline.key: expected \"none\", \"per_attempt\" or \"stable\", found integer 1");
  CHECK(error_of("retry = 5\n") == "t.toml:1:9: retry: expected a table ([retry] or { ... }), found integer 5");
  CHECK(error_of("[job]\nid = \"x\"\n") ==
        "t.toml:1:1: job: expected an array of tables ([[job]]), found a single table; write [[job]] for each one");
  CHECK(error_of("seed = 1979-05-27\n") ==
        "t.toml:1:8: seed: expected a seed from 0 to 18446744073709551615 (an integer, or a string of digits above "
        "2^63 - 1), found a date-time");
  CHECK(error_of("[vendor]\nlatency = \"200ms\"\n") ==
        "t.toml:2:11: vendor.latency: expected a latency table, one of { fixed = \"200ms\" }, { uniform = [\"10ms\", "
        "\"50ms\"] }, { p50 = \"300ms\", p99 = \"2s\" } or { mean = \"10ms\", sd = \"2ms\" }, found string \"200ms\"");
  CHECK(error_of("[retry]\nmaximum_interval = 30\n") ==
        "t.toml:2:20: retry.maximum_interval: expected a duration string like \"30s\", or \"none\" for no cap, found "
        "integer 30");
  CHECK(error_of("[discipline]\ncheckpoint = \"after\"\n") ==
        "t.toml:2:14: discipline.checkpoint: expected \"before_effect\", \"after_success\" or \"outbox\", found string "
        "\"after\"; did you mean `after_success`?");
}

TEST_CASE("malformed and negative durations carry the duration parser's message", "[scenario]") {
  constexpr std::string_view expected =
      "; expected a duration such as \"250ms\", \"30s\", \"1m30s\" (units: h, m, s, ms, us)";
  CHECK(error_of("[runtime]\nrestart_delay = \"-10s\"\n") ==
        "t.toml:2:17: runtime.restart_delay: \"-10s\": durations cannot be negative" + std::string(expected));
  CHECK(error_of("[queue]\nvisibility_timeout = \"30 s\"\n") ==
        "t.toml:2:22: queue.visibility_timeout: \"30 s\": whitespace is not allowed" + std::string(expected));
  CHECK(error_of("[queue]\nvisibility_timeout = \"1.5s\"\n") ==
        "t.toml:2:22: queue.visibility_timeout: \"1.5s\": only whole numbers are allowed (write 1s500ms, not 1.5s)" +
            std::string(expected));
  CHECK(error_of("[queue]\nvisibility_timeout = \"30\"\n") ==
        "t.toml:2:22: queue.visibility_timeout: \"30\": missing unit" + std::string(expected));
}

TEST_CASE("values out of range name the documented limits", "[scenario]") {
  CHECK(error_of("[queue]\nvisibility_timeout = \"13h\"\n") ==
        "t.toml:2:22: queue.visibility_timeout: must be at most 12h (SQS's limit), found 13h");
  CHECK(error_of("[runtime]\nvisibility_timeout = \"12h1s\"\n") ==
        "t.toml:2:22: runtime.visibility_timeout: must be at most 12h (SQS's limit), found 12h1s");
  CHECK(error_of("[runtime]\nheartbeat_interval = \"13h\"\n") ==
        "t.toml:2:22: runtime.heartbeat_interval: must be between 1us and 12h (leave it out for no heartbeat), found "
        "13h");
  CHECK(
      error_of("[runtime]\nheartbeat_interval = \"0s\"\n") ==
      "t.toml:2:22: runtime.heartbeat_interval: must be between 1us and 12h (leave it out for no heartbeat), found 0s");
  CHECK(error_of("[runtime]\nlong_poll = \"21s\"\n") ==
        "t.toml:2:13: runtime.long_poll: must be at most 20s (SQS's limit), found 21s");
  CHECK(error_of("[queue]\nmax_receive_count = 0\n") ==
        "t.toml:2:21: queue.max_receive_count: must be between 1 and 1000 (SQS's limits), found 0");
  CHECK(error_of("[queue]\nmax_receive_count = 1001\n") ==
        "t.toml:2:21: queue.max_receive_count: must be between 1 and 1000 (SQS's limits), found 1001");
  CHECK(error_of("[queue]\ndelay = \"901s\"\n") ==
        "t.toml:2:9: queue.delay: must be at most 15m (SQS's limit), found 15m1s");
  CHECK(error_of("[queue]\nflavour = \"rabbitmq\"\n") ==
        "t.toml:2:11: queue.flavour: expected \"sqs\", \"sqs_fifo\", \"sidekiq\", \"celery_redis\", \"pubsub\" or "
        "\"kafka\", found string \"rabbitmq\"");
  CHECK(error_of("[queue]\nflavour = \"sidekiq\"\n[runtime]\nheartbeat_interval = \"5s\"\n") ==
        "t.toml:2:11: queue.flavour: a Sidekiq fetch holds its job until the ack, with no lease to extend: remove "
        "runtime.heartbeat_interval");
  CHECK(error_of("[queue]\nflavour = \"sidekiq\"\nvisibility_timeout = \"1m\"\n") ==
        "t.toml:3:22: queue.visibility_timeout: a Sidekiq queue is a Redis list: no lease, no retention, no delay; "
        "remove it");
  CHECK(error_of("[queue]\nflavour = \"sqs_fifo\"\nmessage_group_id = \"none\"\n") ==
        "t.toml:3:20: queue.message_group_id: a FIFO queue needs a message group on every send: \"job\" (each job "
        "its own group) or \"tenant\"");
  CHECK(error_of("[queue]\ndeduplication = \"job_id\"\n") ==
        "t.toml:2:17: queue.deduplication: deduplication ids are for FIFO queues only: set flavour = \"sqs_fifo\" "
        "or remove it");
  CHECK(error_of("[queue]\nflavour = \"sqs_fifo\"\nsemantics = \"strict\"\n")
            .find("t.toml:3:13: queue.semantics: semantics chooses a standard queue's receipt-handle rules") == 0);
  CHECK(error_of("[queue]\nflavour = \"sqs_fifo\"\n[dead_letter_queue]\nredrive_after = \"1h\"\n") ==
        "t.toml:2:11: queue.flavour: a dead-letter redrive (dead_letter_queue.redrive_after) is not modelled for "
        "\"sqs_fifo\" yet");
  CHECK(error_of("[queue]\nretention = \"30s\"\n") ==
        "t.toml:2:13: queue.retention: must be between 1m and 336h (SQS's limits), found 30s");
  CHECK(error_of("[dead_letter_queue]\nretention = \"360h\"\n") ==
        "t.toml:2:13: dead_letter_queue.retention: must be between 1m and 336h (SQS's limits), found 360h");
  CHECK(error_of("[vendor.error_rates]\nunavailable = 1.5\n") ==
        "t.toml:2:15: vendor.error_rates.unavailable: must be between 0 and 1, found 1.5");
  CHECK(error_of("[vendor.error_rates]\nunavailable = -0.1\n") ==
        "t.toml:2:15: vendor.error_rates.unavailable: must be between 0 and 1, found -0.1");
  CHECK(error_of("[[fault]]\npoint = \"before_ack\"\nprobability = 2\n") ==
        "t.toml:3:15: fault[0].probability: must be between 0 and 1, found 2");
  CHECK(error_of("[[job]]\nid = \"j\"\ninvoice = \"i\"\namount_cents = -1999\n") ==
        "t.toml:4:16: job[0].amount_cents: amounts cannot be negative, found -1999 cents");
  CHECK(error_of("[store]\npool_size = 0\n") == "t.toml:2:13: store.pool_size: must be between 1 and 10000, found 0");
  CHECK(error_of("[store]\npool_size = 10001\n") ==
        "t.toml:2:13: store.pool_size: must be between 1 and 10000, found 10001");
  CHECK(error_of("[workers]\ncount = 0\n") == "t.toml:2:9: workers.count: must be between 1 and 10000, found 0");
  CHECK(error_of("[workers]\ncount = 10001\n") ==
        "t.toml:2:9: workers.count: must be between 1 and 10000, found 10001");
  CHECK(error_of("[workload]\ncount = 1000001\namount_cents = 5\n") ==
        "t.toml:2:9: workload.count: must be between 0 and 1000000, found 1000001");
  CHECK(error_of("[retry]\nmaximum_attempts = 10001\n") ==
        "t.toml:2:20: retry.maximum_attempts: must be between 0 and 10000 (0: unlimited), found 10001");
  CHECK(error_of("[[fault]]\npoint = \"before_ack\"\nattempt = 10001\n") ==
        "t.toml:3:11: fault[0].attempt: must be between 0 and 10000 (attempts are numbered from 0), found 10001");
  CHECK(error_of("[retry]\ncoefficient = 0.5\n") ==
        "t.toml:2:15: retry.coefficient: must be between 1 and 100 (below 1 the backoff would shrink), found 0.5");
  CHECK(error_of("[budget]\ntime_limit = \"100000h\"\n") ==
        "t.toml:2:14: budget.time_limit: must be between 1us and 87600h (ten years), found 100000h");
  CHECK(error_of("[budget]\nevents = 0\n") ==
        "t.toml:2:10: budget.events: must be between 1 and 1000000000000, found 0");
  CHECK(error_of("[budget]\nevents = 1000000000001\n") ==
        "t.toml:2:10: budget.events: must be between 1 and 1000000000000, found 1000000000001");
  CHECK(load_scenario_text(test::with_a_job("[budget]\nevents = 1000000000000\n"), "t.toml").ok());
  CHECK(error_of("[budget]\nmemory = \"512KiB\"\n") ==
        "t.toml:2:10: budget.memory: expected a size from 1MiB to 1TiB, found \"512KiB\"");
  CHECK(error_of("[budget]\nmemory = \"2TiB\"\n") ==
        "t.toml:2:10: budget.memory: expected a size from 1MiB to 1TiB, found \"2TiB\"");
  CHECK(error_of("[budget]\nmemory = \"1GB\"\n") ==
        "t.toml:2:10: budget.memory: \"1GB\" is not a size: expected digits and a unit, B, KiB, MiB, GiB or TiB "
        "(like \"512MiB\")");
  CHECK(error_of("[budget]\nmemory = 1024\n") == "t.toml:2:10: budget.memory: expected a string, found integer 1024");
  const load_result sized = load_scenario_text(test::with_a_job("[budget]\nmemory = \"1536MiB\"\n"), "t.toml");
  REQUIRE(sized.ok());
  CHECK(sized.value->world.memory_budget == std::uint64_t{1536} << 20);
  const load_result unsized = load_scenario_text(test::with_a_job("seed = 3\n"), "t.toml");
  REQUIRE(unsized.ok());
  CHECK(unsized.value->world.memory_budget == std::uint64_t{1} << 30);
}

TEST_CASE("pubsub takes a subscription's settings by their Pub/Sub names, and refuses the SQS ones",
          "[scenario][pubsub]") {
  const std::string pubsub = "[queue]\nflavour = \"pubsub\"\n";
  CHECK(error_of(pubsub + "visibility_timeout = \"30s\"\n") ==
        "t.toml:3:22: queue.visibility_timeout: a Pub/Sub subscription names it pubsub.ack_deadline: write that "
        "instead");
  CHECK(error_of(pubsub + "max_receive_count = 5\n") ==
        "t.toml:3:21: queue.max_receive_count: a Pub/Sub subscription names it pubsub.max_delivery_attempts: write "
        "that instead");
  CHECK(error_of(pubsub + "[pubsub]\nack_deadline = \"5s\"\n") ==
        "t.toml:4:16: pubsub.ack_deadline: must be between 10s and 10m (Pub/Sub's limits), found 5s");
  CHECK(error_of(pubsub + "[pubsub]\nmax_delivery_attempts = 101\n") ==
        "t.toml:4:25: pubsub.max_delivery_attempts: must be between 5 and 100 (Pub/Sub's limits), found 101");
  CHECK(error_of(pubsub + "[pubsub]\nlease_management = false\nmax_lease_duration = \"2h\"\n") ==
        "t.toml:5:22: pubsub.max_lease_duration: bounds lease management, which lease_management = false turns "
        "off: remove it");
  CHECK(error_of(pubsub + "[pubsub]\nmaximum_backoff = \"11m\"\n") ==
        "t.toml:4:19: pubsub.maximum_backoff: must be at most 10m (Pub/Sub's limits), found 11m");
  CHECK(error_of(pubsub + "[pubsub]\nminimum_backoff = \"1m\"\nmaximum_backoff = \"30s\"\n") ==
        "t.toml:5:19: pubsub.maximum_backoff: the RetryPolicy's minimum_backoff (1m) is above its maximum_backoff "
        "(30s)");
  // A nack's wait is the subscription's RetryPolicy, not the runtime's backoff.
  const std::string job = "[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\namount_cents = 100\n";
  CHECK(error_of(pubsub + "[retry]\njitter = \"full\"\n" + job) ==
        "t.toml:4:10: retry.jitter: a Pub/Sub client nacks, and the subscription's RetryPolicy sets the "
        "wait: write pubsub.minimum_backoff and pubsub.maximum_backoff instead");
  const load_result in_slice =
      load_scenario_text(pubsub +
                             "[retry]\ninitial_interval = \"5s\"\nmaximum_interval = \"1m\"\n[discipline]\n"
                             "retry = \"in_slice\"\n[[job]]\nid = \"job_1\"\ninvoice = \"inv_1\"\n"
                             "amount_cents = 100\n",
                         "t.toml");
  CHECK(in_slice.ok());  // the client's own sleep between attempts in the slice
  const std::string sidekiq = "[queue]\nflavour = \"sidekiq\"\n";
  CHECK(error_of(sidekiq + "[sidekiq.retry_in]\nunavailable = \"never\"\n") ==
        "t.toml:4:15: sidekiq.retry_in.unavailable: expected \"default\", \"discard\", \"kill\" or a duration of whole "
        "seconds, 1s..720h, found \"never\"");
  CHECK(error_of(sidekiq + "[sidekiq.retry_in]\nunavailable = \"1500ms\"\n") ==
        "t.toml:4:15: sidekiq.retry_in.unavailable: expected \"default\", \"discard\", \"kill\" or a duration of whole "
        "seconds, 1s..720h, found 1s500ms");
  CHECK(error_of(sidekiq + "[sidekiq.retry_in]\nunavailabel = \"kill\"\n")
            .starts_with("t.toml:4:1: sidekiq.retry_in.unavailabel: unknown key"));
  CHECK(error_of(sidekiq + "[sidekiq.retry_in]\nbad_request = \"kill\"\n") ==
        "t.toml:4:15: sidekiq.retry_in.bad_request: a 400 ends the job failed before JobRetry sees it; a job that "
        "raises it (discipline.retry_non_retryable = true) is what sidekiq_retry_in can route: set that, or remove "
        "bad_request");
  CHECK(error_of(sidekiq + "[retry]\nmaximum_attempts = 5\n[sidekiq]\nretry_for = \"1h\"\n") ==
        "t.toml:6:13: sidekiq.retry_for: retry_for replaces the retry count (Sidekiq ignores `retry` when "
        "`retry_for` is set): remove retry.maximum_attempts or retry_for");
  CHECK(error_of(sidekiq + "[discipline]\nretry = \"in_slice\"\n[sidekiq]\nretry_for = \"1h\"\n") ==
        "t.toml:5:1: sidekiq: sidekiq.retry_in and sidekiq.retry_for are JobRetry's, which a retry inside the job "
        "(discipline.retry = \"in_slice\") never reaches: remove them or the in-slice retry");
  CHECK(error_of("[sidekiq]\nfetch = \"super\"\n") ==
        "t.toml:1:1: sidekiq: [sidekiq] sets Sidekiq's fetch: needs queue.flavour = \"sidekiq\"");
  CHECK(error_of("[pubsub]\nack_deadline = \"60s\"\n") ==
        "t.toml:1:1: pubsub: [pubsub] sets a Pub/Sub subscription: needs queue.flavour = \"pubsub\"");
}

TEST_CASE("kafka takes a consumer group's settings by their Kafka names, and refuses what a topic has no use for",
          "[scenario][kafka]") {
  const std::string kafka = "[queue]\nflavour = \"kafka\"\n";
  CHECK(error_of(kafka + "visibility_timeout = \"30s\"\n") ==
        "t.toml:3:22: queue.visibility_timeout: a Kafka topic has no lease, delay, redrive or groups per message: a "
        "consumer group reads it by offset ([kafka]); remove it");
  CHECK(error_of(kafka + "[runtime]\nheartbeat_interval = \"5s\"\n") ==
        "t.toml:4:22: runtime.heartbeat_interval: a Kafka consumer holds no lease per record; its group heartbeats "
        "are kafka.heartbeat_interval");
  CHECK(error_of(kafka + "[discipline]\nretry = \"nack\"\n") ==
        "t.toml:4:9: discipline.retry: a Kafka record cannot be given back for later: a consumer retries it in place "
        "(\"in_slice\"), holding up its partition, or sends it on to a retry topic (not modelled yet)");
  CHECK(error_of(kafka + "[kafka]\nsession_timeout = \"5s\"\n") ==
        "t.toml:4:19: kafka.session_timeout: must be between 6s and 30m (the broker's "
        "group.min/max.session.timeout.ms), found 5s");
  CHECK(error_of(kafka + "[kafka]\nsession_timeout = \"10s\"\nheartbeat_interval = \"10s\"\n") ==
        "t.toml:5:22: kafka.heartbeat_interval: must be lower than kafka.session_timeout (Kafka: \"lower than "
        "session.timeout.ms\")");
  CHECK(error_of(kafka + "[kafka]\ncommit = \"per_record\"\n") ==
        "t.toml:4:10: kafka.commit: is the application's commitSync: needs kafka.enable_auto_commit = false");
  // Spring Kafka's retries wait nothing by default: the cap is 0s.
  CHECK(error_of(kafka + "[retry]\ninitial_interval = \"1s\"\n") ==
        "t.toml:4:20: retry.initial_interval: 1s is above the default cap retry.maximum_interval = 0s; raise the cap "
        "or write maximum_interval = \"none\"");
  CHECK(error_of(kafka + "[kafka]\nauto_offset_reset = \"none\"\n") ==
        "t.toml:4:21: kafka.auto_offset_reset: expected \"latest\" or \"earliest\", found string \"none\"");
  CHECK(error_of(kafka + "[[queue_fault]]\nkind = \"duplicate_delivery\"\nprobability = 0.1\n") ==
        "t.toml:2:11: queue.flavour: [[queue_fault]] injects SQS's duplicate deliveries and lost deletes; a Kafka "
        "consumer's duplicates come from rebalances and crashes ([[crash]], [[deploy]], [[fault]])");
  // librdkafka's consumer poll hands over one message; its offset store is its own.
  CHECK(error_of(kafka + "[kafka]\nclient = \"librdkafka\"\nmax_poll_records = 10\n") ==
        "t.toml:5:20: kafka.max_poll_records: is the Java client's: librdkafka's consumer poll hands over one "
        "message at a time; remove it");
  CHECK(error_of(kafka + "[kafka]\nenable_auto_offset_store = false\n") ==
        "t.toml:4:28: kafka.enable_auto_offset_store: is librdkafka's offset store: needs kafka.client = "
        "\"librdkafka\" (the Java client commits what poll returned)");
  CHECK(error_of(kafka +
                 "[kafka]\nclient = \"librdkafka\"\nenable_auto_commit = false\nenable_auto_offset_store = false\n") ==
        "t.toml:6:28: kafka.enable_auto_offset_store: feeds the background auto-commit: needs "
        "kafka.enable_auto_commit = true");
  CHECK(error_of(kafka + "[kafka]\nclient = \"confluent\"\n") ==
        "t.toml:4:10: kafka.client: expected \"java\" or \"librdkafka\", found string \"confluent\"");
  CHECK(error_of("[kafka]\npartitions = 3\n") ==
        "t.toml:1:1: kafka: [kafka] sets a Kafka consumer group: needs queue.flavour = \"kafka\"");
}

TEST_CASE("celery_redis refuses what Celery's transport and worker have no use for, where it is written",
          "[scenario][celery]") {
  const std::string celery = "[queue]\nflavour = \"celery_redis\"\n";
  CHECK(error_of(celery + "[runtime]\nheartbeat_interval = \"5s\"\n") ==
        "t.toml:2:11: queue.flavour: Celery's Redis transport has no way to extend a visibility timeout: remove "
        "runtime.heartbeat_interval");
  CHECK(error_of(celery + "retention = \"1h\"\n") ==
        "t.toml:3:13: queue.retention: a Celery queue is a Redis list: no retention, no delay (a countdown is the "
        "task's ETA); remove it");
  CHECK(error_of(celery + "[runtime]\nvisibility_timeout = \"2h\"\n") ==
        "t.toml:4:22: runtime.visibility_timeout: Celery's visibility timeout is the transport's, not the worker's: "
        "set queue.visibility_timeout");
  CHECK(error_of(celery + "[tenants]\nconcurrency_limit = 1\n") ==
        "t.toml:2:11: queue.flavour: per-tenant limits and queues are not modelled for \"celery_redis\" yet");
  CHECK(error_of(celery + "visibility_timeout = \"745h\"\n") ==
        "t.toml:3:22: queue.visibility_timeout: must be at most 720h (30 days), found 745h");
  CHECK(error_of("[celery]\nacks_late = true\n") ==
        "t.toml:1:1: celery: [celery] sets a Celery worker: needs queue.flavour = \"celery_redis\"");
  CHECK(error_of(celery + "[celery]\nprefetch_multiplier = 0\n") ==
        "t.toml:4:23: celery.prefetch_multiplier: must be between 1 and 1000, found 0");
}

TEST_CASE("exact ratios refuse more precision than they keep", "[scenario]") {
  CHECK(error_of("[vendor.error_rates]\nunavailable = 0.0000005\n") ==
        "t.toml:2:15: vendor.error_rates.unavailable: 0.0000005 is more precise than the simulator keeps: "
        "probabilities are exact to 6 decimals (steps of 0.000001)");
  CHECK(error_of("[vendor.error_rates]\nunavailable = \"0.0000005\"\n") ==
        "t.toml:2:15: vendor.error_rates.unavailable: 0.0000005 is more precise than the simulator keeps: "
        "probabilities are exact to 6 decimals (steps of 0.000001)");
  CHECK(error_of("[retry]\ncoefficient = 1.0005\n") ==
        "t.toml:2:15: retry.coefficient: 1.0005 is more precise than the simulator keeps: coefficients are exact to "
        "3 decimals (steps of 0.001)");
  CHECK(error_of("[retry]\ncoefficient = \"1,5\"\n") ==
        "t.toml:2:15: retry.coefficient: expected a decimal number like 2.0 or \"1.5\", found string \"1,5\"");
}

TEST_CASE("a cap below the initial interval is an error", "[scenario]") {
  CHECK(error_of("[retry]\ninitial_interval = \"10s\"\nmaximum_interval = \"5s\"\n") ==
        "t.toml:3:20: retry.maximum_interval: the cap 5s is below retry.initial_interval 10s; it must be at least the "
        "initial interval");
  CHECK(
      error_of("[retry]\ninitial_interval = \"3m\"\n") ==
      "t.toml:2:20: retry.initial_interval: 3m is above the default cap retry.maximum_interval = 1m40s; raise the cap "
      "or write maximum_interval = \"none\"");
  // One mistake, one message: a bad initial interval is not also compared with the cap.
  CHECK(errors_of("[retry]\ninitial_interval = 10\nmaximum_interval = \"5s\"\n").size() == 1);
}

TEST_CASE("a heartbeat no shorter than the lease is the linter's business, not an error", "[scenario]") {
  const load_result r = load_scenario_text(
      test::with_a_job("[queue]\nvisibility_timeout = \"10s\"\n[runtime]\nheartbeat_interval = \"30s\"\n"), "t.toml");
  CHECK(r.ok());
}

TEST_CASE("references must name a worker or a job that exists", "[scenario]") {
  constexpr std::string_view job = "[[job]]\nid = \"job_17\"\ninvoice = \"inv_17\"\namount_cents = 1999\n";
  CHECK(error_of("[workers]\ncount = 2\n[[crash]]\nat = \"30s\"\nworker = 2\n") ==
        "t.toml:5:10: crash[0].worker: worker 2 does not exist: workers.count is 2, so workers are numbered 0 to 1");
  CHECK(error_of("[[fault]]\npoint = \"before_ack\"\nworker = 5\n") ==
        "t.toml:3:10: fault[0].worker: worker 5 does not exist: workers.count is 2, so workers are numbered 0 to 1");
  CHECK(error_of(std::string(job) + "[[fault]]\npoint = \"after_tool\"\njob = \"job_71\"\n") ==
        "t.toml:7:7: fault[0].job: no job has the id \"job_71\"; did you mean `job_17`?");
  CHECK(error_of(std::string(job) + "[[queue_fault]]\nkind = \"lose_delete\"\njob = \"refund_job\"\n") ==
        "t.toml:7:7: queue_fault[0].job: no job has the id \"refund_job\"");
  // Generated ids are known by their pattern: the prefix and 1..count.
  constexpr std::string_view workload = "[workload]\ncount = 3\namount_cents = 1\n";
  CHECK(load_scenario_text(std::string(workload) + "[[fault]]\npoint = \"after_tool\"\njob = \"gen_3\"\n", "t.toml")
            .ok());
  CHECK(error_of(std::string(workload) + "[[fault]]\npoint = \"after_tool\"\njob = \"gen_4\"\n") ==
        "t.toml:6:7: fault[0].job: no job has the id \"gen_4\"");
  // A worker count that did not load is reported once, not once per reference.
  CHECK(errors_of("[workers]\ncount = 0\n[[crash]]\nat = \"1s\"\nworker = 5\n").size() == 1);
  CHECK(errors_of("workers = 3\n[[crash]]\nat = \"1s\"\nworker = 2\n") ==
        std::vector<std::string>{"t.toml:1:11: workers: expected a table ([workers] or { ... }), found integer 3"});
}

TEST_CASE("job ids are unique, whether written or generated", "[scenario]") {
  CHECK(error_of("[[job]]\nid = \"job_17\"\ninvoice = \"inv_17\"\namount_cents = 1999\n"
                 "[[job]]\nid = \"job_17\"\ninvoice = \"inv_18\"\namount_cents = 5\n") ==
        "t.toml:6:6: job[1].id: duplicate job id \"job_17\"; first defined at line 2, column 6");
  CHECK(error_of("[[job]]\nid = \"gen_2\"\ninvoice = \"i\"\namount_cents = 1\n"
                 "[workload]\ncount = 3\namount_cents = 1\n") ==
        "t.toml:5:1: workload.id_prefix: generates the job id \"gen_2\", already defined at line 2, column 6; choose "
        "another id_prefix");
  // Several clash: the first the workload would generate is named.
  CHECK(
      error_of("[[job]]\nid = \"gen_3\"\ninvoice = \"i\"\namount_cents = 1\n[[job]]\nid = \"gen_2\"\ninvoice = \"i\"\n"
               "amount_cents = 1\n[workload]\ncount = 3\namount_cents = 1\n") ==
      "t.toml:9:1: workload.id_prefix: generates the job id \"gen_2\", already defined at line 6, column 6; choose "
      "another id_prefix");
  CHECK(error_of("[[job]]\nid = \"job 17\"\ninvoice = \"i\"\namount_cents = 1\n") ==
        "t.toml:2:6: job[0].id: expected 1 to 128 letters, digits, '_', '-' or '.', found \"job 17\"");
}

TEST_CASE("a redrive needs the dead-letter queue", "[scenario]") {
  CHECK(error_of("[retry.circuit_breaker]\nfailure_percent = 101\n") ==
        "t.toml:2:19: retry.circuit_breaker.failure_percent: must be between 1 and 100, found 101");
  CHECK(error_of("[runtime.liveness_probe]\nfailure_threshold = 0\n") ==
        "t.toml:2:21: runtime.liveness_probe.failure_threshold: must be between 1 and 1000, found 0");
  CHECK(error_of("[[store.long_transaction]]\nstart = \"5m\"\n") ==
        "t.toml:1:1: store.long_transaction[0].end: required key is missing; expected a time since the start like "
        "\"10s\"");
  CHECK(error_of("[store]\ndead_row_cost = \"0s\"\n") ==
        "t.toml:2:17: store.dead_row_cost: must be between 1us and 1s, found 0s");
  CHECK(error_of("[alarms]\nbacklog = 0\n") ==
        "t.toml:2:11: alarms.backlog: must be between 1 and 1000000000, found 0");
  CHECK(error_of("[alarms]\noldest_message_age = \"0s\"\n") ==
        "t.toml:2:22: alarms.oldest_message_age: must be between 1s and 336h, found 0s");
  CHECK(error_of("[runtime.orphan_rescue]\nexhausted = \"requeue\"\n") ==
        "t.toml:2:13: runtime.orphan_rescue.exhausted: expected \"discard\" or \"retry\", found string \"requeue\"");
  CHECK(error_of("[runtime.orphan_rescue]\nrescue_after = \"0s\"\n") ==
        "t.toml:2:16: runtime.orphan_rescue.rescue_after: must be between 1s and 24h, found 0s");
  CHECK(error_of("[runtime.liveness_probe]\nperiod = \"0s\"\n") ==
        "t.toml:2:10: runtime.liveness_probe.period: must be between 1ms and 24h, found 0s");
  CHECK(error_of("[dead_letter_queue]\nredrives = 2\n") ==
        "t.toml:2:12: dead_letter_queue.redrives: redrives needs redrive_after: when does the on-call redrive?");
  CHECK(error_of("[dead_letter_queue]\nenabled = false\nredrive_after = \"1h\"\n") ==
        "t.toml:3:17: dead_letter_queue.redrive_after: a redrive needs the dead-letter queue, but enabled is false");
  CHECK(error_of("[dead_letter_queue]\nredrive_after = \"1h\"\nredrives = 0\n") ==
        "t.toml:3:12: dead_letter_queue.redrives: must be between 1 and 1000, found 0");
  CHECK(error_of("[queue]\nmax_receive_count = 5\n[dead_letter_queue]\nenabled = false\n") ==
        "t.toml:2:21: queue.max_receive_count: a redrive needs a dead-letter queue, but dead_letter_queue.enabled is "
        "false; enable it or remove max_receive_count");
  CHECK(error_of("[dead_letter_queue]\nname = \"jobs\"\n") ==
        "t.toml:2:8: dead_letter_queue.name: the queue and the dead-letter queue need different names; both are "
        "\"jobs\"");
}

TEST_CASE("[split] moves only a read-only tool, and names it", "[scenario]") {
  CHECK(error_of("[split]\ntool = \"refund\"\n") ==
        "t.toml:2:8: split.tool: expected \"model\" or \"read\", found string \"refund\"");
  CHECK(error_of("[split]\nworkers = 2\n") ==
        "t.toml:1:1: split.tool: required key is missing; expected the slow read-only tool whose steps become jobs of "
        "their own, \"model\" or \"read\"");
  CHECK(error_of("[split]\ntool = \"model\"\nmax_receive_count = 3\n[dead_letter_queue]\nenabled = false\n") ==
        "t.toml:3:21: split.max_receive_count: a redrive needs a dead-letter queue, but dead_letter_queue.enabled is "
        "false");
}

TEST_CASE("[expect] ignore needs an invariant and a reason", "[scenario]") {
  CHECK(error_of("[expect]\nignore = [{ invariant = \"every_job_ends\" }]\n") ==
        "t.toml:2:11: expect.ignore[0].reason: required key is missing; expected a sentence saying why");
  CHECK(error_of("[expect]\nignore = [{ invariant = \"every_job_ends\", reason = \" \" }]\n") ==
        "t.toml:2:52: expect.ignore[0].reason: expected a sentence saying why, found an empty string");
  CHECK(error_of("[expect]\nignore = [{ reason = \"flaky\" }]\n") ==
        "t.toml:2:11: expect.ignore[0].invariant: required key is missing; expected the name of the invariant to "
        "ignore");
  CHECK(error_of("[expect]\nignore = [{ invariant = \"every_job_end\", reason = \"r\" }]\n") ==
        "t.toml:2:25: expect.ignore[0].invariant: unknown invariant \"every_job_end\"; did you mean "
        "`every_job_ends`?");
  CHECK(error_of("[expect]\nignore = [\"every_job_ends\"]\n") ==
        "t.toml:2:11: expect.ignore[0]: expected a table ([[expect.ignore]] or { ... }), found string "
        "\"every_job_ends\"");
  const load_result r = load_scenario_text(
      test::with_a_job("[expect]\n[[expect.ignore]]\ninvariant = \"every_job_ends\"\nreason = \"the vendor never "
                       "recovers in this story\"\n"),
      "t.toml");
  REQUIRE(r.ok());
  REQUIRE(r.value->expect.ignore.size() == 1);
  CHECK(r.value->expect.ignore[0].name == "every_job_ends");
  CHECK(r.value->expect.ignore[0].reason == "the vendor never recovers in this story");
}

TEST_CASE("[lint] allow names known rules, each once, with a reason", "[scenario]") {
  CHECK(error_of("[lint]\nallow = [{ rule = \"write_without_kye\", reason = \"r\" }]\n") ==
        "t.toml:2:19: lint.allow[0].rule: unknown lint rule \"write_without_kye\"; did you mean `write_without_key`?");
  CHECK(error_of("[lint]\nallow = [{ rule = \"no_jitter\" }]\n") ==
        "t.toml:2:10: lint.allow[0].reason: required key is missing; expected a sentence saying why");
  CHECK(error_of(
            "[lint]\nallow = [{ rule = \"no_jitter\", reason = \"a\" }, { rule = \"no_jitter\", reason = \"b\" }]\n") ==
        "t.toml:2:57: lint.allow[1].rule: lint rule \"no_jitter\" is allowed twice");
  const load_result r = load_scenario_text(
      test::with_a_job("[lint]\nallow = [{ rule = \"no_jitter\", reason = \"on purpose\" }]\n"), "t.toml");
  REQUIRE(r.ok());
  REQUIRE(r.value->lint_allow.size() == 1);
  CHECK(r.value->lint_allow[0].rule == "no_jitter");
  CHECK(r.value->lint_allow[0].reason == "on purpose");
}

TEST_CASE("a scenario that defines no job is bad input", "[scenario]") {
  const std::string no_jobs =
      "t.toml:1:1: the scenario defines no jobs: add at least one [[job]] (id, invoice and amount_cents, or id and "
      "steps) or a [workload] (count and interval)";
  CHECK(error_of("") == no_jobs);
  CHECK(error_of("# only a comment\n# and another\n") == no_jobs);
  CHECK(error_of("seed = 4\n[queue]\nvisibility_timeout = \"30s\"\n") == no_jobs);
  // A misspelt table is reported once, as what it is.
  CHECK(error_of("[[jobs]]\nid = \"j\"\n") == "t.toml:1:3: jobs: unknown key; did you mean `job`?");
}

TEST_CASE("[expect] names only known invariants, each once", "[scenario]") {
  CHECK(error_of("[expect]\nhold = [\"no_double_paymnt\"]\n") ==
        "t.toml:2:9: expect.hold[0]: unknown invariant \"no_double_paymnt\"; did you mean `no_double_payment`?");
  CHECK(error_of("[expect]\nviolated = [\"drain\"]\n") ==
        "t.toml:2:13: expect.violated[0]: unknown invariant \"drain\"; did you mean `drain_kills_nothing`?");
  CHECK(error_of("[expect]\nhold = [\"ledgers_agree\"]\nviolated = [\"ledgers_agree\"]\n") ==
        "t.toml:3:13: expect.violated[0]: invariant \"ledgers_agree\" is also in expect.hold; an invariant is in at "
        "most one of hold, violated and ignore");
  CHECK(error_of("[expect]\nviolated = [\"ledgers_agree\"]\n"
                 "ignore = [{ invariant = \"ledgers_agree\", reason = \"the vendor is a mock\" }]\n") ==
        "t.toml:3:25: expect.ignore[0].invariant: invariant \"ledgers_agree\" is also in expect.violated; an invariant "
        "is in at most one of hold, violated and ignore");
  CHECK(error_of("[expect]\nhold = [\"every_job_ends\", \"every_job_ends\"]\n") ==
        "t.toml:2:27: expect.hold[1]: invariant \"every_job_ends\" is listed twice");
  CHECK(error_of("[expect]\nledger_rows = -1\n") == "t.toml:2:15: expect.ledger_rows: must be at least 0, found -1");
}

TEST_CASE("shapes and rules that could never take effect are errors", "[scenario]") {
  CHECK(error_of("[vendor]\nlatency = { fixed = \"1s\", p50 = \"1s\" }\n") ==
        "t.toml:2:11: vendor.latency: more than one latency shape given; expected one of { fixed = \"200ms\" }, "
        "{ uniform = [\"10ms\", \"50ms\"] }, { p50 = \"300ms\", p99 = \"2s\" } or { mean = \"10ms\", sd = \"2ms\" }");
  CHECK(error_of("[tools.model]\nlatency = { mean = \"10ms\" }\n") ==
        "t.toml:2:11: tools.model.latency.sd: required key is missing; expected mean and sd together, like "
        "{ mean = \"10ms\", sd = \"2ms\" }");
  CHECK(error_of("[tools.model]\nlatency = { p50 = \"2s\" }\n") ==
        "t.toml:2:11: tools.model.latency.p99: required key is missing; expected p50 and p99 together, like "
        "{ p50 = \"300ms\", p99 = \"2s\" }");
  CHECK(error_of("[tools.email]\nlatency = { uniform = [\"50ms\", \"10ms\"] }\n") ==
        "t.toml:2:23: tools.email.latency.uniform: the upper bound 10ms is below the lower bound 50ms");
  CHECK(error_of("[[vendor.outage]]\nstart = \"10s\"\nend = \"5s\"\n") ==
        "t.toml:3:7: vendor.outage[0].end: the window ends at 5s, not after its start 10s");
  CHECK(error_of("[[fault]]\npoint = \"before_ack\"\ntool = \"refund\"\n") ==
        "t.toml:3:8: fault[0].tool: only before_tool and after_tool are about a tool or a step; at before_ack this "
        "rule never fires");
  CHECK(error_of("[[fault]]\naction = \"crash\"\n") ==
        "t.toml:1:1: fault[0].point: required key is missing; expected \"before_tool\", \"after_tool\", "
        "\"before_checkpoint\", \"after_checkpoint\", \"before_ack\" or \"after_ack\"");
  CHECK(error_of("[[queue_fault]]\nkind = \"lose_delete\"\n") ==
        "t.toml:1:1: queue_fault[0]: a rule without `job` needs a `probability` above 0 (or give a `job` and `nth`)");
  CHECK(error_of("[[job]]\nid = \"j1\"\ninvoice = \"i\"\namount_cents = 1\n"
                 "[[queue_fault]]\nkind = \"duplicate_delivery\"\njob = \"j1\"\nprobability = 0.5\n") ==
        "t.toml:8:15: queue_fault[0].probability: a rule with `job` fires on its nth receive, delete or send; "
        "`probability` "
        "is for rules without `job`");
  CHECK(error_of("[[queue_fault]]\nkind = \"lose_delete\"\nprobability = 0.5\nresend_after = \"5s\"\n") ==
        "t.toml:4:16: queue_fault[0].resend_after: `resend_after` is when the producer sends again after a "
        "send_timeout; this rule is a lose_delete");
  CHECK(error_of("[trace]\nsample_interval = \"0s\"\ncounter_lag = \"1m\"\n") ==
        "t.toml:3:15: trace.counter_lag: a lag of the sampled counters needs samples: trace.sample_interval is 0s");
  CHECK(error_of("[trace]\nsample_interval = \"1ms\"\ncounter_lag = \"1m\"\n") ==
        "t.toml:3:15: trace.counter_lag: the lag spans more than 10000 samples of trace.sample_interval = 1ms; "
        "sample less often or lag less");
  CHECK(error_of("[discipline]\nwork_id = \"message\"\n[split]\ntool = \"model\"\n") ==
        "t.toml:2:11: discipline.work_id: a consumer keyed on the message does not combine with [split] yet");
  CHECK(error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = \"refnd\" }]\n") ==
        "t.toml:3:19: job[0].steps[0].tool: unknown tool \"refnd\": define [tools.refnd] or use read, model, refund, "
        "email; did you mean `refund`?");
  CHECK(error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = \"read\" }]\ninvoice = \"i\"\n") ==
        "t.toml:4:11: job[0].invoice: not used when `steps` is given; put it in the steps instead");
  CHECK(error_of("[workload]\ncount = 3\nrate = 2\ninterval = \"1s\"\namount_cents = 1\n") ==
        "t.toml:3:8: workload.rate: give either `interval` or `rate`, not both");
  CHECK(error_of("[workload]\ncount = 1000000\ninterval = \"1h\"\namount_cents = 1\n") ==
        "t.toml:2:9: workload.count: 1000000 jobs every 1h would arrive past the ten-year limit");
}

TEST_CASE("every problem is collected, in file order", "[scenario]") {
  const load_result r = load_scenario_file(fixture("bad/many_errors.toml"));
  REQUIRE_FALSE(r.ok());
  std::vector<std::string> lines;
  for (const scenario_error& e : r.errors) lines.push_back(e.to_string());
  const std::string f = fixture("bad/many_errors.toml");
  CHECK(lines ==
        std::vector<std::string>{
            f + ":2:8: seed: expected a seed from 0 to 18446744073709551615 (an integer, or a string of digits "
                "above 2^63 - 1), found integer -1",
            f + ":5:10: retry.jitter: expected \"none\", \"full\", \"equal\", \"decorrelated\" or \"sidekiq\", found "
                "string "
                "\"fulll\"; did you mean `full`?",
            f + ":6:15: retry.coefficient: must be between 1 and 100 (below 1 the backoff would shrink), found "
                "0.5",
            f + ":9:31: vendor.error_rates.unavailable: must be between 0 and 1, found 1.5",
            f + ":14:16: job[0].amount_cents: amounts cannot be negative, found -100 cents",
        });
}

TEST_CASE("a flood of errors is cut at a bound", "[scenario]") {
  std::string text;
  for (int i = 0; i < 150; ++i) text += "[[crash]]\nat = 1\nworker = 0\n";
  const load_result r = load_scenario_text(text, "t.toml");
  REQUIRE(r.errors.size() == 101);
  CHECK(r.errors.back().to_string() == "t.toml: 50 more errors not shown");
}

TEST_CASE("files that cannot be read are one error", "[scenario]") {
  const std::string missing = fixture("no_such_file.toml");
  const load_result r = load_scenario_file(missing);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() == missing + ": cannot read the file: No such file or directory");
  const load_result dir = load_scenario_file(fixture("bad"));
  REQUIRE(dir.errors.size() == 1);
  CHECK(dir.errors[0].to_string() == fixture("bad") + ": cannot read the file: not a regular file");
}

TEST_CASE("every bad fixture fails with its one located message", "[scenario]") {
  const std::map<std::string, std::string> expected{
      {"syntax_error.toml", "3:7: Error while parsing key-value pair: expected value, saw '\\n'"},
      {"unknown_key.toml", "3:1: queue.visiblity_timeout: unknown key; did you mean `visibility_timeout`?"},
      {"wrong_type.toml", "3:22: queue.visibility_timeout: expected a duration string like \"30s\", found integer 30"},
      {"negative_duration.toml",
       "3:17: runtime.restart_delay: \"-10s\": durations cannot be negative; expected a duration such as \"250ms\", "
       "\"30s\", \"1m30s\" (units: h, m, s, ms, us)"},
      {"out_of_range.toml", "3:22: queue.visibility_timeout: must be at most 12h (SQS's limit), found 13h"},
      {"cap_below_base.toml",
       "4:20: retry.maximum_interval: the cap 5s is below retry.initial_interval 10s; it must be at least the initial "
       "interval"},
      {"undefined_worker.toml",
       "7:10: crash[0].worker: worker 2 does not exist: workers.count is 2, so workers are numbered 0 to 1"},
      {"undefined_job.toml", "9:7: fault[0].job: no job has the id \"job_71\"; did you mean `job_17`?"},
      {"duplicate_job.toml", "8:6: job[1].id: duplicate job id \"job_17\"; first defined at line 3, column 6"},
      {"redrive_without_dlq.toml",
       "3:21: queue.max_receive_count: a redrive needs a dead-letter queue, but dead_letter_queue.enabled is false; "
       "enable it or remove max_receive_count"},
      {"unknown_invariant.toml",
       "3:9: expect.hold[0]: unknown invariant \"no_double_paymnt\"; did you mean `no_double_payment`?"},
      {"max_receive_out_of_range.toml",
       "3:21: queue.max_receive_count: must be between 1 and 1000 (SQS's limits), found 1001"},
      {"negative_money.toml", "5:16: job[0].amount_cents: amounts cannot be negative, found -1999 cents"},
      {"too_much_money.toml",
       "5:16: job[0].amount_cents: must be at most 99999999 cents (Stripe's limit, $999,999.99), found 100000000"},
      {"probability_out_of_range.toml", "3:15: vendor.error_rates.unavailable: must be between 0 and 1, found 1.5"},
      {"too_many_workers.toml", "3:9: workers.count: must be between 1 and 10000, found 1000000"},
      {"too_many_jobs.toml", "3:9: workload.count: must be between 0 and 1000000, found 1000000000000"},
      {"too_many_events.toml", "3:10: budget.events: must be between 1 and 1000000000000, found 10000000000000"},
  };
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture("bad"))) {
    const std::string name = entry.path().filename().string();
    if (name == "many_errors.toml") continue;  // its own test above
    INFO(name);
    const load_result r = load_scenario_file(entry.path().string());
    REQUIRE_FALSE(r.ok());
    REQUIRE(expected.contains(name));
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].to_string() == entry.path().string() + ":" + expected.at(name));
    ++seen;
  }
  CHECK(seen == expected.size());
}

TEST_CASE("odd input never throws and never loads half a scenario", "[scenario]") {
  const std::vector<std::string> inputs{
      std::string("\x00\xff\xfe", 3),
      std::string(300, '['),
      "a = " + std::string(200, '{'),
      "seed = 99999999999999999999999\n",
      "[retry]\ncoefficient = 1e308\n",
      "[retry]\ncoefficient = nan\n",
      "[vendor.error_rates]\nunavailable = inf\n",
      "[retry]\ncoefficient = \"99999999999999999999999.5\"\n",
      "[[job]]\n[[job]]\n[[job]]\n",
      "job = [1, 2]\n[[fault]]\npoint = \"before_ack\"\njob = \"x\"\n",
      "[workload]\ncount = 5\namount_cents = [1]\n",
      "[workload]\ncount = 5\namount_cents = 1\narrival = \"poisson\"\ninterval = \"24h\"\nstart = \"87599h\"\n",
      "tools = 3\nvendor = []\n",
  };
  for (const std::string& text : inputs) {
    INFO(text);
    load_result r;
    CHECK_NOTHROW(r = load_scenario_text(text, "t.toml"));
    if (!r.ok()) {
      CHECK_FALSE(r.errors.empty());
      for (const scenario_error& e : r.errors) CHECK_FALSE(e.message.empty());
    }
  }
}

// ---- the command line's answer to bad input: exit 2, the message, no file --------

namespace {

struct command_output {
  int exit_code = -1;
  std::string out, err;
};

std::string rest_of(std::FILE* f) {
  std::rewind(f);
  std::string text;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

// Runs `twice run` in-process with stdout and stderr captured at the file
// descriptors (fmt prints through stdio, which is flushed around the call).
command_output run_captured(const twice::cli::run_options& options) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(out != nullptr);
  REQUIRE(err != nullptr);
  const int saved_out = ::dup(1);
  const int saved_err = ::dup(2);
  ::dup2(::fileno(out), 1);
  ::dup2(::fileno(err), 2);
  command_output r;
  r.exit_code = twice::cli::run_command(options);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  r.out = rest_of(out);
  r.err = rest_of(err);
  return r;
}

std::filesystem::path fresh_dir(const std::string& name) { return twice::test::empty_temp_dir("twice-errors-" + name); }

std::vector<std::string> names_in(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("every bad fixture makes twice run exit 2, print its errors and write nothing", "[scenario][cli]") {
  const auto out_dir = fresh_dir("fixtures");
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture("bad"))) {
    const std::string path = entry.path().string();
    INFO(path);
    twice::cli::run_options options;
    options.files = {path};
    options.trace_path = (out_dir / "trace.jsonl").string();
    options.markdown_path = (out_dir / "report.md").string();
    const command_output r = run_captured(options);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    // Exactly the loader's errors, one per line, each located in the file.
    std::string expected;
    for (const scenario_error& e : load_scenario_file(path).errors) expected += e.to_string() + "\n";
    CHECK_FALSE(expected.empty());
    CHECK(r.err == expected);
    ++seen;
  }
  CHECK(seen >= 19);
  CHECK(names_in(out_dir).empty());
}

TEST_CASE("an output path that cannot be written exits 2 and leaves nothing behind", "[scenario][cli]") {
  const auto dir = fresh_dir("outputs");
  const auto not_a_dir = dir / "plain_file";
  std::ofstream(not_a_dir) << "x";
  const auto a_dir = dir / "a_directory";
  std::filesystem::create_directories(a_dir);
  struct bad_output {
    std::string flag;
    std::string path;
    std::string reason;
  };
  const std::vector<bad_output> cases{
      {"--trace", (not_a_dir / "trace.jsonl").string(), not_a_dir.string() + " is not a directory"},
      {"--markdown", (not_a_dir / "report.md").string(), not_a_dir.string() + " is not a directory"},
      {"--trace", a_dir.string(), "it is a directory; give a file name"},
      {"--markdown", a_dir.string(), "it is a directory; give a file name"},
  };
  for (const bad_output& c : cases) {
    INFO(c.flag << " " << c.path);
    twice::cli::run_options options;
    options.files = {(twice::test::repo_root() / "scenarios" / "double_refund.toml").string()};
    options.json = true;
    (c.flag == "--trace" ? options.trace_path : options.markdown_path) = c.path;
    const command_output r = run_captured(options);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "twice run: cannot write " + c.flag + " " + c.path + ": " + c.reason + "\n");
    CHECK(r.out.empty());  // found before the run: not even the --json line
    // Nothing half-written: no temporary file beside the target, the
    // directory untouched, the plain file as it was.
    CHECK(names_in(dir) == std::vector<std::string>{"a_directory", "plain_file"});
    CHECK(names_in(a_dir).empty());
    std::ifstream in(not_a_dir);
    CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == "x");
  }
}
