#!/usr/bin/env bash
# Runs one libFuzzer target for a given time: builds it with clang
# (-fsanitize=fuzzer,address,undefined) into build-fuzz, then fuzzes from
# the committed seed corpus. New interesting inputs collect in
# build-fuzz/corpus/<target>/ (merge the useful ones into fuzz/corpus/ by
# hand); a crash, leak, sanitizer report or hang (over 10 s for one input)
# stops the run and leaves the input in build-fuzz/artifacts/<target>/.
# Commit such an input under tests/fuzz_regressions/<target>/ with the fix:
# twice_tests replays it.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   TARGET: scenario_loader | duration_parser
#   e.g.    scripts/fuzz.sh scenario_loader 300
# One process, one job: the machine is shared. The last lines say how many
# inputs ran ("Done N runs in S second(s)").
set -euo pipefail
cd "$(dirname "$0")/.."
if (($# < 2)); then
  echo "usage: $0 scenario_loader|duration_parser SECONDS [libFuzzer flags...]" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
case "$target" in
  scenario_loader) dict=(-dict=fuzz/scenario.dict) ;;
  duration_parser) dict=() ;;
  *) echo "fuzz.sh: unknown target $target (scenario_loader or duration_parser)" >&2; exit 2 ;;
esac
source scripts/setup.sh

build=${TWICE_FUZZ_BUILD:-build-fuzz}
CXX=clang++ configure "$build" -DTWICE_FUZZ=ON -DTWICE_BUILD_TESTS=OFF
cmake --build "$build" -j2 --target "fuzz_$target"

mkdir -p "$build/corpus/$target" "$build/artifacts/$target"
"$build/fuzz/fuzz_$target" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/" "$@" \
  "$build/corpus/$target" "fuzz/corpus/$target"
