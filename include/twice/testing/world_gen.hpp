#pragma once
// rapidcheck generators of whole agent worlds (the refund job) and their
// fault schedules, as twice's own properties use them (properties/), and the
// world built from one schedule with the correct discipline. Every field
// shrinks towards the simple end: fewer jobs, workers and faults, earlier
// times, shorter and fixed latencies, no errors, the default pool. For the
// faults over a scenario of your own, testing/faults.hpp. Link twice::testing.

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <twice/checks/checked_run.hpp>
#include <twice/testing/faults.hpp>
#include <twice/world/world.hpp>

namespace twice::testing {

inline std::string job_name(std::uint32_t j) { return "job_" + std::to_string(j); }

// A fault schedule and the world's shape around it.
struct schedule {
  std::uint32_t workers = 2;
  std::uint32_t jobs = 2;
  std::uint32_t pool_size = 10;  // database connections
  std::int64_t visibility_s = 30;
  std::int64_t model_ms = 1000;
  std::int64_t vendor_ms = 300;  // vendor latency: fixed, or uniform up to vendor_spread_ms more
  std::int64_t vendor_spread_ms = 0;
  // The vendor's error mix, parts per million.
  std::uint32_t vendor_503_ppm = 0;
  std::uint32_t vendor_429_ppm = 0;
  std::uint32_t lost_response_ppm = 0;          // a timeout after the refund committed (ambiguous success)
  std::vector<std::uint32_t> bad_invoice_jobs;  // jobs whose invoice the vendor rejects (400)
  std::vector<point_fault> faults;
  std::vector<queue_fault> queue_faults;
  std::vector<timed_crash> crashes;
  std::optional<std::int64_t> deploy_at_ms;
  deploy_strategy deploy = deploy_strategy::drain;

