#!/usr/bin/env bash
# Outputs that do not grow with the jobs (issue 41): each run here is capped
# (ulimit -v) at what the world alone needs, so an output that starts keeping
# every event again fails here instead of on a user's million-job run.
#   1. --quiet --trace, 10,000 steady jobs (310,000 records, 39 MB of JSON
#      lines): written as the run goes, under 128 MiB of address space (64
#      is enough today); kept whole, the records need ~250 MiB of RSS;
#   2. the same with --json beside it, the digest the bench world pins;
#   3. --quiet --json of 30,000 steady jobs: the attempts array stops at its
#      20,000 and counts the rest in attempts_omitted;
#   4. --quiet --report of the 10,000 jobs under 128 MiB (~51 MiB of RSS
#      today; keeping the records for its timeline took ~220 MiB): the page
#      counts every line of the story and lists the first 2,000;
#   5. --quiet --report of 100,000 steady jobs under 256 MiB (~160 MiB of
#      RSS today; keeping every job's spans took ~410 MiB): the spans of a
#      sample of the jobs are kept (span_bound), the page says how many were
#      not and stays under 2 MB. Not under the sanitizers: 100,000 jobs there
#      take minutes and gigabytes, and the page is the same.
# Usage: streamed_outputs_memory.sh TWICE_BINARY STEADY_SCENARIO [sanitized]
# Under AddressSanitizer the caps are left off (its shadow memory reserves
# terabytes of address space); the counts are still checked.
set -uo pipefail
twice=$1
scenario=$2
sanitized=${3:-}
name=streamed_outputs_memory
# shellcheck source=tests/shell/capped_run.sh
source "$(dirname "$0")/capped_run.sh"

capped $((128 * 1024)) "$twice" run --quiet --trace "$work/trace.jsonl" "$scenario" >"$work/quiet.txt" 2>"$work/quiet.err"
rc=$?
[[ $rc -eq 0 ]] || fail "--quiet --trace: exit $rc, expected 0; stderr: $(head -c 300 "$work/quiet.err")"
records=$(wc -l <"$work/trace.jsonl")
[[ $records -gt 300000 ]] || fail "--quiet --trace: $records records written, expected over 300,000"
tail -n 1 "$work/trace.jsonl" | grep -q '^{"t_us":.*}$' || fail "--quiet --trace: the last line is cut short"

capped $((128 * 1024)) "$twice" run --quiet --json --trace "$work/trace2.jsonl" "$scenario" >"$work/json.txt" \
  2>"$work/json.err"
rc=$?
[[ $rc -eq 0 ]] || fail "--quiet --json --trace: exit $rc, expected 0; stderr: $(head -c 300 "$work/json.err")"
grep -q '"trace_digest":"b0bb9edb92c340f0"' "$work/json.txt" || fail "--quiet --json --trace: not the bench world's digest"
cmp -s "$work/trace.jsonl" "$work/trace2.jsonl" || fail "--json beside --trace changed the trace"

sed 's/^count = 10000$/count = 30000/' "$scenario" >"$work/steady_30k.toml"
grep -q '^count = 30000$' "$work/steady_30k.toml" || fail "the steady world has no 'count = 10000' line to raise"
"$twice" run --quiet --json "$work/steady_30k.toml" >"$work/30k.txt" 2>"$work/30k.err"
rc=$?
[[ $rc -eq 0 ]] || fail "--json, 30,000 jobs: exit $rc, expected 0; stderr: $(head -c 300 "$work/30k.err")"
total=$(grep -o '"attempts_total":[0-9]*' "$work/30k.txt" | cut -d: -f2)
omitted=$(grep -o '"attempts_omitted":[0-9]*' "$work/30k.txt" | cut -d: -f2)
listed=$(grep -o '"started_us":' "$work/30k.txt" | wc -l)
[[ -n "$total" && -n "$omitted" ]] || fail "--json, 30,000 jobs: no attempts_total or attempts_omitted"
[[ $total -ge 30000 ]] || fail "--json, 30,000 jobs: attempts_total $total"
[[ $listed -le 20000 ]] || fail "--json, 30,000 jobs: $listed attempts listed, the most is 20,000"
[[ $((listed + omitted)) -eq ${total:-0} ]] || fail "--json, 30,000 jobs: $listed listed + $omitted omitted != $total"

capped $((128 * 1024)) "$twice" run --quiet --report "$work/report.html" "$scenario" >"$work/report.txt" \
  2>"$work/report.err"
rc=$?
[[ $rc -eq 0 ]] || fail "--quiet --report: exit $rc, expected 0; stderr: $(head -c 300 "$work/report.err")"
grep -q '<h2>What happened, line by line ([0-9]* lines)</h2>' "$work/report.html" || fail "--quiet --report: no story"
story=$(grep -o 'line by line ([0-9]* lines)' "$work/report.html" | grep -o '[0-9]*')
shown=$(sed -n '/<details id="story"/,/<\/details>/p' "$work/report.html" | grep -c '^<tr><td class="num">')
[[ ${story:-0} -gt 2000 && $shown -eq 2000 ]] || fail "--quiet --report: $shown of ${story:-?} story lines shown, expected 2000"
grep -q "and $((${story:-0} - 2000)) more lines" "$work/report.html" || fail "--quiet --report: the lines left out are not counted"

if [[ "$sanitized" != "sanitized" ]]; then
  sed 's/^count = 10000$/count = 100000/' "$scenario" >"$work/steady_100k.toml"
  capped $((256 * 1024)) "$twice" run --quiet --report "$work/report_100k.html" "$work/steady_100k.toml" \
    >"$work/report_100k.txt" 2>"$work/report_100k.err"
  rc=$?
  [[ $rc -eq 0 ]] || fail "--report, 100,000 jobs: exit $rc, expected 0; stderr: $(head -c 300 "$work/report_100k.err")"
  bytes=$(stat -c %s "$work/report_100k.html" 2>/dev/null || echo 0)
  [[ $bytes -gt 0 && $bytes -lt 2000000 ]] || fail "--report, 100,000 jobs: the page is $bytes bytes, not under 2 MB"
  omitted_line=$(grep -o '<p class="meta" id="timeline-omitted" data-jobs-kept="[0-9]*" data-jobs-omitted="[0-9]*"' \
    "$work/report_100k.html")
  kept=$(grep -o 'data-jobs-kept="[0-9]*"' <<<"$omitted_line" | grep -o '[0-9]*')
  dropped=$(grep -o 'data-jobs-omitted="[0-9]*"' <<<"$omitted_line" | grep -o '[0-9]*')
  [[ -n "$kept" && -n "$dropped" ]] || fail "--report, 100,000 jobs: the page does not say whose spans were dropped"
  [[ $((${kept:-0} + ${dropped:-0})) -eq 100000 ]] || fail "--report, 100,000 jobs: $kept kept + $dropped omitted != 100000"
  [[ ${kept:-0} -ge 100 && ${kept:-0} -le 1000 ]] || fail "--report, 100,000 jobs: the spans of $kept jobs kept"
  grep -q "the spans of the other $dropped were dropped" "$work/report_100k.html" ||
    fail "--report, 100,000 jobs: the omitted jobs are not counted in the text"
  grep -q '<g class="lane job"' "$work/report_100k.html" || fail "--report, 100,000 jobs: no lane per job"
fi

if [[ $failures -ne 0 ]]; then
  echo "streamed_outputs_memory: $failures failure(s)"
  exit 1
fi
echo "streamed_outputs_memory: --trace written as it ran ($records records), --json listed $listed of $total attempts," \
  "--report counted $story story lines${kept:+, kept the spans of $kept of 100,000 jobs}"
