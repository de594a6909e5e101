// Job types ([[job_type]]): how a type becomes a job's steps (batches
// expanded, "{job}" filled in, which steps are recorded), how a workload
// draws types by weight, what the loader accepts and refuses, and what each
// progress mode means for a redelivery, end to end.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include "runtime/workload.hpp"
#include <twice/runtime/job_type.hpp>
#include <twice/scenario/scenario.hpp>

using namespace twice;
using sim::duration;

namespace {

job_type statements(progress_mode progress) {
  return {"statements", progress, {{"read", "list_{job}", 0, 1}, {"email", "customer_of_{job}", 0, 3}}};
}

std::vector<bool> recorded(const job_spec& j) {
  std::vector<bool> out;
  for (const step_spec& s : j.steps) out.push_back(s.checkpointed);
  return out;
}

std::string error_of(std::string_view text) {
  const load_result r = load_scenario_text(text, "t.toml");
  REQUIRE(r.errors.size() == 1);
  return r.errors[0].to_string();
}

bool holds(const cli::run_outcome& out, std::string_view invariant) {
  for (const verdict& v : out.summary.verdicts)
    if (v.name == invariant) return v.held;
  FAIL("no verdict " << invariant);
  return false;
}

}  // namespace

TEST_CASE("a job type's batch becomes one step per item, its target numbered", "[job_type]") {
  const job_spec j = make_job(statements(progress_mode::per_step), "job_9");
  CHECK(j.id == "job_9");
  CHECK(j.type == "statements");
  REQUIRE(j.steps.size() == 4);
  CHECK(j.steps[0].tool == "read");
  CHECK(j.steps[0].target == "list_job_9");
  for (std::size_t i = 1; i <= 3; ++i) {
    CHECK(j.steps[i].tool == "email");
    CHECK(j.steps[i].target == "customer_of_job_9_" + std::to_string(i));
  }
  CHECK(statements(progress_mode::per_step).call_count() == 4);
}

TEST_CASE("progress decides which steps are recorded", "[job_type]") {
  // per_step: a batch is recorded at its last item only.
  CHECK(recorded(make_job(statements(progress_mode::per_step), "j")) == std::vector<bool>{true, false, false, true});
  CHECK(recorded(make_job(statements(progress_mode::per_item), "j")) == std::vector<bool>{true, true, true, true});
  CHECK(recorded(make_job(statements(progress_mode::none), "j")) == std::vector<bool>{false, false, false, false});
  for (const progress_mode m : {progress_mode::per_step, progress_mode::per_item, progress_mode::none})
    CHECK(parse_progress_mode(to_string(m)) == m);
  CHECK_FALSE(parse_progress_mode("per_batch").has_value());
}

TEST_CASE("a workload draws its types by weight, the same way for the same seed", "[job_type][workload]") {
  workload_spec w;
  w.count = 4000;
  w.interval = duration::from_ms(10);
  w.amount_lo = w.amount_hi = 500;
  w.types = {{std::nullopt, 1}, {statements(progress_mode::per_item), 3}};
  std::int64_t typed = 0;
  std::vector<std::uint16_t> first, again;
  for (workload_generator gen(5, w); !gen.done();) {
    const generated_job g = gen.next();
    first.push_back(g.type);
    typed += g.type == 1 ? 1 : 0;
    const job_spec spec = generated_spec(w, g);
    if (g.type == 1) {
      CHECK(spec.type == "statements");
      CHECK(spec.steps[0].target == "list_" + spec.id);
    } else {
      CHECK(spec.steps.size() == 3);  // the agent job: read, model, refund
      CHECK(spec.steps[2].amount_cents == 500);
    }
  }
  for (workload_generator gen(5, w); !gen.done();) again.push_back(gen.next().type);
  CHECK(first == again);
  // Three in four, within a few standard deviations (sd ~ 27 of 4000).
  CHECK(typed > 2850);
  CHECK(typed < 3150);
}

TEST_CASE("the loader: [[job_type]], [[job]] type, steps with items and progress, [workload] types",
          "[job_type][scenario]") {
  const load_result r = load_scenario_text(R"(
[[job_type]]
name = "statements"
progress = "per_step"
steps = [{ tool = "email", target = "customer", items = 3 }]

[[job]]
id = "s_1"
type = "statements"

[[job]]
id = "a_1"
type = "agent"
invoice = "inv_1"
amount_cents = 100

[[job]]
id = "own_1"
progress = "none"
steps = [{ tool = "refund", target = "inv_own", amount_cents = 5, items = 2 }]

[workload]
count = 2
types = [{ type = "statements", weight = 2 }]
)",
                                           "t.toml");
  for (const scenario_error& e : r.errors) INFO(e.to_string());
  REQUIRE(r.ok());
  const world_config& c = r.value->world;
  REQUIRE(c.jobs.size() == 3);
  CHECK(recorded(c.jobs[0]) == std::vector<bool>{false, false, true});
  CHECK(c.jobs[0].steps[2].target == "customer_3");
  CHECK(c.jobs[1].steps.size() == 3);
  CHECK(c.jobs[1].type.empty());
  CHECK(recorded(c.jobs[2]) == std::vector<bool>{false, false});
  REQUIRE(c.workload.has_value());
  REQUIRE(c.workload->types.size() == 1);
  CHECK(c.workload->types[0].weight == 2);
  CHECK(c.workload->types[0].type->name == "statements");
}

