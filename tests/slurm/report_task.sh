#!/usr/bin/env bash
# The batch script of the slurm_cluster test: one array task records what
# Slurm told it, as check_slurm.sh expects of every batch script.
set -euo pipefail
echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT" > "$TWICE_SLURM_OUT/task-$SLURM_ARRAY_TASK_ID"
