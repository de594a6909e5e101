#!/usr/bin/env bash
# Regenerates reports/ from scenarios/ with the built CLI: one Markdown
# incident write-up per scenario, the sweeps of the published experiments, and the double refund's HTML report (its
# screenshot, reports/double_refund.png, comes from CTest `browser`). Commit the result; CI regenerates it and
# fails on any byte of difference (tests/shell/check_reports.sh).
# Usage: scripts/reports.sh [path/to/twice] [out-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
twice=${1:-build/twice}
out=${2:-reports}
mkdir -p "$out"
for scenario in scenarios/*.toml; do
  name=$(basename "$scenario" .toml)
  "$twice" run "$scenario" --quiet --markdown "$out/$name.md" >/dev/null
done
"$twice" run scenarios/double_refund.toml --quiet --report "$out/double_refund.html" >/dev/null
# The published experiments, as sweeps of their grids (docs/sweep.md).
for experiment in brooker_retry_budget brooker_jitter metastable_retry_storm metastable_retry_storm_fixed; do
  "$twice" sweep "scenarios/$experiment.toml" --jobs 2 --markdown "$out/${experiment}_sweep.md" \
    --report "$out/${experiment}_sweep.html" >/dev/null
done
