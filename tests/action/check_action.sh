#!/usr/bin/env bash
# The GitHub Action's shell steps (action.yml, scripts/action/), run in
# order with the variables GitHub sets (RUNNER_TEMP, GITHUB_PATH,
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) in a temporary runner: install from
# the .deb cpack builds (unpacked: no root, no change to this machine),
# run three files (expectations met, a bug nobody expected, bad input) with
# explore, and the final step's verdict. The upload step is GitHub's own
# action (actions/upload-artifact) and the from-source install a full build:
# neither runs here.
#   usage: check_action.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# action.yml runs these scripts, in this order.
grep -o 'scripts/action/[a-z_]*\.sh' "$source/action.yml" | tr '\n' ' ' | grep -qx 'scripts/action/install.sh scripts/action/run.sh ' ||
  fail "action.yml does not run install.sh then run.sh"

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/dist" >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/dist/twice_*.deb)
export RUNNER_TEMP=$work/runner GITHUB_PATH=$work/github_path GITHUB_OUTPUT=$work/github_output
export GITHUB_STEP_SUMMARY=$work/summary.md
mkdir -p "$RUNNER_TEMP" && touch "$GITHUB_PATH" "$GITHUB_OUTPUT" "$GITHUB_STEP_SUMMARY"

# Step 1: install.
TWICE_DEB=$deb TWICE_INSTALL_MODE=extract TWICE_SOURCE=$source bash "$source/scripts/action/install.sh" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; echo "FAIL: install.sh"; exit 1; }
bin=$(tail -1 "$GITHUB_PATH")
[[ -x $bin/twice && $bin == "$RUNNER_TEMP"/* ]] || fail "install.sh put no twice on GITHUB_PATH ($bin)"
TWICE_DEB=$work/missing.deb TWICE_INSTALL_MODE=extract bash "$source/scripts/action/install.sh" >/dev/null 2>&1 &&
  fail "install.sh accepted a .deb that does not exist"

# Step 2: run, with twice from GITHUB_PATH as the next step sees it.
cd "$work"
sed 's/^key = "stable"/key = "none"/' "$source/scenarios/double_refund_fixed.toml" >refund_no_key.toml
grep -q '^key = "none"' refund_no_key.toml || fail "the flipped scenario kept its key"
printf 'seed = "not a number"\n' >bad.toml
PATH=$bin:$PATH TWICE_FILES="$source/scenarios/double_refund.toml
refund_no_key.toml bad.toml" TWICE_EXPLORE_RUNS=10 TWICE_OUT=out bash "$source/scripts/action/run.sh" >"$work/run.log" 2>&1 ||
  { cat "$work/run.log"; fail "run.sh failed as a step"; }
grep -qx 'failed=2' "$GITHUB_OUTPUT" || fail "GITHUB_OUTPUT says $(cat "$GITHUB_OUTPUT"), not failed=2"
for f in double_refund refund_no_key; do
  for ext in html md json txt; do [[ -s out/$f.$ext ]] || fail "no out/$f.$ext"; done
done
ls out/explore/refund_no_key/double_refund_fixed-*.toml >/dev/null 2>&1 ||
  fail "explore wrote no repro of refund_no_key.toml (named by its name, double_refund_fixed)"
ls out/explore/double_refund/*.toml >/dev/null 2>&1 && fail "explore reported the violations double_refund.toml expects"
# Each explored file keeps its own result: one explore.json per folder.
for f in double_refund refund_no_key; do
  grep -q '"runs_asked":10' "out/explore/$f/explore.json" 2>/dev/null || fail "no explore.json of $f.toml's 10 runs"
done
grep -q '| `refund_no_key.toml` | \*\*expectations NOT met\*\* | \*\*violations\*\*' "$GITHUB_STEP_SUMMARY" ||
  fail "the summary has no failed row for refund_no_key.toml"
grep -q '| `bad.toml` | \*\*bad input\*\*' "$GITHUB_STEP_SUMMARY" || fail "the summary has no bad-input row"
grep -q 'double_refund.toml` | expectations met | no violation in 10 runs' "$GITHUB_STEP_SUMMARY" ||
  fail "the summary has no passing row for double_refund.toml"
TWICE_FILES=x.toml TWICE_EXPLORE_RUNS=many bash "$source/scripts/action/run.sh" >/dev/null 2>&1 &&
  fail "run.sh accepted explore-runs = many"

# Step 4: the verdict, as action.yml writes it.
verdict=$(sed -n "s/^      run: '\\(.*TWICE_FAILED.*\\)'$/\\1/p" "$source/action.yml")
[[ -n $verdict ]] || fail "no verdict step in action.yml"
TWICE_FAILED=2 bash -c "$verdict" >/dev/null && fail "the verdict step passes with 2 failed files"
TWICE_FAILED=0 bash -c "$verdict" || fail "the verdict step fails with none failed"
((failures == 0)) && echo "ok: the action's steps: installed from $(basename "$deb"), 3 files run and explored, 2 failed as they should"