  // What "small" means for a shrunk counterexample: the things a reader has
  // to follow (each kind of vendor error in the mix counts as one fault).
  std::size_t size() const {
    return jobs + faults.size() + queue_faults.size() + crashes.size() + bad_invoice_jobs.size() +
           (deploy_at_ms ? 1 : 0) + (vendor_503_ppm > 0 ? 1 : 0) + (vendor_429_ppm > 0 ? 1 : 0) +
           (lost_response_ppm > 0 ? 1 : 0);
  }
};

// How rapidcheck prints a counterexample: the schedule as a reader wants it.
inline void showValue(const schedule& s, std::ostream& os) {
  os << s.jobs << " jobs, " << s.workers << " workers, pool " << s.pool_size << ", visibility " << s.visibility_s
     << "s, model " << s.model_ms << "ms, vendor " << s.vendor_ms << "ms";
  if (s.vendor_spread_ms > 0) os << "+[0.." << s.vendor_spread_ms << "]ms";
  os << ", vendor 503 " << s.vendor_503_ppm << "ppm, 429 " << s.vendor_429_ppm << "ppm, lost responses "
     << s.lost_response_ppm << "ppm";
  for (std::uint32_t j : s.bad_invoice_jobs) os << "\n  vendor rejects the invoice of " << job_name(j);
  for (const point_fault& f : s.faults)
    os << "\n  " << (f.action == point_action::crash ? "crash" : "error") << " at " << f.point << " of " << f.job
       << " attempt " << f.attempt.value_or(0);
  for (const queue_fault& f : s.queue_faults) {
    switch (f.what) {
      case queue_fault::kind::duplicate_delivery:
        os << "\n  duplicate delivery of " << f.job;
        break;
      case queue_fault::kind::lose_delete:
        os << "\n  lost ack of " << f.job;
        break;
      case queue_fault::kind::send_timeout:
        os << "\n  send of " << f.job << " timed out, sent again after " << f.resend_after.us() << "us";
        break;
    }
  }
  for (const timed_crash& c : s.crashes) os << "\n  crash of worker/" << c.worker << " at " << c.at.us() << "us";
  if (s.deploy_at_ms)
    os << "\n  " << (s.deploy == deploy_strategy::drain ? "drain" : "rolling kill") << " deploy at " << *s.deploy_at_ms
       << "ms";
}

inline rc::Gen<point_fault> gen_point_fault(std::uint32_t jobs) {
  return rc::gen::apply(
      [](std::size_t point, std::uint32_t job, std::uint32_t attempt, bool crash) {
        point_fault f;
        f.point = fault_points[point];
        f.job = job_name(job);
        f.attempt = attempt;
        f.action = crash ? point_action::crash : point_action::error;
        return f;
      },
      rc::gen::inRange<std::size_t>(0, fault_points.size()), rc::gen::inRange<std::uint32_t>(0, jobs),
      rc::gen::inRange<std::uint32_t>(0, 3), rc::gen::arbitrary<bool>());
}

// One of `choices`, each drawn in proportion to its weight, shrinking
// towards the first. rc::gen::element and weightedElement never shrink
// (they return their pick as it is): a counterexample kept every error rate
// and the pool it was drawn with, needed or not (issue 16: a stalled pool
// kept three error rates it did not need).
template <class T>
rc::Gen<T> shrinking_element(std::vector<std::pair<std::uint32_t, T>> choices) {
  return [choices](const rc::Random& random, int) {
    std::uint64_t total = 0;
    for (const auto& [weight, value] : choices) total += weight;
    std::uint64_t draw = rc::Random(random).next() % total;
    std::size_t index = 0;
    while (draw >= choices[index].first) draw -= choices[index++].first;
    return rc::shrinkable::map(
        rc::shrinkable::shrinkRecur(index, [](std::size_t i) { return rc::shrink::towards<std::size_t>(i, 0); }),
        [choices](std::size_t i) { return choices[i].second; });
  };
}

// An error rate: usually none, sometimes rare, sometimes common; shrinks to none.
inline rc::Gen<std::uint32_t> gen_ppm() {
  return shrinking_element<std::uint32_t>({{3, 0}, {1, 100'000}, {1, 300'000}});
}

// Database connections: the default ten, or a pool small enough to run dry;
// shrinks to ten.
inline rc::Gen<std::uint32_t> gen_pool_size() {
  return shrinking_element<std::uint32_t>({{1, 10}, {1, 1}, {1, 2}, {1, 3}});
}

// The shape of the world: the error mix, sizes, pool, timeouts, latencies.
// The error mix comes first so that shrinking tries each rate at zero before
// it shortens any latency (see gen_schedule).
inline rc::Gen<schedule> gen_shape(std::uint32_t jobs) {
  return rc::gen::apply(
      [jobs](std::uint32_t p503, std::uint32_t p429, std::uint32_t lost, std::uint32_t workers, std::uint32_t pool,
             std::int64_t visibility_s, std::int64_t model_ms, std::int64_t vendor_ms, std::int64_t vendor_spread_ms) {
        schedule s;
        s.jobs = jobs;
        s.workers = workers;
        s.pool_size = pool;
        s.visibility_s = visibility_s;
        s.model_ms = model_ms;
        s.vendor_ms = vendor_ms;
        s.vendor_spread_ms = vendor_spread_ms;
        s.vendor_503_ppm = p503;
        s.vendor_429_ppm = p429;
        s.lost_response_ppm = lost;
        return s;
      },
      gen_ppm(), gen_ppm(), gen_ppm(), rc::gen::inRange<std::uint32_t>(1, 5), gen_pool_size(),
      rc::gen::inRange<std::int64_t>(5, 61), rc::gen::inRange<std::int64_t>(10, 20'000),
      rc::gen::inRange<std::int64_t>(10, 2'000),
      rc::gen::weightedOneOf<std::int64_t>(
          {{2, rc::gen::just<std::int64_t>(0)}, {1, rc::gen::inRange<std::int64_t>(0, 2'000)}}));
}

// Whether the vendor may reject an invoice (a 400, non-retryable).
enum class rejections : std::uint8_t { none, some };

// A world shape with any mix of faults: point crashes and errors, broker
// duplicates and lost acks, timed crashes, one deploy, and (with
// rejections::some) invoices the vendor rejects.
//
// The faults are drawn before the shape, which shrinks after them:
// rapidcheck shrinks a tuple's elements in order, takes the first smaller
// value that still fails and starts over from the first element. Faults
// first means every fault that can go is dropped before any latency or
// timeout is shortened; shortened first, a latency can leave faults as the
// only way left to fail, and the counterexample keeps them.
inline rc::Gen<schedule> gen_schedule(rejections rejected = rejections::some) {
  return rc::gen::mapcat(rc::gen::inRange<std::uint32_t>(1, 5), [rejected](std::uint32_t jobs) {
    return rc::gen::apply(
        [jobs](std::vector<std::uint32_t> bad, std::vector<point_fault> faults, std::vector<std::uint32_t> dup_jobs,
               std::vector<std::uint32_t> lost_acks, std::vector<std::int64_t> crash_times,
               rc::Maybe<std::int64_t> deploy_at, schedule s) {
          std::sort(bad.begin(), bad.end());
          bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
          s.bad_invoice_jobs = std::move(bad);
          s.faults = std::move(faults);
          for (std::uint32_t j : dup_jobs)
            s.queue_faults.push_back({.what = queue_fault::kind::duplicate_delivery, .job = job_name(j), .nth = 1});
          for (std::uint32_t j : lost_acks)
            s.queue_faults.push_back({.what = queue_fault::kind::lose_delete, .job = job_name(j), .nth = 1});
          for (std::int64_t t : crash_times)
            s.crashes.push_back(
                {sim::instant::epoch() + sim::duration::from_ms(t), static_cast<std::uint32_t>(t % s.workers), true});
          if (deploy_at) s.deploy_at_ms = *deploy_at;
          return s;
        },
        rejected == rejections::none
            ? rc::gen::just(std::vector<std::uint32_t>{})
            : rc::gen::weightedOneOf<std::vector<std::uint32_t>>(
                  {{3, rc::gen::just(std::vector<std::uint32_t>{})},
                   {1, rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, jobs))}}),
        rc::gen::container<std::vector<point_fault>>(gen_point_fault(jobs)),
        rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, jobs)),
        rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, jobs)),
        rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 30'000)),
        rc::gen::maybe(rc::gen::inRange<std::int64_t>(0, 30'000)), gen_shape(jobs));
  });
}

// Producer retries of sends that timed out ([[queue_fault]] send_timeout)
// added to a schedule: some of its jobs sent again 1 to 120 s later, within
// a FIFO queue's 5-minute deduplication interval.
inline rc::Gen<schedule> with_send_timeouts(rc::Gen<schedule> schedules) {
  return rc::gen::mapcat(std::move(schedules), [](schedule s) {
    const std::uint32_t jobs = s.jobs;
    return rc::gen::map(rc::gen::container<std::vector<std::pair<std::uint32_t, std::int64_t>>>(rc::gen::pair(
                            rc::gen::inRange<std::uint32_t>(0, jobs), rc::gen::inRange<std::int64_t>(1, 121))),
                        [s](const std::vector<std::pair<std::uint32_t, std::int64_t>>& timeouts) {
                          schedule out = s;
                          for (const auto& [job, after_s] : timeouts)
                            out.queue_faults.push_back({.what = queue_fault::kind::send_timeout,
                                                        .job = job_name(job),
                                                        .nth = 1,
                                                        .resend_after = sim::duration::from_s(after_s)});
                          return out;
                        });
  });
}

// Invoices the vendor rejects, among faults that never bring a failed job's
// message back (see the known finding in prop_world.cpp): 503s, 429s and
// lost responses, but no crash, injected error, deploy, duplicate delivery
// or lost ack.
inline rc::Gen<schedule> gen_rejection_schedule() {
  return rc::gen::mapcat(rc::gen::inRange<std::uint32_t>(1, 5), [](std::uint32_t jobs) {
    return rc::gen::apply(
        [](schedule s, std::vector<std::uint32_t> bad) {
          std::sort(bad.begin(), bad.end());
          bad.erase(std::unique(bad.begin(), bad.end()), bad.end());
          s.bad_invoice_jobs = std::move(bad);
          return s;
        },
        gen_shape(jobs),
        rc::gen::nonEmpty(rc::gen::container<std::vector<std::uint32_t>>(rc::gen::inRange<std::uint32_t>(0, jobs))));
  });
}

// Only a deploy strikes: no crashes, no broker or vendor faults. Up to six
// jobs, as a deploy catches several slices in flight.
inline rc::Gen<schedule> gen_deploy_schedule(deploy_strategy strategy) {
  return rc::gen::mapcat(rc::gen::inRange<std::uint32_t>(1, 7), [strategy](std::uint32_t jobs) {
    return rc::gen::apply(
        [strategy](schedule s, std::int64_t at_ms) {
          s.vendor_503_ppm = s.vendor_429_ppm = s.lost_response_ppm = 0;
          s.deploy_at_ms = at_ms;
          s.deploy = strategy;
          return s;
        },
        gen_shape(jobs), rc::gen::inRange<std::int64_t>(0, 30'000));
  });
}

// The correct discipline (stable key passed to the vendor, checkpoint after
// success, heartbeats, capped jittered backoff, drain), with the schedule's
// faults.
inline world_config correct_world(const schedule& s, std::uint64_t seed) {
  world_config c;
  c.seed = seed;
  c.workers = s.workers;
  c.sample_interval = sim::duration::zero();
  c.trace_retention = sim::trace_recorder::retention::digest_only;  // the checker observes every record
  c.store.pool_size = s.pool_size;
  c.queue.visibility_timeout = sim::duration::from_s(s.visibility_s);
  c.queue.max_receive_count = 0;
  c.runtime.heartbeat_interval = sim::duration::from_s(s.visibility_s) / 3;
  c.runtime.retry.maximum_attempts = 0;  // faults stop after attempt 2; every job must end by itself
  c.runtime.retry.maximum_interval = sim::duration::from_s(10);
  c.payments.unavailable_ppm = s.vendor_503_ppm;
  c.payments.rate_limited_ppm = s.vendor_429_ppm;
  c.payments.lost_response_ppm = s.lost_response_ppm;
  c.payments.latency = s.vendor_spread_ms == 0
                           ? latency_model::fixed(sim::duration::from_ms(s.vendor_ms))
                           : latency_model::uniform(sim::duration::from_ms(s.vendor_ms),
                                                    sim::duration::from_ms(s.vendor_ms + s.vendor_spread_ms));
  c.model.latency = latency_model::fixed(sim::duration::from_ms(s.model_ms));
  c.time_limit = sim::duration::from_s(6 * 3600);
  for (std::uint32_t j = 0; j < s.jobs; ++j)
    c.jobs.push_back(agent_job(job_name(j), "inv_" + std::to_string(j), 100 + j));
  for (std::uint32_t j : s.bad_invoice_jobs) c.payments.bad_targets.insert("inv_" + std::to_string(j));
  c.point_faults = s.faults;
  c.queue_faults = s.queue_faults;
  c.crashes = s.crashes;
  if (s.deploy_at_ms) {
    deploy_spec d;
    d.at = sim::instant::epoch() + sim::duration::from_ms(*s.deploy_at_ms);
    d.strategy = s.deploy;
    // Long enough for any slice here, a lost response's client timeout included.
    d.grace_period = sim::duration::from_ms(s.model_ms + s.vendor_ms + s.vendor_spread_ms) + c.payments.client_timeout +
                     sim::duration::from_s(60);
    c.deploys.push_back(d);
  }
  return c;
}

inline std::vector<verdict> run_checked(const world_config& c) { return run_with_checkers(c).verdicts; }

}  // namespace twice::testing
