#!/usr/bin/env bash
# The action's run step: each of TWICE_FILES run once with its reports
# (HTML, Markdown, JSON) written to TWICE_OUT/<name>.*, then, with
# TWICE_EXPLORE_RUNS > 0, explored into TWICE_OUT/explore/<name>/ (its
# explore.json and repro files: a folder per file, so one file's result
# never overwrites another's).
# Every file is run whatever the others did; the number that failed (a run
# whose expectations were not met, or bad input, or an explore that found a
# violation) goes to $GITHUB_OUTPUT as `failed`, and a table of them to
# $GITHUB_STEP_SUMMARY. The step itself fails only on bad use of it.
set -euo pipefail
: "${GITHUB_OUTPUT:?}" "${GITHUB_STEP_SUMMARY:?}" "${TWICE_FILES:?scenario files to run}"
out=${TWICE_OUT:-twice-out}
runs=${TWICE_EXPLORE_RUNS:-0}
[[ $runs =~ ^[0-9]+$ ]] || { echo "twice: explore-runs must be a number of runs, not '$runs'" >&2; exit 2; }
mkdir -p "$out"
read -r -a files <<<"$(tr '\n' ' ' <<<"$TWICE_FILES")"
failed=0
{
  echo "| file | twice run | explore |"
  echo "|---|---|---|"
} >>"$GITHUB_STEP_SUMMARY"
for file in "${files[@]}"; do
  name=$(basename "$file" .toml)
  status=0
  twice run --quiet "$file" --report "$out/$name.html" --markdown "$out/$name.md" >"$out/$name.txt" 2>&1 || status=$?
  twice run --json "$file" >"$out/$name.json" 2>/dev/null || true
  case $status in
    0) verdict="expectations met" ;;
    1) verdict="**expectations NOT met**" ;;
    2) verdict="**bad input** (see $name.txt)" ;;
    *) verdict="**exit $status**" ;;
  esac
  explored="-"
  if ((runs > 0)) && ((status != 2)); then
    estatus=0
    twice explore "$file" --runs "$runs" --out "$out/explore/$name" >"$out/$name.explore.txt" 2>&1 || estatus=$?
    if ((estatus == 0)); then
      explored="no violation in $runs runs"
    else
      explored="**violations** (repro files in explore/$name/)"
      status=1
    fi
  fi
  ((status == 0)) || failed=$((failed + 1))
  echo "twice: $file: $verdict; explore: $explored"
  echo "| \`$file\` | $verdict | $explored |" >>"$GITHUB_STEP_SUMMARY"
done
echo "failed=$failed" >>"$GITHUB_OUTPUT"
