// Scaling: the steady-traffic world at 1,000 .. 1,000,000 jobs, each size in
// a fresh process so its peak resident memory is its own (getrusage's
// ru_maxrss, the kernel's accounting of this process).
//
//   twice_bench_scaling [--scenario FILE] [--sizes 1000,10000,100000,1000000]
//
// prints one row per size: wall time to load (generate the jobs) and to run,
// simulated events, events and jobs per wall second, the run's cost per job,
// its ratio to the cost at 10,000 jobs, and peak memory. Every run must end
// every job with every invariant held, or the driver exits 1: a fast wrong
// world is not a result.

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bench/steady_world.hpp"

namespace {

struct size_result {
  std::uint64_t jobs = 0;
  std::uint64_t events = 0;
  double load_s = 0;
  double run_s = 0;
  long peak_kib = 0;
  std::uint64_t digest = 0;
  int ok = 0;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The child: one size, one line on stdout.
int run_one(const std::string& path, std::uint64_t jobs) {
  const auto t0 = std::chrono::steady_clock::now();
  twice::scenario sc = twice::bench::load_steady(path, jobs);
  const double load_s = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const twice::bench::steady_run r = twice::bench::run_digest_only(std::move(sc.world));
  const double run_s = seconds_since(t1);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%" PRIu64 " %" PRIu64 " %.6f %.6f %ld %016" PRIx64 " %d\n", r.jobs, r.events, load_s, run_s,
              usage.ru_maxrss, r.trace_digest, r.all_jobs_ended && r.invariants_held ? 1 : 0);
  return 0;
}

bool measure(const std::string& self, const std::string& path, std::uint64_t jobs, size_result& out) {
  const std::string command = "'" + self + "' --one " + std::to_string(jobs) + " --scenario '" + path + "'";
  FILE* child = popen(command.c_str(), "r");
  if (child == nullptr) return false;
  char line[512] = {};
  const bool got = std::fgets(line, sizeof line, child) != nullptr;
  const int status = pclose(child);
  if (!got || status != 0) return false;
  return std::sscanf(line, "%" SCNu64 " %" SCNu64 " %lf %lf %ld %" SCNx64 " %d", &out.jobs, &out.events, &out.load_s,
                     &out.run_s, &out.peak_kib, &out.digest, &out.ok) == 7;
}

std::vector<std::uint64_t> parse_sizes(const char* text) {
  std::vector<std::uint64_t> sizes;
  for (const char* p = text; *p != '\0';) {
    char* end = nullptr;
    sizes.push_back(std::strtoull(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p != '\0') break;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path = TWICE_SOURCE_DIR "/bench/scenarios/steady_traffic.toml";
  std::vector<std::uint64_t> sizes = {1'000, 10'000, 100'000, 1'000'000};
  long one = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--scenario")
      path = argv[i + 1];
    else if (flag == "--sizes")
      sizes = parse_sizes(argv[i + 1]);
    else if (flag == "--one")
      one = std::atol(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--scenario FILE] [--sizes N,N,...]\n", argv[0]);
      return 2;
    }
  }
  if (one >= 0) return run_one(path, static_cast<std::uint64_t>(one));

  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;

  std::printf("Scaling: %s, one process per size\n", path.c_str());
  std::printf("%10s %12s %8s %8s %12s %12s %10s %8s %10s  %s\n", "jobs", "events", "load s", "run s", "events/s",
              "jobs/s", "us/job", "vs 10k", "peak MiB", "digest");
  double cost_10k = 0;
  std::optional<size_result> million;
  bool all_ok = true;
  for (const std::uint64_t jobs : sizes) {
    size_result r;
    if (!measure(self, path, jobs, r)) {
      std::printf("%10" PRIu64 "  the run failed\n", jobs);
      all_ok = false;
      continue;
    }
    const double us_per_job = r.run_s * 1e6 / static_cast<double>(r.jobs);
    if (jobs == 10'000) cost_10k = us_per_job;
    std::printf("%10" PRIu64 " %12" PRIu64 " %8.3f %8.3f %12.0f %12.0f %10.2f %8s %10.1f  %016" PRIx64 "%s\n", r.jobs,
                r.events, r.load_s, r.run_s, static_cast<double>(r.events) / r.run_s,
                static_cast<double>(r.jobs) / r.run_s, us_per_job,
                cost_10k > 0 ? (std::to_string(us_per_job / cost_10k).substr(0, 4) + "x").c_str() : "-",
                static_cast<double>(r.peak_kib) / 1024.0, r.digest, r.ok ? "" : "  INVARIANT OR END FAILED");
    all_ok = all_ok && r.ok;
    if (jobs == 1'000'000) million = r;
    std::fflush(stdout);
  }
  if (million && cost_10k > 0) {
    const double ratio = million->run_s * 1e6 / static_cast<double>(million->jobs) / cost_10k;
    const double mib = static_cast<double>(million->peak_kib) / 1024.0;
    std::printf("\nTargets for 1,000,000 jobs\n");
    std::printf("  %-44s %10.2f s    target < 3 s: %s\n", "wall time (load + run)", million->load_s + million->run_s,
                million->load_s + million->run_s < 3.0 ? "MET" : "MISSED");
    std::printf("  %-44s %10.1f MiB  target < 512 MiB: %s\n", "peak resident memory", mib,
                mib < 512 ? "MET" : "MISSED");
    std::printf("  %-44s %10.2fx     target <= 2x: %s\n", "run cost per job vs 10,000 jobs", ratio,
                ratio <= 2.0 ? "MET" : "MISSED");
  }
  return all_ok ? 0 : 1;
}
