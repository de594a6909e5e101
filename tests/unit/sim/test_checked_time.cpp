// Checked arithmetic: int64 microseconds and cents never wrap. The try_*
// queries say where an operation would overflow; the operators fail loudly
// there (a kernel check: on in every build type), shown here in a child
// process; and a scenario with every time setting at its documented limit
// runs to its ten-year time limit without coming near the edge.

#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "cli/run_command.hpp"
#include <twice/runtime/retry_policy.hpp>
#include <twice/scenario/scenario.hpp>
#include <twice/sim/checked.hpp>
#include <twice/sim/time.hpp>

using twice::sim::duration;
using twice::sim::instant;
using namespace twice::sim::literals;

namespace {

constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();

struct child_end {
  bool aborted = false;  // ended by SIGABRT
  std::string err;       // what it wrote to stderr
};

// Runs `body` in a forked child with stderr captured and SIGABRT at its
// default action (Catch2's handler would report a failure of its own), and
// without a core file.
child_end run_in_child(const std::function<void()>& body) {
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], 2);
    ::signal(SIGABRT, SIG_DFL);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  child_end out;
  char buf[512];
  for (ssize_t n = ::read(fds[0], buf, sizeof buf); n > 0; n = ::read(fds[0], buf, sizeof buf))
    out.err.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  out.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  return out;
}

// The optimiser may not drop an operation whose result is stored here.
volatile std::int64_t sink = 0;

template <class T>
void keep(T value) {
  sink = value.us();
}

}  // namespace

// An overflow in a constant expression does not compile; these do.
static_assert(twice::sim::try_add(instant::max(), 0_us) == instant::max());
static_assert(!twice::sim::try_add(instant::max(), 1_us));
static_assert(!twice::sim::try_mul(duration::max(), 2));
static_assert(duration::from_s(9'223'372'036'854) == duration::from_us(9'223'372'036'854'000'000));

TEST_CASE("int64 queries: the result, or nothing where it would overflow", "[time][checked]") {
  using namespace twice::sim;
  CHECK(try_add(2, 3) == 5);
  CHECK(try_add(i64_max, 0) == i64_max);
  CHECK(try_add(i64_max - 1, 1) == i64_max);
  CHECK_FALSE(try_add(i64_max, 1));
  CHECK_FALSE(try_add(i64_min, -1));
  CHECK(try_add(i64_min, i64_max) == -1);

  CHECK(try_sub(i64_min + 1, 1) == i64_min);
  CHECK_FALSE(try_sub(i64_min, 1));
  CHECK_FALSE(try_sub(0, i64_min));
  CHECK_FALSE(try_sub(i64_max, -1));

  CHECK(try_mul(i64_max, 1) == i64_max);
  CHECK(try_mul(i64_max, -1) == -i64_max);
  CHECK_FALSE(try_mul(i64_min, -1));
  CHECK_FALSE(try_mul(i64_max / 2 + 1, 2));
  CHECK(try_mul(i64_max / 2, 2) == i64_max - 1);

  CHECK(try_div(7, 2) == 3);
  CHECK(try_div(-7, 2) == -3);
  CHECK_FALSE(try_div(1, 0));
  CHECK_FALSE(try_div(i64_min, -1));
  CHECK(try_div(i64_min, 1) == i64_min);

  CHECK(checked_add(40, 2, "unused") == 42);
  CHECK(checked_sub(40, 2, "unused") == 38);
  CHECK(checked_mul(40, 2, "unused") == 80);
  CHECK(checked_div(40, 2, "unused") == 20);
}

