#!/usr/bin/env bash
# check_slurm.sh WORKDIR BATCH_SCRIPT [ARGS...]
#
# On a single-node Slurm cluster of its own (with_cluster.sh, which stops
# it whatever happens), submits BATCH_SCRIPT ARGS... as a job array of four
# tasks, `sbatch --array=0-3 --wait`, and checks that every task ran with
# its own SLURM_ARRAY_TASK_ID and a SLURM_ARRAY_TASK_COUNT of 4 (what
# `twice explore --shard auto` reads).
#
# The contract of BATCH_SCRIPT: it runs with TWICE_SLURM_OUT set to
# WORKDIR/out, and writes one line "$SLURM_ARRAY_TASK_ID
# $SLURM_ARRAY_TASK_COUNT" to $TWICE_SLURM_OUT/task-$SLURM_ARRAY_TASK_ID
# (report_task.sh does only that); whatever else it writes to WORKDIR/out
# is left there for the caller. A task that exits non-zero fails the check,
# with every task's output on stderr.
set -euo pipefail
if (($# < 2)); then
  echo "usage: check_slurm.sh WORKDIR BATCH_SCRIPT [ARGS...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
workdir=$1; shift
tasks=4

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "check_slurm: Slurm or MUNGE is not installed: scripts/setup.sh installs Debian's slurm-wlm and munge" >&2
  exit 1
fi

mkdir -p "$workdir"
workdir=$(cd "$workdir" && pwd)
rm -rf "$workdir/out" "$workdir/task-logs"
mkdir -p "$workdir/out" "$workdir/task-logs"

# submit OUT LOGS BATCH_SCRIPT [ARGS...], inside the cluster (SLURM_CONF is
# set).
submit() {
  local out=$1 logs=$2 status=0 log; shift 2
  # --wait: sbatch returns when every task has ended, with the highest exit
  # status of them; the bound is the script's own, well inside CTest's.
  TWICE_SLURM_OUT=$out timeout 240 \
    sbatch --quiet --array=0-$((tasks - 1)) --wait --export=ALL \
           --chdir="$out" --output="$logs/task-%a.out" "$@" || status=$?
  if ((status != 0)); then
    echo "check_slurm: sbatch --array=0-$((tasks - 1)) --wait $* exited with $status" >&2
    for log in "$logs"/*; do
      [ -f "$log" ] || continue
      echo "----- $log" >&2
      cat "$log" >&2
    done
    return 1
  fi
}
export -f submit
export tasks
# In the background, so that a TERM or INT to this script waits for the
# cluster's teardown before it exits. TERM for both: a command started in
# the background by a script ignores INT (bash sets it so), and a signal
# ignored on entry cannot be trapped.
bash "$here/with_cluster.sh" "$workdir/run" \
     bash -c 'submit "$@"' submit "$workdir/out" "$workdir/task-logs" "$@" &
cluster=$!
trap 'kill -TERM "$cluster" 2>/dev/null; wait "$cluster"; exit 143' TERM
trap 'kill -TERM "$cluster" 2>/dev/null; wait "$cluster"; exit 130' INT
wait "$cluster"
trap - TERM INT

failed=0
for ((i = 0; i < tasks; i++)); do
  file=$workdir/out/task-$i
  if [ ! -f "$file" ]; then
    echo "check_slurm: array task $i left no $file" >&2
    failed=1
  elif [ "$(cat "$file")" != "$i $tasks" ]; then
    echo "check_slurm: array task $i wrote '$(cat "$file")' to $file, expected '$i $tasks'" >&2
    failed=1
  fi
done
found=$(find "$workdir/out" -maxdepth 1 -name 'task-*' | wc -l)
if ((found != tasks)); then
  echo "check_slurm: $found task files in $workdir/out, expected $tasks" >&2
  failed=1
fi
((failed == 0)) || exit 1
echo "check_slurm: $tasks array tasks ran, each with its own id and a count of $tasks"
