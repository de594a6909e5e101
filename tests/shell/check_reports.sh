#!/usr/bin/env bash
# The determinism check across machines, compilers and build types: the
# committed reports/ must come out of this build byte for byte.
# Usage: check_reports.sh SOURCE_DIR TWICE_BINARY
set -euo pipefail
source_dir=$1
twice=$(realpath "$2")
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
cd "$source_dir"
bash scripts/reports.sh "$twice" "$fresh"
status=0
for report in reports/*.md reports/*.html; do
  if ! diff -u "$report" "$fresh/$(basename "$report")"; then status=1; fi
done
for report in "$fresh"/*.md "$fresh"/*.html; do
  [ -f "reports/$(basename "$report")" ] || { echo "missing committed report: reports/$(basename "$report")"; status=1; }
done
[ $status -eq 0 ] && echo "reports: $(ls "$fresh" | wc -l) regenerated, identical to reports/"
exit $status
