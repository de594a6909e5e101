// The world's jobs when a workload is generated as it arrives: the
// generator, generated ids, the book's lookups and ends, and a world whose
// generated jobs are split (runtime.rules.split_tool) finding every child.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <twice/checks/checked_run.hpp>
#include <twice/world/world.hpp>
#include "runtime/workload.hpp"
#include "test_worlds.hpp"
#include "world/job_book.hpp"

using namespace twice;
using sim::duration;
using sim::instant;

namespace {
workload_spec five_jobs() {
  workload_spec w;
  w.count = 5;
  w.interval = duration::from_ms(200);
  w.arrival = arrival_kind::poisson;
  w.amount_lo = 100;
  w.amount_hi = 5000;
  w.email_ppm = 500'000;
  w.id_prefix = "gen_";
  return w;
}

std::vector<generated_job> draw_all(std::uint64_t seed, const workload_spec& w) {
  std::vector<generated_job> out;
  for (workload_generator gen(seed, w); !gen.done();) out.push_back(gen.next());
  return out;
}
}  // namespace

TEST_CASE("the generator yields the same jobs for the same seed, in time order", "[workload]") {
  const workload_spec w = five_jobs();
  const std::vector<generated_job> a = draw_all(7, w), b = draw_all(7, w), c = draw_all(8, w);
  REQUIRE(a.size() == 5);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].ordinal == static_cast<std::int64_t>(i));
    CHECK(a[i].enqueue_at == b[i].enqueue_at);
    CHECK(a[i].amount_cents == b[i].amount_cents);
    CHECK(a[i].email == b[i].email);
    CHECK(a[i].amount_cents >= 100);
    CHECK(a[i].amount_cents <= 5000);
    if (i > 0) CHECK(a[i].enqueue_at >= a[i - 1].enqueue_at);
    differs = differs || a[i].enqueue_at != c[i].enqueue_at || a[i].amount_cents != c[i].amount_cents;
  }
  CHECK(differs);
  const job_spec spec = generated_spec(w, a[2]);
  CHECK(spec.id == "gen_3");
  REQUIRE(spec.steps.size() == (a[2].email ? 4u : 3u));
  CHECK(spec.steps[2].tool == "refund");
  CHECK(spec.steps[2].target == "inv_gen_3");
  CHECK(spec.steps[2].amount_cents == a[2].amount_cents);
  CHECK(spec.enqueue_at == a[2].enqueue_at);
}

TEST_CASE("a generated id is the prefix and 1..count, nothing else", "[workload]") {
  const workload_spec w = five_jobs();
  CHECK(generated_job_id(w, 0) == "gen_1");
  CHECK(generated_ordinal(w, "gen_1") == 0);
  CHECK(generated_ordinal(w, "gen_5") == 4);
  for (const char* other : {"gen_0", "gen_6", "gen_01", "gen_", "gen_1x", "gen_-1", "gen_+1", "job_1",
                            "gen_1:step_2:model", "gen_99999999999999999999999"})
    CHECK_FALSE(generated_ordinal(w, other).has_value());
}

TEST_CASE("the book knows a generated job from its arrival, its children too, and its end", "[workload]") {
  const std::optional<workload_spec> w = five_jobs();
  const std::vector<job_spec> loaded{agent_job("job_17", "inv_17", 1999)};
  job_book book(loaded, w, "model");
  CHECK(book.story_jobs() == 6);
  CHECK(book.spec_count() == 2);  // job_17 and job_17:step_2:model
  CHECK(book.spec_of("job_17:step_2:model").then->job == "job_17");
  CHECK(book.end_of("gen_4") == job_end::open);
  CHECK_FALSE(book.mark_end("gen_1", job_end::done));  // not arrived: nothing to end

  const std::vector<generated_job> drawn = draw_all(3, *w);
  book.add_arrival(drawn[0]);
  book.add_arrival(drawn[1]);
  CHECK(book.spec_count() == 6);
  CHECK(book.spec_of("gen_2").steps[2].amount_cents == drawn[1].amount_cents);
  const job_spec child = book.spec_of("gen_2:step_2:model");
  CHECK(child.then->job == "gen_2");
  CHECK(child.then->step == 2);
  REQUIRE(child.steps.size() == 1);
  CHECK(child.steps[0].tool == "model");

  CHECK(book.mark_end("gen_2", job_end::failed));
  CHECK_FALSE(book.mark_end("gen_2", job_end::done));               // ended once
  CHECK_FALSE(book.mark_end("gen_2:step_2:model", job_end::done));  // not a story job
  CHECK(book.mark_end("job_17", job_end::done));
  std::vector<std::string> seen;
  book.for_each_end(
      [&seen](std::string_view id, job_end e) { seen.push_back(std::string(id) + "=" + std::string(to_string(e))); });
  CHECK(seen == std::vector<std::string>{"job_17=done", "gen_1=open", "gen_2=failed", "gen_3=open", "gen_4=open",
                                         "gen_5=open"});
}

TEST_CASE("a generated workload with split-out steps runs every job and child to its end", "[workload][world]") {
  world_config c;
  c.seed = 11;
  c.workers = 3;
  c.runtime.rules.split_tool = "model";
  c.jobs.push_back(agent_job("job_17", "inv_17", 1999));
  c.workload = five_jobs();
  c.workload->count = 20;
  world w(std::move(c));
  const checked_result run = run_with_checkers(w);
  CHECK(run.result.all_jobs_ended);
  std::size_t done = 0;
  w.jobs().for_each_end([&done](std::string_view, job_end e) { done += e == job_end::done; });
  CHECK(done == 21);
  CHECK(w.jobs().spec_count() == 42);  // every job and its model step's job
  for (const verdict& v : run.verdicts) CHECK(v.held);
}
