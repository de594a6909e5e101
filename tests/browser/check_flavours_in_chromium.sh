#!/usr/bin/env bash
# Reports that survive real runs, as a person sees them in Chromium: a
# Kafka consumer past max.poll.interval.ms, a Sidekiq deploy whose TERM
# timeout is shorter than the job, and a kill and a redelivery an hour
# apart (tests/scenarios/report/idle_hour.toml). Each page is written by
# `twice run --report`, rendered in headless Chromium with the layout probe
# (layout_probe.js), and checked in the DOM Chromium built: no two labels
# overlap, none is cut off, the histogram's caption clears its bars and
# small bars show, the time axis ends where the story ended (the run's
# sim_time_us) at the lanes' right edge, an idle hour is drawn narrow and
# said, times past an hour read in hours, minutes and seconds, and the
# ledger table marks red exactly the refunds the timeline marks red.
# Without Chromium this test FAILS.
#
#   tests/browser/check_flavours_in_chromium.sh SOURCE_DIR TWICE_BINARY OUT_DIR
#
# OUT_DIR receives, for each page, NAME.html, NAME.dom.html and NAME.png:
# kafka_max_poll_interval, sidekiq_term_timeout and idle_hour.
set -euo pipefail

source_dir=${1:?source dir}
twice=${2:?twice binary}
out_dir=${3:?output dir}

source "$(dirname "$0")/chromium.sh"
mkdir -p "$out_dir"

# page NAME SCENARIO HEIGHT: writes and renders the page; sets $dom and $story_end_us.
page() {
  local report="$out_dir/$1.html" json="$out_dir/$1.json"
  dom="$out_dir/$1.dom.html"
  rm -f "$report" "$dom" "$out_dir/$1.png"
  # Exit 0: each scenario's expectations (its violations) are met.
  (cd "$source_dir" && "$twice" run "$2" --json --report "$report" >"$json")
  [ -s "$report" ] || { echo "FAIL: twice run did not write $report" >&2; exit 1; }
  story_end_us=$(grep -o '"sim_time_us":[0-9]*' "$json" | cut -d: -f2)
  render_probed "$report" "$dom" "$out_dir/$1.png" "$3"
  echo "-- $1"
  expect "Chromium parsed the page" '<html lang="en"><head>'
  expect_layout "no label overlaps another or is cut off, none sits on a bar, no bar of jobs is too thin to see"
  expect "the time axis ends where the story ended ($story_end_us us)" "data-axis-end-us=\"$story_end_us\""
  expect "the story's end drawn at the lanes' right edge" 'data-axis-end-right="yes"'
  expect_png "$out_dir/$1.png"
}

# same_red: the refunds the timeline flags red are the vendor ledger's red rows.
same_red() {
  local timeline ledger
  timeline=$(grep -o '<g class="refund duplicate" data-ref="[^"]*"' "$dom" | sed 's/.*data-ref="//; s/"//' | sort | tr '\n' ' ')
  ledger=$(grep -o '<tr class="[a-z]* overpaid" data-ref="[^"]*" data-invoice=' "$dom" | sed 's/.*data-ref="//; s/".*//' | sort | tr '\n' ' ')
  if [ -n "$timeline" ] && [ "$timeline" = "$ledger" ]; then
    echo "ok   the ledger table marks red the refunds the timeline marks red: $timeline"
  else
    echo "FAIL the timeline marks [$timeline] red, the vendor's ledger table [$ledger]" >&2
    failures=$((failures + 1))
  fi
}

page kafka_max_poll_interval scenarios/kafka_max_poll_interval.toml 2800
expect "worker/0 and worker/1, the group's two consumers" 'data-lane="worker/1"'
expect_count "six refunds, two a second time" 2 '<g class="refund duplicate" data-ref='
same_red
expect "the second refund of inv_3, red in our ledger too" '<tr class="matched overpaid" data-job="job_3" data-ref="re_4">'
expect "the violation's line" 'data-invariant="leases_exclusive_or_absorbed" data-at-us='

page sidekiq_term_timeout scenarios/sidekiq_term_timeout.toml 2800
expect "the drain's deploy window" 'class="deploy-window" data-sha="v2"'
expect "the job killed when the TERM timeout ran out" '<g class="kill" data-job="job_42">'
same_red
expect "the refund of the run after the kill, red in both tables" '<tr class="matched overpaid" data-job="job_42" data-ref="re_2">'

page idle_hour tests/scenarios/report/idle_hour.toml 1000
expect "the idle hour drawn narrow: one break" 'data-breaks="1"'
expect "and said under the axis" 'idle</text>'
probe_px=$(grep -o 'data-kill-to-redelivery-px="[0-9]*"' "$dom" | tr -dc 0-9)
if [ -n "$probe_px" ] && [ "$probe_px" -ge 300 ]; then
  echo "ok   the kill at 5 s and the redelivery at 3600 s are $probe_px px apart, both on the page"
else
  echo "FAIL the kill and the redelivery are ${probe_px:-not both} px apart, not 300 or more" >&2
  failures=$((failures + 1))
fi
expect "the story's end in hours, minutes and seconds on the axis" '>1h 0m 0.416s</text>'
expect "and in the vendor's ledger: re_2 at 1h 0m 0.406000s" '<td class="num">1999 cents</td><td>1h 0m 0.406000s</td>'
same_red

if [ "$failures" -ne 0 ]; then
  echo "browser_flavours: $failures check(s) failed; the rendered DOMs are in $out_dir" >&2
  exit 1
fi
echo "browser_flavours: the Kafka, Sidekiq and idle-hour reports read well in Chromium"
