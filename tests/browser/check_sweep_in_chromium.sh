#!/usr/bin/env bash
# A sweep's page of charts as a person sees it: `twice sweep --report`
# writes Brooker's jitter experiment (two seeds a cell, to be quick: their
# 95% intervals are wide, and stop at zero), headless Chromium renders it
# with the layout probe (layout_probe.js), and the checks read the DOM
# Chromium built: no label overlaps another, no axis title is cut off.
# Without Chromium this test FAILS: it never passes by skipping.
#
#   tests/browser/check_sweep_in_chromium.sh SOURCE_DIR TWICE_BINARY OUT_DIR
#
# OUT_DIR receives brooker_jitter_sweep.html, .dom.html and .png.
set -euo pipefail

source_dir=${1:?source dir}
twice=${2:?twice binary}
out_dir=${3:?output dir}

source "$(dirname "$0")/chromium.sh"

mkdir -p "$out_dir"
page="$out_dir/brooker_jitter_sweep.html"
dom="$out_dir/brooker_jitter_sweep.dom.html"
screenshot="$out_dir/brooker_jitter_sweep.png"
rm -f "$page" "$dom" "$screenshot"

(cd "$source_dir" && "$twice" sweep scenarios/brooker_jitter.toml --seeds 2 --jobs 2 --report "$page" >/dev/null)
[ -s "$page" ] || { echo "FAIL: twice sweep did not write $page" >&2; exit 1; }

render_probed "$page" "$dom" "$screenshot" 900

expect "Chromium parsed the page" '<html lang="en"><head>'
# Makespan, calls per job, job time p99 and retries: no dead letters.
expect_count "four charts" 4 '<svg class="chart"'
for strategy in none exponential full equal decorrelated; do
  expect_count "the $strategy line in every chart" 4 "<g class=\"chart-line\" data-line=\"$strategy\">"
done
expect_count "six client counts on each line" 120 '<circle class="chart-point"'
expect "clients along x" '>workload.count</text>'
expect "the makespan on a log axis (exponential backoff is 30 times slower)" 'seconds, mean ±95% (log scale)'
# Every invariant held: nothing on the page is red.
expect_count "no violation mark" 0 'chart-violation'
expect_count "no red but the stylesheet's for a violated cell" 1 '#c81e1e'
expect_count "no violated cell" 0 'class="violated"'
expect_count "a row per cell" 30 '<td class="none">none</td>'
# Two seeds make wide intervals: the calls per job's would reach below zero.
expect "intervals drawn" '<path class="chart-err" data-low="'
expect_count "no interval below zero" 0 'data-low="-'
expect_count "no tick below zero" 0 'text-anchor="end">-'
expect_layout "no label overlaps another, no title or tick is cut off"
expect_png "$screenshot"

if [ "$failures" -ne 0 ]; then
  echo "browser_sweep: $failures check(s) failed; the rendered DOM is in $dom" >&2
  exit 1
fi
echo "browser_sweep: the jitter sweep renders its four charts, a line per strategy"
