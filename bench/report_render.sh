#!/usr/bin/env bash
# How long headless Chromium takes to render the HTML report at scale: the
# steady-traffic world (bench/scenarios/steady_traffic.toml) at 10,000 and
# 100,000 jobs, each page written by `twice run --report`. A page's time is
# Chromium's time on it less its time on an empty page, the best of a few
# runs each; printed with the page's size and the target (under 2 s). A
# benchmark, not a test: it fails only when a page cannot be written or
# rendered, never on a time (CTest browser_large checks the same pages'
# size and layout). Numbers mean something only on an otherwise idle machine.
#
#   bench/report_render.sh TWICE_BINARY [JOBS...]     (default 10000 100000)
#   RUNS=5 bench/report_render.sh build-bench/twice 10000
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
twice=$(realpath "${1:?twice binary}")
shift
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10000 100000)
runs=${RUNS:-3}

# Chromium, headless, as the browser tests start it (render PAGE DOM PNG HEIGHT).
source "$here/../tests/browser/chromium.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/twice-report-render-XXXXXX")
trap 'rm -rf "$work" "$profile"' EXIT

best_ms() {  # best_ms PAGE: the least wall time of $runs renders, in ms
  local best="" start end t
  for ((i = 0; i < runs; ++i)); do
    start=$(date +%s%N)
    render "$1" "$work/page.dom.html" "$work/page.png" 1000
    end=$(date +%s%N)
    t=$(((end - start) / 1000000))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  echo "$best"
}

echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"></head><body></body></html>' >"$work/blank.html"
blank_ms=$(best_ms "$work/blank.html")
printf '%-16s %10s %12s %14s   %s\n' "page" "bytes" "render ms" "Chromium ms" "target < 2000 ms"
printf '%-16s %10s %12s %14s\n' "(empty page)" "" "" "$blank_ms"
for jobs in "${counts[@]}"; do
  sed "s/^count = 10000$/count = $jobs/; s/^name = \"steady_traffic\"$/name = \"steady_traffic_$jobs\"/" \
    "$here/scenarios/steady_traffic.toml" >"$work/steady_$jobs.toml"
  (cd "$work" && "$twice" run "steady_$jobs.toml" --quiet --memory-limit 4GiB --report "steady_$jobs.html" >/dev/null)
  page_ms=$(best_ms "$work/steady_$jobs.html")
  render_ms=$((page_ms - blank_ms))
  printf '%-16s %10s %12s %14s   %s\n' "steady_$jobs" "$(stat -c %s "$work/steady_$jobs.html")" "$render_ms" "$page_ms" \
    "$([ "$render_ms" -lt 2000 ] && echo MET || echo MISSED)"
done
echo "(the best of $runs renders each; Chromium's start, its time on the empty page, taken off)"
