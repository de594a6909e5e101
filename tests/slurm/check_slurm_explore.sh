#!/usr/bin/env bash
# check_slurm_explore.sh WORKDIR TWICE SOURCE_ROOT
#
# docs/recipes/explore-slurm.sbatch, verbatim, on a single-node Slurm
# cluster of its own (with_cluster.sh, which stops it whatever happens):
# `sbatch --array=0-3 --wait` explores a scenario with a bug switched on in
# four shards (`--shard auto` reads each task's SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT), `twice merge` makes one result of them, and the
# result and repro files must be byte for byte those of one unsharded
# `twice explore` on this machine.
set -euo pipefail
if (($# != 3)); then
  echo "usage: check_slurm_explore.sh WORKDIR TWICE SOURCE_ROOT" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
work=$(cd "$1" && pwd) twice=$(realpath "$2") root=$(cd "$3" && pwd)
runs=400 tasks=4

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "check_slurm_explore: Slurm or MUNGE is not installed: scripts/setup.sh installs Debian's slurm-wlm and munge" >&2
  exit 1
fi
rm -rf "$work/results" "$work/merged" "$work/whole" "$work/task-logs"
mkdir -p "$work/results" "$work/task-logs"
sed 's/key = "stable"/key = "none"/' "$root/scenarios/double_refund_fixed.toml" >"$work/bug.toml"

# Inside the cluster (SLURM_CONF set): the recipe as a user submits it, with
# TWICE naming this build's binary. --wait returns when every task has
# ended, with the highest exit status of them.
submit() {
  local status=0 log
  TWICE=$twice timeout 240 sbatch --quiet --array=0-$((tasks - 1)) --wait --export=ALL --chdir="$work" \
    --output="$work/task-logs/task-%a.out" "$root/docs/recipes/explore-slurm.sbatch" \
    "$work/bug.toml" "$runs" "$work/results" || status=$?
  if ((status != 0)); then
    echo "check_slurm_explore: sbatch --array --wait exited with $status" >&2
    for log in "$work"/task-logs/*; do
      [ -f "$log" ] && { echo "----- $log" >&2; cat "$log" >&2; }
    done
    return 1
  fi
}
export -f submit
export twice root work runs tasks
# In the background, so that a TERM waits for the cluster's teardown (see
# check_slurm.sh: a background command ignores INT, so INT becomes TERM).
bash "$here/with_cluster.sh" "$work/run" bash -c submit &
cluster=$!
trap 'kill -TERM "$cluster" 2>/dev/null; wait "$cluster"; exit 143' TERM
trap 'kill -TERM "$cluster" 2>/dev/null; wait "$cluster"; exit 130' INT
wait "$cluster"
trap - TERM INT

fail() { echo "check_slurm_explore: $*" >&2; exit 1; }
for ((k = 0; k < tasks; k++)); do
  [ -f "$work/results/shard-$k-of-$tasks.json" ] || fail "array task $k wrote no shard-$k-of-$tasks.json"
done
status=0
"$twice" merge "$work/results" --out "$work/merged" >"$work/merge.txt" || status=$?
((status == 1)) || { cat "$work/merge.txt" >&2; fail "twice merge exited $status, expected 1 (the bug found)"; }
status=0
"$twice" explore "$work/bug.toml" --runs "$runs" --out "$work/whole" >/dev/null || status=$?
((status == 1)) || fail "the unsharded twice explore exited $status, expected 1"
diff -r "$work/whole" "$work/merged" >&2 || fail "the merged result differs from the unsharded one"
echo "check_slurm_explore: $tasks Slurm array tasks explored $runs runs; the merge is byte for byte the unsharded result ($(ls "$work/merged" | wc -l) files)"