TEST_CASE("the loader refuses job types it cannot use, saying where", "[job_type][scenario]") {
  constexpr std::string_view type = "[[job_type]]\nname = \"t\"\nsteps = [{ tool = \"email\" }]\n";
  CHECK(error_of(std::string(type) + "[[job]]\nid = \"j\"\ntype = \"u\"\n") ==
        "t.toml:6:8: job[0].type: unknown job type \"u\"; expected one of \"agent\", \"t\"");
  CHECK(error_of("[[job_type]]\nname = \"agent\"\nsteps = [{ tool = \"email\" }]\n[[job]]\nid = \"j\"\ninvoice = "
                 "\"i\"\namount_cents = 1\n") ==
        "t.toml:2:8: job_type[0].name: \"agent\" is the built-in agent job; choose another name");
  CHECK(error_of(std::string(type) + std::string(type) + "[[job]]\nid = \"j\"\ntype = \"t\"\n") ==
        "t.toml:5:8: job_type[1].name: duplicate job type \"t\"; first defined at line 2, column 8");
  CHECK(error_of(std::string(type) + "[[job]]\nid = \"j\"\ntype = \"t\"\nsteps = [{ tool = \"read\" }]\n") ==
        "t.toml:7:9: job[0].steps: not used when `type` is given; the job type says it");
  CHECK(error_of(std::string(type) + "[[job]]\nid = \"j\"\ntype = \"t\"\namount_cents = 5\n") ==
        "t.toml:7:16: job[0].amount_cents: not used with a [[job_type]]; its steps say it");
  CHECK(error_of("[[job]]\nid = \"j\"\nsteps = [{ tool = \"email\", items = 0 }]\n") ==
        "t.toml:3:36: job[0].steps[0].items: must be between 1 and 1000 calls, found 0");
  CHECK(error_of(
            "[[job]]\nid = \"j\"\nsteps = [{ tool = \"email\", items = 600 }, { tool = \"read\", items = 401 }]\n") ==
        "t.toml:3:9: job[0].steps: a job makes at most 1000 calls (every item of a batch is one), found 1001");
  CHECK(error_of("[[job]]\nid = \"j\"\nprogress = \"per_item\"\ninvoice = \"i\"\namount_cents = 1\n") ==
        "t.toml:3:12: job[0].progress: the agent job records every step; give `steps` to choose");
  CHECK(error_of(std::string(type) + "[workload]\ncount = 1\ntypes = [{ type = \"t\" }]\namount_cents = 5\n") ==
        "t.toml:7:16: workload.amount_cents: only agent jobs use it, and `types` has none");
  CHECK(error_of(std::string(type) + "[workload]\ncount = 1\ntypes = []\n") ==
        "t.toml:6:9: workload.types: expected 1 to 1000 job types, found 0");
}

TEST_CASE("progress, end to end: what a retry after a later failure redoes", "[job_type][world]") {
  // Two emails, then a refund the vendor refuses (503) for its first three
  // seconds: the job is retried, and what it finds recorded decides whether
  // the emails go out again. No claim before a send ([tools.email] claim = false).
  auto scenario_with = [](std::string_view progress) {
    const std::string text = std::string(R"(
seed = 3
[tools.email]
claim = false
latency = { fixed = "50ms" }
[vendor]
latency = { fixed = "50ms" }
[[vendor.outage]]
start = "0s"
end = "3s"
[[job]]
id = "j"
progress = ")") + std::string(progress) +
                             R"("
steps = [{ tool = "email", target = "c", items = 2 }, { tool = "refund", target = "inv", amount_cents = 5 }]
)";
    load_result r = load_scenario_text(text, "t.toml");
    for (const scenario_error& e : r.errors) INFO(e.to_string());
    REQUIRE(r.ok());
    return cli::run_one(*r.value, true);
  };
  // per_item: both sends recorded; the retries start at the refund.
  CHECK(holds(scenario_with("per_item"), "one_effect_per_step"));
  // per_step: the batch is recorded at its end, before the refund: also safe here.
  CHECK(holds(scenario_with("per_step"), "one_effect_per_step"));
  // none: every retry starts at step 1 and sends both emails again.
  const cli::run_outcome none = scenario_with("none");
  CHECK_FALSE(holds(none, "one_effect_per_step"));
  CHECK(holds(none, "every_job_ends"));
  CHECK(holds(none, "no_double_payment"));  // the refund's key still holds it to one
}
