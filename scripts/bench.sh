#!/usr/bin/env bash
# Every benchmark, one command: builds the Release bench tree (build-bench/)
# and prints the kernel, world, scaling, whole-process, exploration and report
# rendering figures, each with its target. Never part of the test run. Numbers mean something only on an
# otherwise idle machine; the million-job scaling run needs about 2 GiB.
#
#   bash scripts/bench.sh                # everything (about a minute)
#   SIZES=1000,10000 CLI_SIZES=10000 REPORT_SIZES=10000 bash scripts/bench.sh   # quicker tables
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

configure build-bench -DCMAKE_BUILD_TYPE=Release -DTWICE_BUILD_TESTS=OFF -DTWICE_BUILD_BENCH=ON
cmake --build build-bench -j2 --target twice twice_bench_kernel twice_bench_world twice_bench_scaling twice_bench_cli

echo "== 1. kernel: the hold model against a bare std::priority_queue"
build-bench/bench/twice_bench_kernel

echo
echo "== 2. world: the steady-traffic scenario and double_refund_fixed in one process"
build-bench/bench/twice_bench_world

echo
echo "== 3. scaling: the steady-traffic scenario from 1,000 to 1,000,000 jobs"
build-bench/bench/twice_bench_scaling --sizes "${SIZES:-1000,10000,100000,1000000}"

echo
echo "== 4. twice run --quiet, the whole process as users run it"
build-bench/bench/twice_bench_cli build-bench/twice --sizes "${CLI_SIZES:-10000,100000,1000000}"

echo
echo "== 5. exploration: twice explore with --jobs 1 and --jobs 2, same file and seeds"
scenario=scenarios/double_refund_fixed.toml
runs=${EXPLORE_RUNS:-50000}
out1=$(mktemp) out2=$(mktemp)
trap 'rm -f "$out1" "$out2"' EXIT
build-bench/twice explore "$scenario" --runs "$runs" --seed 1 --jobs 1 >"$out1"
build-bench/twice explore "$scenario" --runs "$runs" --seed 1 --jobs 2 >"$out2"
# The findings must be identical; only the runs line (threads, time) differs.
if ! diff <(grep -v '^runs ' "$out1") <(grep -v '^runs ' "$out2") >/dev/null; then
  echo "twice explore gave different findings with --jobs 1 and --jobs 2" >&2
  diff "$out1" "$out2" >&2 || true
  exit 1
fi
rate1=$(sed -n 's/^runs .*: \([0-9]*\) runs\/s$/\1/p' "$out1")
rate2=$(sed -n 's/^runs .*: \([0-9]*\) runs\/s$/\1/p' "$out2")
awk -v r1="$rate1" -v r2="$rate2" -v runs="$runs" -v f="$scenario" 'BEGIN {
  ratio = r2 / r1
  printf "%s, %d runs, seed 1: identical findings\n", f, runs
  printf "  %-44s %10d runs/s\n", "--jobs 1", r1
  printf "  %-44s %10d runs/s\n", "--jobs 2", r2
  printf "  %-44s %10.2fx     target >= 1.8x: %s\n", "speed-up", ratio, (ratio >= 1.8 ? "MET" : "MISSED")
}'

echo
echo "== 6. the HTML report at scale, rendered in headless Chromium"
report_sizes=${REPORT_SIZES:-10000,100000}
# shellcheck disable=SC2086  # a list of job counts, one argument each
bash bench/report_render.sh build-bench/twice ${report_sizes//,/ }
