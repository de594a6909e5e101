#!/usr/bin/env bash
# A report that stays readable at scale: the steady-traffic world
# (bench/scenarios/steady_traffic.toml) at 10,000 and 100,000 jobs, written
# by `twice run --report` and rendered in headless Chromium with the layout
# probe (layout_probe.js). The page must stay under 2 MB, with a lane per
# chosen job and the aggregate charts for the rest, no label overlapping
# another or cut off, and every bar of the attempts histogram visible.
# How long Chromium takes to render it is measured by
# bench/report_render.sh, never asserted here. Without Chromium this test
# FAILS.
#
#   tests/browser/check_large_report_in_chromium.sh SOURCE_DIR TWICE_BINARY OUT_DIR [JOBS...]
#
# OUT_DIR receives steady_<jobs>.html, .dom.html and .png for each count
# (default 10000 100000).
set -euo pipefail

source_dir=${1:?source dir}
twice=$(realpath "${2:?twice binary}")
out_dir=${3:?output dir}
shift 3
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10000 100000)

source "$(dirname "$0")/chromium.sh"
mkdir -p "$out_dir"

for jobs in "${counts[@]}"; do
  scenario="$out_dir/steady_$jobs.toml"
  page="$out_dir/steady_$jobs.html"
  dom="$out_dir/steady_$jobs.dom.html"
  screenshot="$out_dir/steady_$jobs.png"
  sed "s/^count = 10000$/count = $jobs/; s/^name = \"steady_traffic\"$/name = \"steady_traffic_$jobs\"/" \
    "$source_dir/bench/scenarios/steady_traffic.toml" >"$scenario"
  # Every event is kept for the page: about 1 KB an event by the budget's
  # count. Run from OUT_DIR, so the page names the file, not the build's path.
  (cd "$out_dir" && "$twice" run "steady_$jobs.toml" --quiet --memory-limit 4GiB --report "steady_$jobs.html" >/dev/null)
  bytes=$(stat -c %s "$page")
  render_probed "$page" "$dom" "$screenshot" 2400
  echo "steady_$jobs: $bytes bytes"
  if [ "$bytes" -lt 2000000 ]; then echo "ok   under 2 MB"; else
    echo "FAIL steady_$jobs.html is $bytes bytes, not under 2 MB" >&2
    failures=$((failures + 1))
  fi
  expect_layout "no label overlaps another or is cut off, none sits on a bar, every bar of jobs visible"
  expect "Chromium parsed the page" '<html lang="en"><head>'
  expect "a lane per chosen job" '<g class="lane job"'
  expect "says how many jobs it shows" "data-jobs=\"$jobs\""
  expect "requests per 100 ms at the payment vendor" '<svg class="requests" data-tool="vendor/payments"'
  expect "the queue's depth over time" '<svg id="queue-depth"'
  expect "the attempts histogram" '<svg id="attempts"'
  expect "the backoffs against the cap" '<svg id="backoff"'
  expect_count "no violation drawn (every invariant holds)" 0 'class="violation"'
  expect_png "$screenshot"
done

if [ "$failures" -ne 0 ]; then
  echo "browser_large: $failures check(s) failed" >&2
  exit 1
fi
echo "browser_large: the steady world's report stays under 2 MB and reads well at ${counts[*]} jobs"