TEST_CASE("time queries: where each operator would overflow", "[time][checked]") {
  using twice::sim::try_add;
  using twice::sim::try_mul;
  using twice::sim::try_sub;
  const instant last = instant::max();
  const instant first = instant::from_us(i64_min);

  CHECK(try_add(last - 1_us, 1_us) == last);
  CHECK_FALSE(try_add(last, 1_us));
  CHECK_FALSE(try_add(first, duration::from_us(-1)));
  CHECK(try_sub(first + 1_us, 1_us) == first);
  CHECK_FALSE(try_sub(first, 1_us));
  CHECK_FALSE(try_sub(last, duration::from_us(-1)));

  CHECK(try_sub(last, instant::epoch()) == duration::max());
  CHECK_FALSE(try_sub(last, instant::from_us(-1)));
  CHECK_FALSE(try_sub(first, instant::from_us(1)));

  CHECK(try_add(duration::max() - 1_us, 1_us) == duration::max());
  CHECK_FALSE(try_add(duration::max(), 1_us));
  CHECK_FALSE(try_sub(duration::from_us(i64_min), 1_us));
  CHECK(try_mul(duration::max(), 1) == duration::max());
  CHECK_FALSE(try_mul(duration::max(), 2));
  CHECK_FALSE(try_mul(duration::from_us(i64_min), -1));

  // What the queries allow, the operators compute.
  CHECK((last - 1_us) + 1_us == last);
  CHECK(last - instant::epoch() == duration::max());
  CHECK(duration::from_s(9'223'372'036'854).us() == 9'223'372'036'854'000'000);
  CHECK(duration::from_ms(9'223'372'036'854'775).us() == 9'223'372'036'854'775'000);
}

TEST_CASE("an overflowing time operator stops the process and names the operation", "[time][checked]") {
  struct overflow_case {
    std::string message;
    std::function<void()> body;
  };
  const duration one = 1_us;
  const std::int64_t two = 2;
  const std::vector<overflow_case> cases{
      {"instant + duration overflows int64 microseconds", [&] { keep(instant::max() + one); }},
      {"instant - duration overflows int64 microseconds", [&] { keep(instant::from_us(i64_min) - one); }},
      {"instant - instant overflows int64 microseconds", [&] { keep(instant::max() - instant::from_us(-1)); }},
      {"duration + duration overflows int64 microseconds", [&] { keep(duration::max() + one); }},
      {"duration - duration overflows int64 microseconds", [&] { keep(duration::from_us(i64_min) - one); }},
      {"duration * integer overflows int64 microseconds", [&] { keep(duration::max() * two); }},
      {"duration / integer divides by zero or overflows int64 microseconds", [&] { keep(one / (two - 2)); }},
      {"duration::from_ms overflows int64 microseconds", [&] { keep(duration::from_ms(i64_max / 1000 + 1)); }},
      {"duration::from_s overflows int64 microseconds", [&] { keep(duration::from_s(i64_max / 1'000'000 + 1)); }},
      {"instant + duration overflows int64 microseconds",
       [&] {
         instant t = instant::max();
         t += one;
         keep(t);
       }},
      {"duration + duration overflows int64 microseconds",
       [&] {
         duration d = duration::max();
         d += one;
         keep(d);
       }},
  };
  for (const overflow_case& c : cases) {
    INFO(c.message);
    const child_end end = run_in_child(c.body);
    CHECK(end.aborted);
    CHECK(end.err.starts_with("twice: kernel check failed: " + c.message + " ("));
  }
  // The operands are in the message.
  const child_end end = run_in_child([&] { keep(instant::max() + one); });
  CHECK(end.err ==
        "twice: kernel check failed: instant + duration overflows int64 microseconds "
        "(9223372036854775807 + 1)\n");
  // And a child that does not overflow exits normally: the harness itself is sound.
  const child_end fine = run_in_child([&] { keep(instant::epoch() + one); });
  CHECK_FALSE(fine.aborted);
  CHECK(fine.err.empty());
}

TEST_CASE("a checked money sum stops the process and names the sum", "[checked]") {
  const child_end end =
      run_in_child([] { sink = twice::sim::checked_add(i64_max, 1, "our ledger's total overflows int64 cents"); });
  CHECK(end.aborted);
  CHECK(end.err == "twice: kernel check failed: our ledger's total overflows int64 cents (9223372036854775807 + 1)\n");
}

// Every time setting at its documented limit, with the clock at ten years:
// the pods crash at once and come back with a deploy near the end (so no
// decade of idle polls), the job arrives in the last hour, the vendor is down
// all along, and the largest retry policy (8760h base, coefficient 100, no
// cap, 10000 attempts) backs off a year from there. A crash lands at the
// time limit. The run must stop at the time limit, not at a check.
TEST_CASE("a scenario at every time limit runs to ten years without overflow", "[time][checked]") {
  for (const std::string retry_mode : {"nack", "in_slice"}) {
    for (const std::string jitter : {"none", "full", "equal", "decorrelated"}) {
      INFO(retry_mode << " " << jitter);
      const std::string text = R"(
[budget]
time_limit = "87600h"
events = 1000000000000
[trace]
sample_interval = "0s"
[queue]
visibility_timeout = "12h"
retention = "336h"
[dead_letter_queue]
retention = "336h"
[workers]
count = 2
[runtime]
heartbeat_interval = "12h"
restart_delay = "24h"
[retry]
initial_interval = "8760h"
coefficient = 100
maximum_interval = "none"
maximum_attempts = 10000
jitter = ")" + jitter + R"("
[discipline]
retry = ")" + retry_mode + R"("
[vendor]
latency = { fixed = "24h" }
client_timeout = "24h"
retry_after = "24h"
round_trip = "0s"
key_retention = "87600h"
[[vendor.latency_spike]]
start = "0s"
end = "87600h"
extra = "24h"
[[vendor.outage]]
start = "0s"
end = "87600h"
[[job]]
id = "late"
enqueue_at = "87599h"
invoice = "inv_1"
amount_cents = 99999999
[[crash]]
at = "0s"
worker = 0
restart = false
[[crash]]
at = "0s"
worker = 1
restart = false
[[deploy]]
at = "87500h"
batch_size = 2
batch_interval = "24h"
grace_period = "24h"
startup = "24h"
[[crash]]
at = "87600h"
worker = 0
)";
      const twice::load_result loaded = twice::load_scenario_text(text, "extremes.toml");
      std::string errors;
      for (const twice::scenario_error& e : loaded.errors) errors += e.to_string() + "\n";
      INFO(errors);
      REQUIRE(loaded.ok());
      const twice::cli::run_outcome out = twice::cli::run_one(*loaded.value, twice::cli::run_keeps{.attempts = true});
      CHECK(out.summary.result.reason == twice::sim::stop_reason::time_limit);
      CHECK(out.summary.result.events < 100'000);
      // The one attempt met the outage and backed off from the last hour.
      REQUIRE(out.summary.attempts.size() == 1);
      CHECK(out.summary.attempts[0].backoff_us > 0);
      CHECK(out.summary.attempts[0].backoff_us <= twice::uncapped_ceiling.us());
      if (jitter == "none") CHECK(out.summary.attempts[0].backoff_us == twice::uncapped_ceiling.us());
      CHECK(out.summary.vendor_calls == 1);
      CHECK(out.summary.vendor_refunds == 0);
    }
  }
}
