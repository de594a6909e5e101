#!/usr/bin/env bash
# The double refund's HTML report as a person sees it: `twice run --report`
# writes the page, headless Chromium renders it with the layout probe
# (layout_probe.js), and the checks read the DOM Chromium built
# (--dump-dom), not the file: every lane and mark, labels that neither
# overlap nor are cut off, the time axis ending where the story ended, and
# the same refund red on the timeline and in the ledger tables. A
# screenshot is left as a test artifact. Without Chromium this test FAILS:
# it never passes by skipping.
#
#   tests/browser/check_report_in_chromium.sh SOURCE_DIR TWICE_BINARY OUT_DIR
#
# OUT_DIR receives double_refund.html, double_refund.dom.html and
# double_refund.png (kept after the run, for people and CI artifacts).
set -euo pipefail

source_dir=${1:?source dir}
twice=${2:?twice binary}
out_dir=${3:?output dir}

source "$(dirname "$0")/chromium.sh"

mkdir -p "$out_dir"
report="$out_dir/double_refund.html"
dom="$out_dir/double_refund.dom.html"
screenshot="$out_dir/double_refund.png"
rm -f "$report" "$dom" "$screenshot"

# The report; exit 0 because the scenario's expectations (two violations) are met.
(cd "$source_dir" && "$twice" run scenarios/double_refund.toml --json --report "$report" >"$out_dir/double_refund.json")
[ -s "$report" ] || { echo "FAIL: twice run did not write $report" >&2; exit 1; }
story_end_us=$(grep -o '"sim_time_us":[0-9]*' "$out_dir/double_refund.json" | cut -d: -f2)

render_probed "$report" "$dom" "$screenshot" 1000

# Chromium rebuilt the page: its serialisation, not the file's text (the
# parser drops the newline the file has between <html> and <head>).
expect "Chromium parsed the page" '<html lang="en"><head>'
expect "the timeline is in the DOM" '<svg id="timeline"'
expect "lane worker/0" 'data-lane="worker/0"'
expect "lane worker/1" 'data-lane="worker/1"'
expect "lane vendor/payments" 'data-lane="vendor/payments"'
expect_count "two refunds on the vendor's lane" 2 'data-amount-cents='
expect "the first refund, re_1" '<g class="refund" data-ref="re_1"'
expect "the second refund, re_2, marked a duplicate" '<g class="refund duplicate" data-ref="re_2"'
expect_count "the first refund call outlined dark on its worker's lane" 1 'class="tool tool-refund writes new-write paid"'
expect_count "the second, a duplicate refund, outlined red" 1 'class="tool tool-refund writes new-write paid duplicate-effect"'
expect "the legend explains the red outline" '<span data-key="paid-duplicate">'
expect "the legend explains the red refund" '<span data-key="refund-duplicate">'
expect "the violation: no_double_payment" 'data-invariant="no_double_payment" data-held="false"'
expect "the violation: ledgers_agree" 'data-invariant="ledgers_agree" data-held="false"'
expect "the evidence line" '2.419000s vendor refund re_1 inv_17 1999 cents key=(none)'
expect "the kill that caused it" 'class="kill"'
expect "the redelivery arrow" 'class="redelivery"'
expect "the deploy window" 'class="deploy-window"'
expect_layout "no label overlaps another or is cut off, none sits on a bar"
expect "the time axis ends where the story ended ($story_end_us us)" "data-axis-end-us=\"$story_end_us\""
expect "at the lanes' right edge" 'data-axis-end-right="yes"'
expect "the 18 s in which nothing happens drawn narrow and said" 'class="time-break-label"'
# re_2 refunded inv_17 a second time: red on the timeline and in both
# ledgers; re_1, which our ledger lacks, amber, not red.
expect "re_2 red in our ledger" '<tr class="matched overpaid" data-job="job_17" data-ref="re_2">'
expect "re_2 red in the vendor's" '<tr class="matched overpaid" data-ref="re_2" data-invoice="inv_17">'
expect "re_1 without a row of ours, amber" '<tr class="unmatched" data-ref="re_1" data-invoice="inv_17">'
expect_count "no other red row" 2 ' overpaid" data-'

# The picture, for people (and the README).
expect_png "$screenshot"

if [ "$failures" -ne 0 ]; then
  echo "browser: $failures check(s) failed; the rendered DOM is in $dom" >&2
  exit 1
fi
echo "browser: the double refund report renders with every lane, both refunds and the violation"
