// The situations a run reaches (checks/situations.hpp), read off the typed
// events: each catalogue incident reaches the moments its story tells (the
// double refund's crash after the write and before the ack, the Kafka
// rebalance under a slow batch, the retry storm's breaker), and nothing
// else; the list is unique, fits a 64-bit mask, and docs/explore.md
// describes each situation in its own words.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <twice/checks/situations.hpp>
#include "explore/probe.hpp"

#include "test_files.hpp"

namespace {

using twice::test::read_text;
using twice::test::repo_root;

std::set<std::string> reached_by(const std::string& file) {
  const std::string path = (repo_root() / "scenarios" / file).string();
  const twice::explore::probe_result r = twice::explore::probe_text(read_text(path), path);
  REQUIRE(r.loaded);
  std::set<std::string> out;
  for (std::size_t i = 0; i < twice::situations().size(); ++i)
    if ((r.reached >> i) & 1U) out.emplace(twice::situations()[i].name);
  return out;
}

}  // namespace

TEST_CASE("situations are named once, fit a mask, and are described in docs/explore.md", "[situations]") {
  const auto all = twice::situations();
  REQUIRE(all.size() <= 64);
  std::set<std::string_view> names;
  const std::string docs = read_text(repo_root() / "docs" / "explore.md");
  for (const twice::situation_info& s : all) {
    INFO(s.name);
    CHECK(names.insert(s.name).second);
    CHECK(twice::situation_index(s.name) == static_cast<std::size_t>(&s - all.data()));
    CHECK_FALSE(s.sentence.empty());
    CHECK(docs.find("| `" + std::string(s.name) + "` | " + std::string(s.sentence) + " |") != std::string::npos);
  }
  CHECK_FALSE(twice::situation_index("crash_after_ack"));
}

TEST_CASE("each catalogue incident reaches the situations its story tells", "[situations]") {
  using S = std::set<std::string>;
  // The double refund: a rolling deploy kills the pod after the refund and
  // before the ack; another worker runs the job again.
  CHECK(reached_by("double_refund.toml") == S{"crash_after_write_before_ack", "redelivered_to_another_worker"});
  // Fixed, the handler raises after the refund instead, and the vendor
  // replays its stored answer for the key.
  CHECK(reached_by("double_refund_fixed.toml") == S{"redelivered_to_another_worker", "duplicate_absorbed_by_key"});
  // A lease shorter than the tool: it runs out under the slice; heartbeats fix it.
  CHECK(reached_by("visibility_shorter_than_tool.toml") ==
        S{"lease_expired_mid_slice", "redelivered_to_another_worker"});
  CHECK(reached_by("visibility_shorter_than_tool_fixed.toml") == S{"lease_extended"});
  // Sidekiq's -t ends the drain with a slice in flight that had written.
  CHECK(reached_by("sidekiq_term_timeout.toml") == S{"crash_after_write_before_ack", "pod_drained", "drain_timed_out"});
  CHECK(reached_by("deploy_drain.toml") == S{"pod_drained"});  // the drain finishes in time
  // Kafka: a member's slow batch outlives max.poll.interval.ms, the group rebalances under it.
  CHECK(reached_by("kafka_max_poll_interval.toml") == S{"redelivered_to_another_worker", "rebalance_mid_batch"});
  // The breaker opens in the storm it is there for; the budget refuses retries.
  CHECK(reached_by("retry_storm_breaker.toml") ==
        S{"redelivered_to_another_worker", "succeeded_after_5xx", "circuit_opened", "dead_lettered"});
  CHECK(reached_by("retry_storm_budget.toml") == S{"redelivered_to_another_worker", "retry_refused", "dead_lettered"});
  // Dead letters that retention deletes; the fix redrives them in time.
  CHECK(reached_by("dead_letters_expire.toml") ==
        S{"redelivered_to_another_worker", "dead_lettered", "expired_by_retention"});
  // The vendor acts, its answer is lost, and the key absorbs the retry.
  CHECK(reached_by("ambiguous_timeout_fixed.toml") ==
        S{"redelivered_to_another_worker", "response_lost_after_commit", "duplicate_absorbed_by_key"});
  CHECK(reached_by("email_no_dedupe_fixed.toml").contains("claim_stopped_a_repeat"));
  // An SQS standard queue's second copy, with no crash: both workers send the email.
  CHECK(reached_by("standard_queue_duplicate.toml").contains("duplicate_delivery"));
  CHECK(reached_by("celery_eta_beyond_visibility.toml").contains("stale_write_fenced"));
  CHECK(reached_by("orphan_rescue_over_limit.toml") == S{"redelivered_to_another_worker", "orphan_rescued"});
  CHECK(reached_by("vendor_outage_stampede.toml") == S{"succeeded_after_5xx", "backoff_hit_cap"});
  // One worker, no fault: nothing to reach.
  CHECK(reached_by("outbox.toml").empty());
}
