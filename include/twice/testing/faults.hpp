#pragma once
// rapidcheck generators of faults over a scenario of your own: crashes and
// handler errors at every named point of every job, duplicate deliveries and
// lost acks of its messages, and pods killed at any time; added to the
// scenario's world, they make a property over "any crash":
//
//   const twice::world_config base = twice::testing::load_world("points.toml");
//   rc::prop("a grant survives any crash", [&] {
//     const twice::testing::fault_plan plan = *twice::testing::gen_fault_plan(base);
//     const twice::checked_result run = twice::run_with_checkers(twice::testing::with_faults(base, plan));
//     RC_ASSERT(twice::testing::held(run, "no_points_twice"));
//   });
//
// A counterexample shrinks to the fewest faults, the earliest attempts and
// times, and prints as a list of them. Link twice::testing (it needs
// rapidcheck; find_package(twice COMPONENTS testing)).

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <twice/checks/checked_run.hpp>
#include <twice/world/world.hpp>

namespace twice::testing {

// Where a handler or the runtime may be struck (runtime/handler.hpp's points).
inline const std::vector<std::string> fault_points{"before_tool",      "after_tool", "before_checkpoint",
                                                   "after_checkpoint", "before_ack", "after_ack"};

struct fault_plan {
  std::vector<point_fault> faults;
  std::vector<queue_fault> queue_faults;
  std::vector<timed_crash> crashes;
  std::size_t size() const { return faults.size() + queue_faults.size() + crashes.size(); }
};

// How rapidcheck prints a counterexample.
inline void showValue(const fault_plan& p, std::ostream& os) {
  os << p.size() << (p.size() == 1 ? " fault" : " faults");
  for (const point_fault& f : p.faults) {
    os << "\n  " << (f.action == point_action::crash ? "crash" : "error") << " at " << f.point;
    if (f.step > 0) os << " of step " << f.step;
    os << " of " << f.job << " attempt " << f.attempt.value_or(0);
  }
  for (const queue_fault& f : p.queue_faults)
    os << "\n  " << (f.what == queue_fault::kind::duplicate_delivery ? "duplicate delivery" : "lost ack") << " of "
       << f.job << " (#" << f.nth << ")";
  for (const timed_crash& c : p.crashes) os << "\n  crash of worker/" << c.worker << " at " << c.at.us() << "us";
}

// The faults over `base`'s story: its jobs (those listed and the first
// hundred generated), their steps, its workers, and times up to `horizon`.
inline rc::Gen<fault_plan> gen_fault_plan(const world_config& base,
                                          sim::duration horizon = sim::duration::from_s(120)) {
  struct job_shape {
    std::string id;
    std::size_t steps = 0;
  };
  std::vector<job_shape> jobs;
  for_each_job(base, [&](const job_spec& j) {
    if (jobs.size() < 100) jobs.push_back({j.id, j.steps.size()});
  });
  if (jobs.empty()) return rc::gen::just(fault_plan{});
  const std::uint32_t workers = base.workers == 0 ? 1 : base.workers;
  const rc::Gen<point_fault> point =
      rc::gen::mapcat(rc::gen::inRange<std::size_t>(0, jobs.size()), [jobs](std::size_t j) {
        return rc::gen::apply(
            [id = jobs[j].id](std::size_t where, std::size_t step, std::uint32_t attempt, bool crash) {
              point_fault f;
              f.point = fault_points[where];
              // The tool points name a step; checkpoint and ack points are the job's.
              f.step = where < 2 ? step : 0;
              f.job = id;
              f.attempt = attempt;
              f.action = crash ? point_action::crash : point_action::error;
              return f;
            },
            rc::gen::inRange<std::size_t>(0, fault_points.size()), rc::gen::inRange<std::size_t>(0, jobs[j].steps + 1),
            rc::gen::inRange<std::uint32_t>(0, 3), rc::gen::arbitrary<bool>());
      });
  const rc::Gen<queue_fault> broker = rc::gen::apply(
      [jobs](std::size_t j, bool duplicate, std::uint32_t nth) {
        queue_fault f;
        f.what = duplicate ? queue_fault::kind::duplicate_delivery : queue_fault::kind::lose_delete;
        f.job = jobs[j].id;
        f.nth = nth;
        return f;
      },
      rc::gen::inRange<std::size_t>(0, jobs.size()), rc::gen::arbitrary<bool>(), rc::gen::inRange<std::uint32_t>(1, 3));
  const rc::Gen<timed_crash> kill = rc::gen::apply(
      [](std::int64_t at_us, std::uint32_t worker) {
        return timed_crash{sim::instant::from_us(at_us), worker, true};
      },
      rc::gen::inRange<std::int64_t>(0, horizon.us()), rc::gen::inRange<std::uint32_t>(0, workers));
  return rc::gen::apply(
      [](std::vector<point_fault> f, std::vector<queue_fault> q, std::vector<timed_crash> c) {
        return fault_plan{std::move(f), std::move(q), std::move(c)};
      },
      rc::gen::resize(4, rc::gen::container<std::vector<point_fault>>(point)),
      rc::gen::resize(2, rc::gen::container<std::vector<queue_fault>>(broker)),
      rc::gen::resize(2, rc::gen::container<std::vector<timed_crash>>(kill)));
}

// `base` with the plan's faults added to its own.
inline world_config with_faults(world_config base, const fault_plan& plan) {
  base.point_faults.insert(base.point_faults.end(), plan.faults.begin(), plan.faults.end());
  base.queue_faults.insert(base.queue_faults.end(), plan.queue_faults.begin(), plan.queue_faults.end());
  base.crashes.insert(base.crashes.end(), plan.crashes.begin(), plan.crashes.end());
  return base;
}

// The verdict named `name`; fails the property when there is none.
inline const verdict& verdict_of(const std::vector<verdict>& verdicts, std::string_view name) {
  for (const verdict& v : verdicts)
    if (v.name == name) return v;
  RC_FAIL("no verdict named " + std::string(name));
}
inline const verdict& verdict_of(const checked_result& run, std::string_view name) {
  return verdict_of(run.verdicts, name);
}

// Whether it held; when not, its detail and evidence go into the property's
// failure message (RC_LOG).
inline bool held(const checked_result& run, std::string_view name) {
  const verdict& v = verdict_of(run, name);
  if (!v.held) {
    RC_LOG() << v.name << " VIOLATED: " << v.detail << "\n";
    for (const std::string& line : v.evidence) RC_LOG() << "  " << line << "\n";
  }
  return v.held;
}

}  // namespace twice::testing
