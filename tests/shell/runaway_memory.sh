#!/usr/bin/env bash
# Runaway worlds end at a budget with a reported outcome, never by the
# kernel's OOM killer: each run here is capped (ulimit -v) so a regression
# fails this test instead of taking the machine down.
#   1. jobs that never end, run --quiet: ends at its 5,000,000-event budget
#      within 256 MiB of address space;
#   2. the same world keeping every event (the timeline and --trace) with a
#      64 MiB memory budget: ends at the memory budget with its line, exit 1,
#      the trace file written with what ran; capped at 512 MiB of address
#      space (the kept events are counted with what the outputs will make of
#      them, so the outputs fit too);
#   3. the same with the default budget (1GiB) and the timeline printed:
#      ends at the memory budget, capped at 2 GiB.
# Usage: runaway_memory.sh TWICE_BINARY SCENARIO [sanitized]
# Under AddressSanitizer the caps are left off (its shadow memory reserves
# terabytes of address space); the budgets are still checked.
set -uo pipefail
twice=$1
scenario=$2
sanitized=${3:-}
name=runaway_memory
# shellcheck source=tests/shell/capped_run.sh
source "$(dirname "$0")/capped_run.sh"

capped $((256 * 1024)) "$twice" run --quiet "$scenario" >"$work/quiet.txt" 2>"$work/quiet.err"
rc=$?
[[ $rc -eq 1 ]] || fail "--quiet: exit $rc, expected 1 (an open job is a violated every_job_ends); stderr: $(head -c 300 "$work/quiet.err")"
grep -q '^outcome    EVENT BUDGET spent with jobs open at .*, 5000000 events' "$work/quiet.txt" ||
  fail "--quiet: no event-budget outcome line"

capped $((512 * 1024)) "$twice" run --memory-limit 64MiB --trace "$work/trace.jsonl" "$scenario" \
  >"$work/kept.txt" 2>"$work/kept.err"
rc=$?
[[ $rc -eq 1 ]] || fail "--memory-limit 64MiB: exit $rc, expected 1; stderr: $(head -c 300 "$work/kept.err")"
grep -q '^outcome    MEMORY BUDGET spent with jobs open' "$work/kept.txt" || fail "--memory-limit: no memory-budget outcome"
grep -q '^memory     the world held .* over its budget of 64MiB' "$work/kept.txt" || fail "--memory-limit: no memory line"
grep -q -- '--memory-limit 64MiB$' "$work/kept.txt" || fail "--memory-limit: the reproduce line leaves the limit out"
[[ -s "$work/trace.jsonl" ]] || fail "--memory-limit: the trace file is missing or empty"
tail -n 1 "$work/trace.jsonl" | grep -q '^{"t_us":.*}$' || fail "--memory-limit: the trace's last line is cut short"

capped $((2048 * 1024)) "$twice" run "$scenario" >"$work/default.txt" 2>"$work/default.err"
rc=$?
[[ $rc -eq 1 ]] || fail "default budget: exit $rc, expected 1; stderr: $(head -c 300 "$work/default.err")"
grep -q '^memory     the world held .* over its budget of 1GiB' "$work/default.txt" ||
  fail "default budget: no memory line (a timeline of 5,000,000 events must not fit in 1GiB)"
grep -q '^timeline$' "$work/default.txt" || fail "default budget: no timeline printed"

if [[ $failures -ne 0 ]]; then
  echo "runaway_memory: $failures failure(s)"
  exit 1
fi
echo "runaway_memory: all three runs ended at their budgets"
